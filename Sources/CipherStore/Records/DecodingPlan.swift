/// The columns of a record's coding keys, worked out on a request's first row and confirmed
/// on the others.
///
/// A synthesized `init(from:)` asks for its keys in the same order on every row, so the plan
/// keeps the n-th key asked for (a ``PlannedKey``) with its column, and a later row only
/// confirms that its n-th key is the same one. A key that differs (an `init(from:)` that asks
/// for keys conditionally) is looked up by name and replaces the step: the plan is a shortcut,
/// never a different answer.
///
/// One plan belongs to one ``RecordDecoder``, which reads one statement's rows (or one fetched
/// row): a statement prepared again after a schema change is a new statement with a new decoder.
struct DecodingPlan {
    /// The n-th key a record asked for, and its column (`nil`: the query has none of that name).
    private struct Step {
        let key: PlannedKey
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
    mutating func column<Key: CodingKey>(for key: Key, lookUp: (String) -> Int?) -> Int? {
        let index = position
        position += 1
        if index < steps.count, steps[index].key.matches(key) { return steps[index].column }
        return plan(key, at: index, lookUp: lookUp)
    }

    /// Looks the key up by name and keeps it as the step at `index`.
    private mutating func plan<Key: CodingKey>(_ key: Key, at index: Int, lookUp: (String) -> Int?) -> Int? {
        let planned = PlannedKey(key)
        let step = Step(key: planned, column: lookUp(planned.name))
        if index < steps.count {
            steps[index] = step
        } else if index == steps.count {
            steps.append(step)
        }
        return step.column
    }
}
