/// Rows read one at a time from a running statement, so a large result never sits in memory
/// whole.
///
/// ```swift
/// let cursor = try db.fetchCursor(sql: "SELECT * FROM Status ORDER BY createdAt")
/// while let row = try cursor.next() { print(row) }
/// ```
///
/// A cursor keeps its statement busy until it is exhausted or released; use it inside the
/// block it was made in. Not `Sendable`.
public final class RowCursor {
    private let statement: Statement
    private var isDone = false

    init(statement: Statement, arguments: StatementArguments) throws {
        self.statement = statement
        try statement.bind(arguments)
    }

    /// The column names of the rows.
    public var columnNames: [String] { statement.columnNames }

    /// The next row, or `nil` when there are no more.
    /// - Throws: ``DatabaseError`` when SQLite fails while stepping.
    public func next() throws -> Row? {
        guard !isDone else { return nil }
        if try statement.step() {
            return Row(statement: statement)
        }
        finish()
        return nil
    }

    /// Calls `body` for each remaining row.
    public func forEach(_ body: (Row) throws -> Void) throws {
        while let row = try next() { try body(row) }
    }

    private func finish() {
        isDone = true
        statement.reset()
    }

    deinit {
        if !isDone { statement.reset() }
    }
}

@available(*, unavailable)
extension RowCursor: Sendable {}
