extension QueryInterfaceRequest where RowDecoder: FetchableRecord {
    /// The matching records; with associations, each with its associated records.
    /// - Throws: ``DatabaseError`` (an unknown column names it), or ``RecordDecodingError``
    ///   when a row does not fit.
    @inlinable  // specialized in the caller: the loop then looks up no generic metadata per row
    public func fetchAll(_ db: Connection) throws -> [RowDecoder] {
        if let records = try prefetchedRecords(db) { return records }
        let cursor = try fetchCursor(db)
        var records: [RowDecoder] = []
        while let record = try cursor.next() { records.append(record) }
        return records
    }

    /// The records of a request that includes a to-many association (`including(all:)`),
    /// whose rows are fetched after the others; `nil` for any other request (a cursor reads it).
    @usableFromInline
    func prefetchedRecords(_ db: Connection) throws -> [RowDecoder]? {
        guard relation.includesPrefetch else { return nil }
        return try AssociationFetch.records(RowDecoder.self, db, relation)
    }

    /// The first matching record, or `nil`.
    public func fetchOne(_ db: Connection) throws -> RowDecoder? {
        try firstRowOnly.fetchAll(db).first
    }

    /// A cursor over the matching records, decoded one at a time (with their to-one
    /// associations).
    /// - Throws: ``DatabaseError``; also for a request that includes a to-many association
    ///   (`including(all:)`), whose rows are fetched after all the others: use `fetchAll(_:)`.
    public func fetchCursor(_ db: Connection) throws -> RecordCursor<RowDecoder> {
        guard relation.joins.isEmpty else {
            return try AssociationFetch.cursor(db, relation)
        }
        let sql = try makeSQL(db)
        return try db.fetchCursor(RowDecoder.self, sql: sql.sql, arguments: sql.statementArguments)
    }
}

extension QueryInterfaceRequest where RowDecoder: FetchableRecord & Hashable {
    /// The matching records, without repeats.
    public func fetchSet(_ db: Connection) throws -> Set<RowDecoder> { Set(try fetchAll(db)) }
}

extension QueryInterfaceRequest where RowDecoder: DatabaseValueConvertible {
    /// The first selected column of each matching row: `Note.select(Column("title"), as: String.self).fetchAll(db)`.
    /// A NULL throws unless `RowDecoder` is optional (`select(…, as: String?.self)`).
    public func fetchAll(_ db: Connection) throws -> [RowDecoder] {
        let sql = try makeSQL(db)
        return try db.fetchAll(RowDecoder.self, sql: sql.sql, arguments: sql.statementArguments)
    }

    /// The first selected column of the first matching row, or `nil`.
    public func fetchOne(_ db: Connection) throws -> RowDecoder? {
        let sql = try firstRowOnly.makeSQL(db)
        return try db.fetchOne(RowDecoder.self, sql: sql.sql, arguments: sql.statementArguments)
    }
}

extension QueryInterfaceRequest where RowDecoder: DatabaseValueConvertible & Hashable {
    /// The distinct values of the first selected column.
    public func fetchSet(_ db: Connection) throws -> Set<RowDecoder> { Set(try fetchAll(db)) }
}

extension QueryInterfaceRequest where RowDecoder == Row {
    /// The matching rows. With associations, each row has the base table's columns, then each
    /// included to-one association's, flat.
    public func fetchAll(_ db: Connection) throws -> [Row] { try Row.fetchAll(db, self) }

    /// The first matching row, or `nil`.
    public func fetchOne(_ db: Connection) throws -> Row? { try Row.fetchOne(db, self) }
}

