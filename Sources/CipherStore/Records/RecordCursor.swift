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
    private var isDone = false

    init(statement: Statement, arguments: StatementArguments) throws {
        self.statement = statement
        self.decoder = RecordDecoder(source: .statement(statement))
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
        return try decoder.decode(Record.self)
    }

    deinit {
        if !isDone { statement.reset() }
    }
}

@available(*, unavailable)
extension RecordCursor: Sendable {}
