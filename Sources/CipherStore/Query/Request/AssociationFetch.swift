/// Runs a request with associations: one SELECT with the to-one associations joined, split by
/// association, then one more SELECT per to-many association (`including(all:)`) for the keys
/// of the rows found, grouped back under each row, as GRDB does.
enum AssociationFetch {
    /// How many key values one prefetch query binds: under SQLite 3.15's limit of 999.
    static let keysPerQuery = 500

    /// The records of `relation`. Without a to-many association, decoded from the statement
    /// row by row, each split where it stands; with one, from the fetched rows, once each
    /// row's associated rows are there.
    static func records<Record: Decodable>(_ type: Record.Type, _ db: Connection, _ relation: SQLRelation) throws -> [Record] {
        var generator = SQLQueryGenerator(db: db)
        let query = try generator.select(relation)
        guard query.prefetches.isEmpty else {
            let rows = try self.rows(db, query).rows
            guard let first = rows.first else { return [] }
            let decoder = RecordDecoder(scoped: first)
            defer { decoder.releaseContainers() }
            return try rows.map { try decoder.decode(Record.self, scoped: $0) }
        }
        let cursor: RecordCursor<Record> = try self.cursor(db, query)
        var records: [Record] = []
        while let record = try cursor.next() { records.append(record) }
        return records
    }

    /// The error of a request whose result no longer has the columns it was planned with: a
    /// table changed (by another connection, or between making a cursor and reading it)
    /// while it was being read. Reading on would give each association another's columns.
    static func schemaChanged(sql: String) -> DatabaseError {
        DatabaseError(resultCode: .SQLITE_SCHEMA, message: "the database schema changed while this request was being read, and its rows no longer have the columns it was planned with; run the request again (for a cursor, make the cursor again)", sql: sql)
    }

    /// A cursor over the records of `relation`, which has no to-many association.
    static func cursor<Record: Decodable>(_ db: Connection, _ relation: SQLRelation) throws -> RecordCursor<Record> {
        var generator = SQLQueryGenerator(db: db)
        let query = try generator.select(relation)
        guard query.prefetches.isEmpty else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "a cursor reads rows one at a time, and the rows of an association included with including(all:) are fetched after all the others; fetch this request with fetchAll")
        }
        return try cursor(db, query)
    }

    private static func cursor<Record: Decodable>(_ db: Connection, _ query: SQLQueryGenerator.Query) throws -> RecordCursor<Record> {
        let statement = try db.cachedStatement(sql: query.sql)
        if let layout = query.layout, layout.width != statement.columnCount - query.hiddenColumnCount {
            throw schemaChanged(sql: query.sql)
        }
        let plan = ScopePlan(layout: query.layout, columnNames: statement.columnNames, visibleWidth: statement.columnCount - query.hiddenColumnCount)
        return try RecordCursor(statement: statement, arguments: .positional(query.arguments), plan: plan)
    }

    /// The rows of `relation`, split, with their to-many associations, and the values of
    /// `extraColumns` for each row.
    static func rows(_ db: Connection, _ relation: SQLRelation, extraColumns: [String] = []) throws -> (rows: [ScopedRow], extras: [[DatabaseValue]]) {
        var generator = SQLQueryGenerator(db: db)
        return try rows(db, generator.select(relation, extraColumns: extraColumns))
    }

    private static func rows(_ db: Connection, _ query: SQLQueryGenerator.Query) throws -> (rows: [ScopedRow], extras: [[DatabaseValue]]) {
        let fetched = try db.fetchAll(sql: query.sql, arguments: .positional(query.arguments))
        guard let first = fetched.first else { return ([], []) }
        let visibleWidth = first.count - query.hiddenColumnCount
        if let layout = query.layout, layout.width != visibleWidth { throw schemaChanged(sql: query.sql) }
        let plan = ScopePlan(layout: query.layout, columnNames: first.columnNames, visibleWidth: visibleWidth)
        var rows = fetched.map { ScopedRow(source: .row($0), plan: plan) }
        let extras = fetched.map { row in query.extraColumnOffsets.map { row.values[visibleWidth + $0] } }
        for prefetch in query.prefetches {
            let keys = fetched.map { row in prefetch.parentKeyOffsets.map { row.values[visibleWidth + $0] } }
            let children = try prefetchedRows(db, prefetch, parentKeys: keys)
            let key = prefetch.association.key.lowercased()
            if prefetch.scopePath.isEmpty {
                for index in rows.indices { rows[index].prefetched[key] = children[index] }
            } else {
                for index in rows.indices { rows[index].nestedPrefetched[prefetch.scopePath, default: [:]][key] = children[index] }
            }
        }
        return (rows, extras)
    }

    /// For each parent key, the associated rows (in the association's order).
    private static func prefetchedRows(_ db: Connection, _ prefetch: SQLQueryGenerator.Prefetch,
                                       parentKeys: [[DatabaseValue]]) throws -> [[ScopedRow]] {
        let association = prefetch.association
        guard association.relation.limit == nil else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "association \(association.key): a limit on a to-many association included with including(all:) would limit all rows together, not each row's; fetch each row's with a request of its own")
        }
        // A NULL key matches no row, as in a join.
        var unique: [[DatabaseValue]] = []
        var seen: Set<[DatabaseValue]> = []
        for key in parentKeys where !key.contains(where: \.isNull) && seen.insert(key).inserted { unique.append(key) }
        var groups: [[DatabaseValue]: [ScopedRow]] = [:]
        let columns = prefetch.columns
        let chunkSize = max(1, keysPerQuery / columns.count)
        for start in stride(from: 0, to: unique.count, by: chunkSize) {
            let chunk = unique[start..<min(start + chunkSize, unique.count)]
            var relation = association.restricting(association.relation, by: condition(columns, chunk))
            // The request's expressions first; one of the association's own by the same name wins.
            let own = Set(relation.commonTableExpressions.map { KnownColumns.folded($0.name) })
            relation.commonTableExpressions = prefetch.commonTableExpressions.filter { !own.contains(KnownColumns.folded($0.name)) } + relation.commonTableExpressions
            let (rows, keys) = try self.rows(db, relation, extraColumns: columns.map(\.childColumn))
            for (row, key) in zip(rows, keys) { groups[key.map(comparable), default: []].append(row) }
        }
        return parentKeys.map { groups[$0.map(comparable)] ?? [] }
    }

    /// A key value as SQLite's join compares it across column affinities: a real that is a
    /// whole number and text that is an integer's canonical spelling count as that integer,
    /// so a child whose key column stores `'1'` or `1.0` is its parent `1`'s, as in a JOIN.
    /// (A NOCASE key column's case-folding is not applied: its children are matched exactly.)
    static func comparable(_ value: DatabaseValue) -> DatabaseValue {
        switch value {
        case .real(let real):
            if let integer = Int64(exactly: real) { return .integer(integer) }
        case .text(let text):
            if let integer = Int64(text), String(integer) == text { return .integer(integer) }
        default:
            break
        }
        return value
    }

    /// `child IN (keys…)`, or for a key of several columns `(a = ? AND b = ?) OR …`.
    private static func condition(_ columns: [JoinColumns], _ keys: ArraySlice<[DatabaseValue]>) -> SQLExpression.Node {
        if columns.count == 1 {
            return .inList(.column(columns[0].childColumn), keys.map { .value($0[0]) })
        }
        let alternatives: [SQLExpression.Node] = keys.map { key in
            .balanced(zip(columns, key).map { SQLExpression.Node.binary(.column($0.childColumn), "=", .value($1)) }, by: "AND")
        }
        return .balanced(alternatives, by: "OR")
    }
}
