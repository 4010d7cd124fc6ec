/// A table named without a record type, in GRDB's spelling: requests on it read its rows as
/// ``Row``s, or as the record type it is given.
///
/// ```swift
/// let authors = Table("author")
/// let count = try authors.filter(Column("country") == "FR").fetchCount(db)
/// let rows = try authors.order(Column("name")).fetchAll(db)            // [Row]
/// let names = try authors.select(Column("name"), as: String.self).fetchAll(db)
/// let players = Table<Player>("player")                                 // fetches Players
/// ```
///
/// Each method starts from ``all()``, a ``QueryInterfaceRequest`` like a record type's: column
/// names are checked against the table's schema before anything runs. Associations start from
/// record types (`belongsTo`, `hasMany`…), as their keys come from them.
public struct Table<RowDecoder>: Sendable {
    /// The table's name.
    public let tableName: String

    /// A table whose rows fetch as ``Row``s.
    public init(_ tableName: String) where RowDecoder == Row {
        self.tableName = tableName
    }

    /// A table whose rows fetch as `type`.
    public init(_ tableName: String, type: RowDecoder.Type = RowDecoder.self) {
        self.tableName = tableName
    }

    /// A request for every row, to refine with `filter`, `order`, `select`…
    public func all() -> QueryInterfaceRequest<RowDecoder> { QueryInterfaceRequest(relation: SQLRelation(table: tableName)) }
    /// A request that matches no row.
    public func none() -> QueryInterfaceRequest<RowDecoder> { all().filter(SQLExpression(sql: "0")) }
    /// The rows matching `predicate`.
    public func filter(_ predicate: some SQLSpecificExpressible) -> QueryInterfaceRequest<RowDecoder> { all().filter(predicate) }
    /// The rows matching a condition written in SQL.
    public func filter(sql: String, arguments: StatementArguments = .none) -> QueryInterfaceRequest<RowDecoder> { all().filter(sql: sql, arguments: arguments) }
    /// Every row in this order.
    public func order(_ orderings: any SQLOrderingTerm...) -> QueryInterfaceRequest<RowDecoder> { all().order(orderings) }
    /// Every row in an order written in SQL.
    public func order(sql: String, arguments: StatementArguments = .none) -> QueryInterfaceRequest<RowDecoder> { all().order(sql: sql, arguments: arguments) }
    /// Every row, ordered by the primary key (or the rowid).
    public func orderByPrimaryKey() -> QueryInterfaceRequest<RowDecoder> { all().orderByPrimaryKey() }
    /// Only these columns or expressions of every row.
    public func select(_ selection: any SQLSelectable...) -> QueryInterfaceRequest<RowDecoder> { all().select(selection) }
    /// These columns or expressions of every row, fetched as `type` (`String.self` for one column).
    public func select<T>(_ selection: any SQLSelectable..., as type: T.Type) -> QueryInterfaceRequest<T> { all().select(selection).asRequest(of: T.self) }
    /// Every row, with more selected after its columns.
    public func annotated(with selection: any SQLSelectable...) -> QueryInterfaceRequest<RowDecoder> {
        var request = all()
        request.relation.selection += selection.map(\.sqlSelection)
        return request
    }
    /// The rows grouped by these expressions (`GROUP BY`).
    public func group(_ expressions: any SQLExpressible...) -> QueryInterfaceRequest<RowDecoder> {
        var request = all()
        request.relation.groups = expressions.map(\.sqlExpression.node)
        return request
    }
    /// At most `limit` rows.
    public func limit(_ limit: Int, offset: Int? = nil) -> QueryInterfaceRequest<RowDecoder> { all().limit(limit, offset: offset) }

    /// The number of rows.
    public func fetchCount(_ db: Connection) throws -> Int { try all().fetchCount(db) }
    /// Deletes every row. - Returns: how many were deleted.
    @discardableResult
    public func deleteAll(_ db: Connection) throws -> Int { try all().deleteAll(db) }
    /// Updates every row: `Table("note").updateAll(db, Column("done").set(to: true))`.
    /// - Returns: how many were updated.
    @discardableResult
    public func updateAll(_ db: Connection, onConflict: ConflictResolution? = nil, _ assignments: ColumnAssignment...) throws -> Int {
        try all().updateAll(db, onConflict: onConflict, assignments)
    }
}

extension Table where RowDecoder == Row {
    /// Every row.
    public func fetchAll(_ db: Connection) throws -> [Row] { try all().fetchAll(db) }
    /// The first row, or `nil`.
    public func fetchOne(_ db: Connection) throws -> Row? { try all().fetchOne(db) }
}

extension Table where RowDecoder: FetchableRecord {
    /// Every row, as a record.
    public func fetchAll(_ db: Connection) throws -> [RowDecoder] { try all().fetchAll(db) }
    /// The first row as a record, or `nil`.
    public func fetchOne(_ db: Connection) throws -> RowDecoder? { try all().fetchOne(db) }
    /// A cursor over the rows, as records.
    public func fetchCursor(_ db: Connection) throws -> RecordCursor<RowDecoder> { try all().fetchCursor(db) }
}
