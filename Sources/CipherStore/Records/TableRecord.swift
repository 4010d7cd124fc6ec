/// A record bound to a table: its name and primary key said once, then fetched, counted,
/// saved and deleted without SQL text.
///
/// ```swift
/// struct Note: Codable, FetchableRecord, TableRecord, RowIDRecord {
///     static let databaseTableName = "note"
///     var id: Int64?
///     var body: String
///     var done = false
/// }
/// var note = Note(id: nil, body: "buy milk")
/// try note.insert(db)                        // note.id is set
/// let same = try Note.fetchOne(db, key: note.id)
/// let open = try Note.filter(Column("done") == false).order(Column("id").desc).fetchAll(db)
/// note.done = true
/// try note.save(db)                          // update, or insert when the row is gone
/// try note.delete(db)
/// ```
///
/// A record's row is found by its ``primaryKeyColumn`` (`id` unless the type says otherwise).
/// A record without that property is found by the table's declared primary key (`code TEXT
/// PRIMARY KEY`, a pivot table's `PRIMARY KEY (teamId, playerId)`), read from the schema as
/// GRDB reads it, when the record has a property for each of its columns: `update`, `delete`,
/// `exists`, `save` and `updateChanges` then match every key column.
public protocol TableRecord {
    /// The table's name.
    static var databaseTableName: String { get }
    /// The primary key column, as the record's coding key spells it; `"id"` by default.
    ///
    /// The methods that take a connection (`fetchOne(_:key:)`, `find`, `exists`,
    /// `deleteOne`, `update`, `delete`, `save`…) use it when the schema makes it name one row:
    /// the primary key, the rowid, or a column with a UNIQUE index of its own. Otherwise they
    /// use the table's declared primary key, as GRDB does (a legacy table keyed by `uuid`
    /// whose `id` repeats), and throw ``RecordError/keyNamesSeveralRows(table:column:)`` when
    /// it declares none: updating or deleting by a column that repeats would change rows that
    /// are not the record's. `filter(key:)` and `filter(id:)`, made without a connection,
    /// compare this column.
    static var primaryKeyColumn: String { get }
    /// The record's columns, for the closures and key paths of the query interface, in
    /// GRDB's spelling: `enum Columns { static let score = Column(CodingKeys.score) }` makes
    /// `Player.filter { $0.score > 100 }` and `Player.order(\.score.desc)`. Inferred from a
    /// nested type of that name; `Never` when there is none.
    associatedtype Columns = Never
    /// What those closures receive: `Columns.Type` unless the record says otherwise.
    associatedtype DatabaseComponents = Columns.Type
    /// The value those closures receive: `Columns.self` by default.
    static var databaseComponents: DatabaseComponents { get }
}

extension TableRecord where DatabaseComponents == Columns.Type {
    public static var databaseComponents: DatabaseComponents { Columns.self }
}

extension TableRecord {
    public static var primaryKeyColumn: String { "id" }

    /// Deletes every row of the table.
    /// - Returns: how many were deleted.
    @discardableResult
    public static func deleteAll(_ db: Connection) throws -> Int {
        try db.execute(sql: "DELETE FROM \(Connection.quoteIdentifier(databaseTableName))")
        return db.changesCount
    }

    /// Deletes the row with this primary key.
    /// - Returns: whether there was one.
    @discardableResult
    public static func deleteOne(_ db: Connection, key: some DatabaseValueConvertible) throws -> Bool {
        let column = try keyColumn(db)
        let value = databaseKeyValue(key, column: column)
        guard !value.isNull else { return false }
        do {
            try db.deleteOne(from: databaseTableName, key: value, primaryKey: column)
            return true
        } catch RecordError.rowNotFound {
            return false
        }
    }

    /// Whether a row has this primary key.
    public static func exists(_ db: Connection, key: some DatabaseValueConvertible) throws -> Bool {
        let column = try keyColumn(db)
        let key = databaseKeyValue(key, column: column)
        guard !key.isNull else { return false }
        return try db.fetchScalar(Int.self, sql: "SELECT EXISTS (SELECT 1 FROM \(Connection.quoteIdentifier(databaseTableName)) WHERE \(Connection.quoteIdentifier(column)) = ?)",
                           arguments: .positional([key.databaseValue])) == 1
    }
}

