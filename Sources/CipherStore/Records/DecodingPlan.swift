/// The columns of a record's coding keys, worked out on a request's first row and confirmed
/// on the others.
///
/// A synthesized `init(from:)` asks for its keys in the same order on every row, so the plan
/// keeps the name of the n-th key asked for with its column, and a later row only confirms that
/// its n-th key has the same name (a key's `stringValue` is usually a literal, whose two words
/// compare equal at once). A key that differs (an `init(from:)` that asks for keys
/// conditionally) is looked up by name and replaces the step: the plan is a shortcut, never a
/// different answer.
///
/// One plan belongs to one ``RecordDecoder``, which reads one statement's rows (or one fetched
/// row): a statement prepared again after a schema change is a new statement with a new decoder.
struct DecodingPlan {
    /// The n-th key a record asked for, and its column (`nil`: the query has none of that name).
    private struct Step {
        let name: String
        let column: Int?
    }

    private var steps: [Step] = []
    private var position = 0

    /// Starts a row: keys are asked for from the first step again.
    @inline(__always)
    mutating func startRow() { position = 0 }

    /// The column of the next key asked for, or `nil` when the query has none of that name;
    /// `lookUp` finds it by name when the plan does not know the key at this position.
    @inline(__always)
    mutating func column(for key: some CodingKey, lookUp: (String) -> Int?) -> Int? {
        let index = position
        position += 1
        let name = key.stringValue
        if index < steps.count, steps[index].name == name { return steps[index].column }
        return plan(name, at: index, lookUp: lookUp)
    }

    /// Looks the key up by name and keeps it as the step at `index`.
    private mutating func plan(_ name: String, at index: Int, lookUp: (String) -> Int?) -> Int? {
        let step = Step(name: name, column: lookUp(name))
        if index < steps.count {
            steps[index] = step
        } else if index == steps.count {
            steps.append(step)
        }
        return step.column
    }
}
