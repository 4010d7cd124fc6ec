/// Ordering, grouping and selecting by the table's primary key, whatever its columns, in
/// GRDB's spelling:
///
/// ```swift
/// let players = try Player.all().orderByPrimaryKey().fetchAll(db)        // ORDER BY "id"
/// let codes = try Country.selectPrimaryKey(as: String.self).fetchAll(db)   // SELECT "code"
/// let keys = try Citizenship.selectPrimaryKey(as: Row.self).fetchAll(db)  // both key columns
/// ```
///
/// `groupByPrimaryKey()` groups by it (`GROUP BY "id"`). The key is read from the schema when
/// the request runs: the primary key's columns in key
/// order, or the rowid for a table without one. A view or a common table expression has no
/// primary key: such a request throws a ``DatabaseError`` before anything runs.
extension QueryInterfaceRequest {
    /// Orders by the primary key, replacing any previous order (`reversed()` orders it
    /// descending).
    public func orderByPrimaryKey() -> Self {
        order(SQLOrdering(node: .primaryKey, direction: ""))
    }

    /// Groups by the primary key (`GROUP BY "id"`), replacing any previous grouping: with
    /// association aggregates after it, one group per record.
    public func groupByPrimaryKey() -> Self {
        var request = self
        request.relation.groups = [.primaryKey]
        return request
    }

    /// Selects the primary key's columns and fetches each row as `type`: the key's value for
    /// a key of one column, a ``Row`` or a record for a key of several.
    public func selectPrimaryKey<PrimaryKey>(as type: PrimaryKey.Type = PrimaryKey.self) -> QueryInterfaceRequest<PrimaryKey> {
        select(SQLSelection(kind: .expression(.primaryKey))).asRequest(of: PrimaryKey.self)
    }
}

extension TableRecord {
    /// All records, ordered by the primary key.
    public static func orderByPrimaryKey() -> QueryInterfaceRequest<Self> {
        all().orderByPrimaryKey()
    }

    /// All records, grouped by the primary key.
    public static func groupByPrimaryKey() -> QueryInterfaceRequest<Self> {
        all().groupByPrimaryKey()
    }

    /// The primary keys of all records, each fetched as `type`.
    public static func selectPrimaryKey<PrimaryKey>(as type: PrimaryKey.Type = PrimaryKey.self) -> QueryInterfaceRequest<PrimaryKey> {
        all().selectPrimaryKey(as: type)
    }
}

extension Association {
    /// Orders the associated rows by their table's primary key.
    public func orderByPrimaryKey() -> Self {
        order(SQLOrdering(node: .primaryKey, direction: ""))
    }
}

extension SQLRelation {
    /// The relation with the primary key's placeholder (``SQLExpression/Node/primaryKey``)
    /// replaced by the key's columns, in its orderings, groups and selection; its joins' are
    /// replaced when they are rendered.
    /// - Throws: ``DatabaseError`` when the table has no primary key (a view, a common table
    ///   expression, a table whose columns take all of the rowid's names).
    func resolvingPrimaryKey(_ db: Connection) throws -> SQLRelation {
        func isKey(_ node: SQLExpression.Node) -> Bool {
            if case .primaryKey = node { return true }
            return false
        }
        let selectsKey = selection.contains { selection in
            if case .expression(let node) = selection.kind { return isKey(node) }
            return false
        }
        guard selectsKey || orderings.contains(where: { isKey($0.node) }) || groups.contains(where: isKey) else { return self }
        if commonTableExpressions.contains(where: { KnownColumns.folded($0.name) == KnownColumns.folded(table) }) {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "\(table) is a common table expression, which has no primary key to order or select by (orderByPrimaryKey(), selectPrimaryKey(as:)); name its columns instead; nothing was run")
        }
        let columns = try db.primaryKeyOrRowid(ofTable: table)
        var resolved = self
        resolved.orderings = orderings.flatMap { ordering in
            isKey(ordering.node) ? columns.map { SQLOrdering(node: .column($0), direction: ordering.direction) } : [ordering]
        }
        resolved.groups = groups.flatMap { isKey($0) ? columns.map { SQLExpression.Node.column($0) } : [$0] }
        resolved.selection = selection.flatMap { selection in
            guard case .expression(let node) = selection.kind, isKey(node) else { return [selection] }
            return columns.map { SQLSelection(kind: .expression(.column($0))) }
        }
        return resolved
    }
}

extension Connection {
    /// The columns of `table`'s primary key, in key order, or its rowid's name when it has no
    /// primary key. The table is the one SQLite reads under that name: a temporary one first.
    /// - Throws: ``DatabaseError`` when `table` is not a table of the database, or has neither
    ///   (its columns take the rowid's three names).
    func primaryKeyOrRowid(ofTable table: String) throws -> [String] {
        let object = try schemaObject(named: table)
        guard let object, object.type == "table" else {
            let what = object?.type == "view" ? "\(table) is a view" : "\(table) is not a table of the database"
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "\(what), which has no primary key to order or select by (orderByPrimaryKey(), selectPrimaryKey(as:)); name its columns instead; nothing was run")
        }
        let shape = try TableShape.read(table, schema: object.schema, in: self)
        if !shape.primaryKey.isEmpty { return shape.primaryKey }
        guard let rowid = shape.rowidName else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "\(table) has no primary key, and its columns take all of the rowid's names (rowid, _rowid_, oid): name the columns to order or select by instead of orderByPrimaryKey() or selectPrimaryKey(as:); nothing was run")
        }
        return [rowid]
    }
}