extension TableRecord {
    /// A request for every record, to refine with `filter`, `order`, `select`, `including`…
    public static func all() -> QueryInterfaceRequest<Self> { QueryInterfaceRequest(relation: SQLRelation(table: databaseTableName)) }
    /// A request that matches no record.
    public static func none() -> QueryInterfaceRequest<Self> { all().filter(SQLExpression(sql: "0")) }
    /// The records matching `predicate`. See ``QueryInterfaceRequest``.
    public static func filter(_ predicate: some SQLSpecificExpressible) -> QueryInterfaceRequest<Self> { all().filter(predicate) }
    /// The records matching a condition written in SQL.
    public static func filter(sql: String, arguments: StatementArguments = .none) -> QueryInterfaceRequest<Self> { all().filter(sql: sql, arguments: arguments) }
    /// Every record in an order written in SQL.
    public static func order(sql: String, arguments: StatementArguments = .none) -> QueryInterfaceRequest<Self> { all().order(sql: sql, arguments: arguments) }
    /// A request selecting SQL written out.
    public static func select(sql: String, arguments: StatementArguments = .none) -> QueryInterfaceRequest<Self> { all().select(sql: sql, arguments: arguments) }
    /// Every record in this order. See ``QueryInterfaceRequest``.
    public static func order(_ orderings: any SQLOrderingTerm...) -> QueryInterfaceRequest<Self> { all().order(orderings) }
    /// At most `limit` records. See ``QueryInterfaceRequest``.
    public static func limit(_ limit: Int, offset: Int? = nil) -> QueryInterfaceRequest<Self> { all().limit(limit, offset: offset) }
    /// Only these columns or expressions of every record. See ``QueryInterfaceRequest/select(_:)-([SQLSelectable])``.
    public static func select(_ selection: any SQLSelectable...) -> QueryInterfaceRequest<Self> { all().select(selection) }
    /// These columns or expressions, each row fetched as `type`: `Note.select(Column("title"), as: String.self)`.
    public static func select<T>(_ selection: any SQLSelectable..., as type: T.Type) -> QueryInterfaceRequest<T> {
        all().select(selection).asRequest(of: T.self)
    }
    /// The records that match a condition on an association aggregate: `Author.having(Author.books.count >= 2)`.
    public static func having(_ predicate: some SQLSpecificExpressible) -> QueryInterfaceRequest<Self> { all().having(predicate) }
    /// Every record with more selected after its columns. See ``QueryInterfaceRequest/annotated(with:)-(SQLSelectable...)``.
    public static func annotated(with selection: any SQLSelectable...) -> QueryInterfaceRequest<Self> {
        var request = all()
        request.relation.selection += selection.map(\.sqlSelection)
        return request
    }

    /// Updates every row of the table: `Note.updateAll(db, Column("done").set(to: false))`.
    /// - Returns: how many rows were updated.
    @discardableResult
    public static func updateAll(_ db: Connection, onConflict: ConflictResolution? = nil, _ assignments: ColumnAssignment...) throws -> Int {
        try all().updateAll(db, onConflict: onConflict, assignments)
    }
}

extension TableRecord where Self: FetchableRecord {
    /// Every record of the table.
    @inlinable
    public static func fetchAll(_ db: Connection) throws -> [Self] { try all().fetchAll(db) }

    /// The record with this primary key, or `nil`.
    public static func fetchOne(_ db: Connection, key: some DatabaseValueConvertible) throws -> Self? {
        try filter(key: key, column: keyColumn(db)).fetchOne(db)
    }

    /// A cursor over every record of the table.
    public static func fetchCursor(_ db: Connection) throws -> RecordCursor<Self> { try all().fetchCursor(db) }
}

extension TableRecord {
    /// The number of rows of the table.
    public static func fetchCount(_ db: Connection) throws -> Int { try all().fetchCount(db) }
}