extension QueryInterfaceRequest {
    /// The number of rows the request fetches (LIMIT and OFFSET count too).
    public func fetchCount(_ db: Connection) throws -> Int {
        var counted = relation.removingPrefetches()
        counted.orderings = []
        counted.reversesOrderWrittenInSQL = false
        let isPlain = !counted.hasJoinedTables && !counted.isDistinct && counted.groups.isEmpty && counted.havings.isEmpty && counted.limit == nil
            && counted.selection.count == 1 && { if case .allColumns = counted.selection[0].kind { return true } else { return false } }()
        if isPlain {
            counted.selection = [SQLExpression(.countAll).sqlSelection]
            var generator = SQLQueryGenerator(db: db)
            let query = try generator.select(counted)
            return try db.fetchScalar(Int.self, sql: query.sql, arguments: .positional(query.arguments)) ?? 0
        }
        var generator = SQLQueryGenerator(db: db)
        let query = try generator.select(counted)
        return try db.fetchScalar(Int.self, sql: "SELECT COUNT(*) FROM (\(query.sql))", arguments: .positional(query.arguments)) ?? 0
    }

    /// Whether the request fetches no row.
    public func isEmpty(_ db: Connection) throws -> Bool {
        let sql = try firstRowOnly.makeSQL(db)
        // Not EXISTS: SQLite replaces the subquery's LIMIT there, so `limit(0)` would count.
        return try db.fetchScalar(Int.self, sql: "SELECT COUNT(*) FROM (\(sql.sql))", arguments: sql.statementArguments) == 0
    }
}

extension Row {
    /// The rows of a query, in GRDB's spelling: the same as ``Connection/fetchAll(sql:arguments:)``.
    public static func fetchAll(_ db: Connection, sql: String, arguments: StatementArguments = .none) throws -> [Row] {
        try db.fetchAll(sql: sql, arguments: arguments)
    }

    /// The first row of a query, or `nil`: the same as ``Connection/fetchOne(sql:arguments:)``.
    public static func fetchOne(_ db: Connection, sql: String, arguments: StatementArguments = .none) throws -> Row? {
        try db.fetchOne(sql: sql, arguments: arguments)
    }

    /// A cursor over the rows of a query: the same as ``Connection/fetchCursor(sql:arguments:)``.
    public static func fetchCursor(_ db: Connection, sql: String, arguments: StatementArguments = .none) throws -> RowCursor {
        try db.fetchCursor(sql: sql, arguments: arguments)
    }

    /// The rows of any request, as ``Row``s: the columns it selects, a to-one association's
    /// after them; an `including(all:)` is left out (it is a second query, for records).
    public static func fetchAll<T>(_ db: Connection, _ request: QueryInterfaceRequest<T>) throws -> [Row] {
        let relation = request.relation.removingPrefetches()
        var generator = SQLQueryGenerator(db: db)
        let query = try generator.select(relation)
        return try db.fetchAll(sql: query.sql, arguments: .positional(query.arguments))
    }

    /// The first row of any request, or `nil`.
    public static func fetchOne<T>(_ db: Connection, _ request: QueryInterfaceRequest<T>) throws -> Row? {
        try fetchAll(db, request.firstRowOnly).first
    }
}

extension FetchableRecord {
    /// The records of a request: `Note.fetchAll(db, request)`, GRDB's spelling of `request.fetchAll(db)`.
    public static func fetchAll(_ db: Connection, _ request: QueryInterfaceRequest<Self>) throws -> [Self] { try request.fetchAll(db) }
    /// The first record of a request, or `nil`.
    public static func fetchOne(_ db: Connection, _ request: QueryInterfaceRequest<Self>) throws -> Self? { try request.fetchOne(db) }
}

extension DatabaseValueConvertible {
    /// The values of a request: `String.fetchAll(db, Note.select(Column("title")))`, whatever
    /// the request's own row type.
    public static func fetchAll<T>(_ db: Connection, _ request: QueryInterfaceRequest<T>) throws -> [Self] {
        try request.asRequest(of: Self.self).fetchAll(db)
    }
    /// The value of a request's first row, or `nil`.
    public static func fetchOne<T>(_ db: Connection, _ request: QueryInterfaceRequest<T>) throws -> Self? {
        try request.asRequest(of: Self.self).fetchOne(db)
    }
}

extension QueryInterfaceRequest {
    /// The request limited to its first row: `LIMIT 1`, or the request's own smaller limit
    /// (`limit(0)` fetches nothing).
    var firstRowOnly: Self { limit(Swift.min(relation.limit ?? 1, 1), offset: relation.offset) }
}
