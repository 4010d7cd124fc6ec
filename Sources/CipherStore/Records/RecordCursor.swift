/// Records decoded one row at a time, so a large result never sits in memory whole.
///
/// ```swift
/// let cursor = try db.fetchCursor(Note.self, sql: "SELECT id, body FROM note")
/// while let note = try cursor.next() { print(note.body) }
/// ```
///
/// Rows are decoded straight from the statement, with columns matched to coding keys once per
/// cursor; errors are the same as for decoding a fetched ``Row`` (``Connection/decode(_:from:)``).
/// Not `Sendable`: use it inside the block it was made in.
public final class RecordCursor<Record: Decodable> {
    private let statement: Statement
    private let decoder: RecordDecoder
    /// How each row splits, for a request with to-one associations; `nil` for plain rows.
    private let plan: ScopePlan?
    private var isDone = false

    init(statement: Statement, arguments: StatementArguments) throws {
        self.statement = statement
        self.decoder = RecordDecoder(source: .statement(statement))
        self.plan = nil
        try statement.bind(arguments)
    }

    /// A cursor over the rows of a request with to-one associations, each split by `plan`
    /// where it stands in the statement.
    init(statement: Statement, arguments: StatementArguments, plan: ScopePlan) throws {
        self.statement = statement
        self.decoder = RecordDecoder(scoped: ScopedRow(source: .statement(statement), plan: plan))
        self.plan = plan
        try statement.bind(arguments)
    }

    /// The next record, or `nil` when there are no more.
    /// - Throws: ``DatabaseError``, or ``RecordDecodingError`` when a row does not fit `Record`.
    public func next() throws -> Record? {
        guard !isDone else { return nil }
        guard try statement.step() else {
            isDone = true
            statement.reset()
            return nil
        }
        guard let plan else { return try decoder.decode(Record.self) }
        return try decoder.decode(Record.self, scoped: ScopedRow(source: .statement(statement), plan: plan))
    }

    deinit {
        if !isDone { statement.reset() }
        decoder.releaseContainers()
    }
}

@available(*, unavailable)
extension RecordCursor: Sendable {}
