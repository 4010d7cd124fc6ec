/// A query of one table's records, built step by step and run as one SELECT (or DELETE),
/// every value bound: `Note.filter(…).order(…).limit(…).fetchAll(db)`.
///
/// The SQL is plain SQLite 3.15 SQL (`SELECT * FROM "note" WHERE … ORDER BY … LIMIT ? OFFSET ?`),
/// so it runs the same on every SQLCipher; ``sql`` and ``arguments`` show it. Associations
/// (joins between records) are not part of it: write those in SQL.
public struct QueryRequest<Record: FetchableRecord & TableRecord>: Sendable {
    private var conditions: [SQLExpression] = []
    private var orderings: [String] = []
    private var orderingColumns: [String] = []
    private var limitCount: Int?
    private var offsetCount: Int?

    init() {}

    /// Adds a condition; several are combined with AND.
    public func filter(_ condition: SQLExpression) -> Self {
        var request = self
        request.conditions.append(condition)
        return request
    }

    /// Replaces the order: `order(Column("date").desc, Column("id"))`.
    public func order(_ terms: any SQLOrderingTerm...) -> Self {
        order(terms)
    }

    func order(_ terms: [any SQLOrderingTerm]) -> Self {
        var request = self
        request.orderings = terms.map(\.orderingSQL)
        request.orderingColumns = terms.flatMap(\.orderingColumns)
        return request
    }

    /// At most `limit` records, after skipping `offset`.
    public func limit(_ limit: Int, offset: Int? = nil) -> Self {
        var request = self
        request.limitCount = limit
        request.offsetCount = offset
        return request
    }

    /// The SELECT this request runs.
    public var sql: String { "SELECT * FROM \(Connection.quoteIdentifier(Record.databaseTableName))" + clauses }

    /// The values bound to its placeholders, in order.
    public var arguments: [DatabaseValue] {
        conditions.flatMap(\.arguments) + (limitCount.map { [.integer(Int64($0))] } ?? [])
            + (limitCount != nil ? offsetCount.map { [.integer(Int64($0))] } ?? [] : [])
    }

    private var clauses: String {
        var sql = ""
        if !conditions.isEmpty { sql += " WHERE " + conditions.map { "(\($0.sql))" }.joined(separator: " AND ") }
        if !orderings.isEmpty { sql += " ORDER BY " + orderings.joined(separator: ", ") }
        if limitCount != nil { sql += " LIMIT ?" + (offsetCount != nil ? " OFFSET ?" : "") }
        return sql
    }

    /// The matching records.
    /// - Throws: ``DatabaseError``, or ``RecordDecodingError`` when a row does not fit.
    public func fetchAll(_ db: Connection) throws -> [Record] {
        try checkColumns(db)
        return try db.fetchAll(Record.self, sql: sql, arguments: .positional(arguments))
    }

    /// The first matching record, or `nil`.
    public func fetchOne(_ db: Connection) throws -> Record? {
        try limit(1, offset: offsetCount).fetchAll(db).first
    }

    /// The number of matching records (LIMIT and OFFSET count too).
    public func fetchCount(_ db: Connection) throws -> Int {
        try checkColumns(db)
        let counted = limitCount == nil ? "SELECT count(*) FROM \(Connection.quoteIdentifier(Record.databaseTableName))" + clauses
            : "SELECT count(*) FROM (\(sql))"
        return try db.fetchScalar(Int.self, sql: counted, arguments: .positional(arguments)) ?? 0
    }

    /// Deletes the matching records (in their order, up to the limit).
    /// - Returns: how many were deleted.
    @discardableResult
    public func deleteAll(_ db: Connection) throws -> Int {
        try checkColumns(db)
        let table = Connection.quoteIdentifier(Record.databaseTableName)
        if limitCount == nil && orderings.isEmpty {
            let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.map { "(\($0.sql))" }.joined(separator: " AND ")
            try db.execute(sql: "DELETE FROM \(table)" + whereClause, arguments: .positional(conditions.flatMap(\.arguments)))
        } else {
            // DELETE … ORDER BY … LIMIT needs a compile option SQLite builds may lack.
            try db.execute(sql: "DELETE FROM \(table) WHERE rowid IN (SELECT rowid FROM \(table)\(clauses))", arguments: .positional(arguments))
        }
        return db.changesCount
    }

    /// Every ``Column`` the request names must be one of the table's: SQLite would read an
    /// unknown double-quoted name as a string literal, and a misspelled filter would match
    /// nothing and a misspelled order sort nothing, without an error.
    /// - Throws: a ``DatabaseError`` (`SQLITE_ERROR`, "no such column") naming it and the
    ///   table's columns; nothing runs.
    private func checkColumns(_ db: Connection) throws {
        let named = conditions.flatMap(\.columns) + orderingColumns
        guard !named.isEmpty else { return }
        let table = Record.databaseTableName
        let known = try db.columnNamesOfTable(table)
        for name in named where !known.lowercased.contains(name.lowercased()) {
            throw DatabaseError(resultCode: .SQLITE_ERROR,
                                message: "no such column: \(name) (the columns of \(table) are \(known.names.joined(separator: ", "))); nothing was run",
                                sql: sql)
        }
    }
}
