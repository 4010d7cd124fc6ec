/// Records by primary key, in GRDB's spelling: one key, several, or every record whose key is
/// in a collection.
///
/// ```swift
/// let request = Player.filter(keys: [1, 2, 3])
/// let players = try Player.fetchAll(db, keys: [1, 2, 3])     // those that exist, in no order
/// let player = try Player.find(db, key: 1)                    // throws when there is none
/// try Player.deleteAll(db, keys: [1, 2, 3])                   // how many were deleted
/// ```
///
/// The key is the one column ``TableRecord/primaryKeyColumn``. `fetchAll(_:keys:)` and
/// `deleteAll(_:keys:)` run one statement per 500 keys (SQLite 3.15 binds at most 999 values
/// per statement), inside the caller's transaction; an empty collection runs nothing.
extension TableRecord {
    /// A request for the record with this primary key.
    public static func filter(key: some DatabaseValueConvertible) -> QueryInterfaceRequest<Self> {
        filter(Column(primaryKeyColumn) == key)
    }

    /// A request for the records with these primary keys (none for an empty collection).
    public static func filter<Key: DatabaseValueConvertible>(keys: some Collection<Key>) -> QueryInterfaceRequest<Self> {
        filter(Column(primaryKeyColumn).in(keys))
    }

    /// Deletes the rows with these primary keys.
    /// - Returns: how many were deleted.
    @discardableResult
    public static func deleteAll<Key: DatabaseValueConvertible>(_ db: Connection, keys: some Collection<Key>) throws -> Int {
        try inChunks(Array(keys)) { try filter(keys: $0).deleteAll(db) }.reduce(0, +)
    }

    /// `body` of the keys, 500 at a time.
    static func inChunks<Key, Result>(_ keys: [Key], _ body: (ArraySlice<Key>) throws -> Result) rethrows -> [Result] {
        try stride(from: 0, to: keys.count, by: AssociationFetch.keysPerQuery).map {
            try body(keys[$0..<min($0 + AssociationFetch.keysPerQuery, keys.count)])
        }
    }
}

extension TableRecord where Self: FetchableRecord {
    /// The record with this primary key.
    /// - Throws: ``RecordError/recordNotFound(databaseTableName:key:)`` when there is none.
    public static func find(_ db: Connection, key: some DatabaseValueConvertible) throws -> Self {
        guard let record = try fetchOne(db, key: key) else {
            throw RecordError.recordNotFound(databaseTableName: databaseTableName, key: [primaryKeyColumn: key.databaseValue])
        }
        return record
    }

    /// The records with these primary keys, in no particular order; keys without a record are
    /// skipped.
    public static func fetchAll<Key: DatabaseValueConvertible>(_ db: Connection, keys: some Collection<Key>) throws -> [Self] {
        try inChunks(Array(keys)) { try filter(keys: $0).fetchAll(db) }.flatMap { $0 }
    }
}

extension TableRecord where Self: FetchableRecord & Hashable {
    /// The records with these primary keys, as a set.
    public static func fetchSet<Key: DatabaseValueConvertible>(_ db: Connection, keys: some Collection<Key>) throws -> Set<Self> {
        Set(try fetchAll(db, keys: keys))
    }
}

extension TableRecord where Self: Identifiable, ID: DatabaseValueConvertible {
    /// Deletes the records with these ids.
    /// - Returns: how many were deleted.
    @discardableResult
    public static func deleteAll(_ db: Connection, ids: some Collection<ID>) throws -> Int {
        try deleteAll(db, keys: ids)
    }
}

extension TableRecord where Self: FetchableRecord & Identifiable, ID: DatabaseValueConvertible {
    /// The records with these ids, in no particular order; ids without a record are skipped.
    public static func fetchAll(_ db: Connection, ids: some Collection<ID>) throws -> [Self] {
        try fetchAll(db, keys: ids)
    }

    /// A request for the ids of the records: `Player.selectID().fetchAll(db)`.
    public static func selectID() -> QueryInterfaceRequest<ID> {
        all().selectID()
    }
}

extension TableRecord where Self: FetchableRecord & Identifiable & Hashable, ID: DatabaseValueConvertible {
    /// The records with these ids, as a set.
    public static func fetchSet(_ db: Connection, ids: some Collection<ID>) throws -> Set<Self> {
        Set(try fetchAll(db, keys: ids))
    }
}

extension QueryInterfaceRequest where RowDecoder: TableRecord & Identifiable, RowDecoder.ID: DatabaseValueConvertible {
    /// The ids of the matching records: `Player.filter(Column("score") > 100).selectID().fetchAll(db)`.
    public func selectID() -> QueryInterfaceRequest<RowDecoder.ID> {
        select(Column(RowDecoder.primaryKeyColumn), as: RowDecoder.ID.self)
    }
}
