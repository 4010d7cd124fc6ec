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
    /// Made for this statement's rows (split by a plan, for a request with to-one
    /// associations): every row it reads is the statement's current one, so it is given
    /// nothing per row.
    private let decoder: RecordDecoder
    private var isDone = false
    /// For a request with associations: whether the first row has yet to confirm the columns
    /// its rows are split by (see ``confirmColumns()``).
    private var columnsToConfirm = false

    init(statement: Statement, arguments: StatementArguments) throws {
        self.statement = statement
        self.decoder = RecordDecoder(source: .statement(statement))
        try statement.bind(arguments)
        statement.isHeldByCursor = true
    }

    /// A cursor over the rows of a request with to-one associations, each split by `plan`
    /// where it stands in the statement.
    init(statement: Statement, arguments: StatementArguments, plan: ScopePlan) throws {
        self.statement = statement
        self.decoder = RecordDecoder(scoped: ScopedRow(source: .statement(statement), plan: plan))
        try statement.bind(arguments)
        statement.isHeldByCursor = true
        columnsToConfirm = true
    }

    /// The next record, or `nil` when there are no more.
    /// - Throws: ``DatabaseError``, or ``RecordDecodingError`` when a row does not fit `Record`.
    public func next() throws -> Record? {
        guard !isDone else { return nil }
        guard try statement.step() else {
            isDone = true
            statement.releaseFromCursor()
            return nil
        }
        if columnsToConfirm { try confirmColumns() }
        return try decoder.decode(Record.self)
    }

    /// Checks, on the first row, that the statement's result columns are still those the
    /// request's rows are split by. A schema change between making the cursor and reading it
    /// (`ALTER TABLE … ADD COLUMN` under `book.*`) makes SQLite prepare the statement again
    /// with the columns the tables have now, and each association's columns would be read at
    /// the old places: a clear error instead of records made of the wrong columns.
    private func confirmColumns() throws {
        columnsToConfirm = false
        guard statement.hasPreparedColumns else {
            isDone = true
            statement.releaseFromCursor()
            throw AssociationFetch.schemaChanged(sql: statement.sql)
        }
    }

    deinit {
        if !isDone { statement.releaseFromCursor() }
        decoder.releaseContainers()
    }
}

@available(*, unavailable)
extension RecordCursor: Sendable {}
