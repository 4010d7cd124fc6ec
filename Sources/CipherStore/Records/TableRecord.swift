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
/// The primary key is one column, `id` unless ``primaryKeyColumn`` says otherwise.
public protocol TableRecord {
    /// The table's name.
    static var databaseTableName: String { get }
    /// The primary key column, as the record's coding key spells it; `"id"` by default.
    static var primaryKeyColumn: String { get }
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
        do {
            try db.deleteOne(from: databaseTableName, key: key, primaryKey: primaryKeyColumn)
            return true
        } catch RecordError.rowNotFound {
            return false
        }
    }

    /// Whether a row has this primary key.
    public static func exists(_ db: Connection, key: some DatabaseValueConvertible) throws -> Bool {
        try db.fetchScalar(Int.self, sql: "SELECT EXISTS (SELECT 1 FROM \(Connection.quoteIdentifier(databaseTableName)) WHERE \(Connection.quoteIdentifier(primaryKeyColumn)) = ?)",
                           arguments: .positional([key.databaseValue])) == 1
    }
}

extension TableRecord where Self: FetchableRecord {
    /// A request for every record, to refine with `filter`, `order` and `limit`.
    public static func all() -> QueryRequest<Self> { QueryRequest() }
    /// The records matching `condition`. See ``QueryRequest``.
    public static func filter(_ condition: SQLExpression) -> QueryRequest<Self> { all().filter(condition) }
    /// Every record in this order. See ``QueryRequest``.
    public static func order(_ terms: any SQLOrderingTerm...) -> QueryRequest<Self> { all().order(terms) }
    /// At most `limit` records. See ``QueryRequest``.
    public static func limit(_ limit: Int, offset: Int? = nil) -> QueryRequest<Self> { all().limit(limit, offset: offset) }

    /// Every record of the table.
    public static func fetchAll(_ db: Connection) throws -> [Self] { try all().fetchAll(db) }

    /// The record with this primary key, or `nil`.
    public static func fetchOne(_ db: Connection, key: some DatabaseValueConvertible) throws -> Self? {
        try filter(Column(primaryKeyColumn) == key).fetchOne(db)
    }

    /// The number of rows of the table.
    public static func fetchCount(_ db: Connection) throws -> Int { try all().fetchCount(db) }
}
