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
    /// The statement's column names, shared by every row.
    private let layout: RowLayout
    // Unchecked exclusivity: a cursor is not Sendable and reads its rows one at a time, so
    // the per-row access checks would only cost.
    @exclusivity(unchecked) private var isDone = false
    /// The values of the last row. When the caller has let go of that row, its storage is
    /// unique again and is refilled in place; a row the caller keeps is copied first (value
    /// semantics), so rows never change under their holder.
    @exclusivity(unchecked) private var values: [DatabaseValue] = []

    init(statement: Statement, arguments: StatementArguments) throws {
        self.statement = statement
        self.layout = statement.rowLayout
        try statement.bind(arguments)
        statement.isHeldByCursor = true
    }

    /// The column names of the rows.
    public var columnNames: [String] { statement.columnNames }

    /// The next row, or `nil` when there are no more.
    /// - Throws: ``DatabaseError`` when SQLite fails while stepping.
    public func next() throws -> Row? {
        guard !isDone else { return nil }
        if try statement.step() {
            let count = statement.columnCount
            if values.count != count { values = Array(repeating: .null, count: count) }
            values.withUnsafeMutableBufferPointer { buffer in
                for index in 0..<count { buffer[index] = statement.databaseValue(at: index) }
            }
            return Row(layout: layout, values: values)
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
        statement.releaseFromCursor()
    }

    deinit {
        if !isDone { statement.releaseFromCursor() }
    }
}

@available(*, unavailable)
extension RowCursor: Sendable {}
