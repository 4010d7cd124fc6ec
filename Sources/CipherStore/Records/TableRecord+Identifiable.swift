/// GRDB's spelling for records that are `Identifiable`: the primary key is the `id`.
///
/// ```swift
/// struct Player: Codable, FetchableRecord, TableRecord, Identifiable {
///     var id: Int64
///     var name: String
/// }
/// let player = try Player.find(db, id: 42)          // throws RecordError.recordNotFound
/// let maybe = try Player.fetchOne(db, id: 42)       // nil when there is none
/// let some = try Player.filter(ids: [1, 2, 3]).fetchAll(db)
/// ```
///
/// The column is ``TableRecord/primaryKeyColumn`` (`"id"` unless the type says otherwise),
/// where the schema makes it name one row (see there).
extension TableRecord where Self: FetchableRecord & Identifiable, ID: DatabaseValueConvertible {
    /// The record with this id, or `nil`.
    public static func fetchOne(_ db: Connection, id: ID) throws -> Self? {
        try fetchOne(db, key: id)
    }

    /// The record with this id.
    /// - Throws: ``RecordError/recordNotFound(databaseTableName:key:)`` when there is none.
    public static func find(_ db: Connection, id: ID) throws -> Self {
        try find(db, key: id)
    }

    /// A request for the record with this id.
    public static func filter(id: ID) -> QueryRequest<Self> {
        filter(key: id)
    }

    /// A request for the records with these ids (none for an empty collection).
    public static func filter(ids: some Collection<ID>) -> QueryRequest<Self> {
        filter(keys: ids)
    }

    /// Deletes the record with this id.
    /// - Returns: whether there was one.
    @discardableResult
    public static func deleteOne(_ db: Connection, id: ID) throws -> Bool {
        try deleteOne(db, key: id)
    }

    /// Whether a record has this id.
    public static func exists(_ db: Connection, id: ID) throws -> Bool {
        try exists(db, key: id)
    }
}
