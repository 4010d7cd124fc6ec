/// A record that inserts, updates, saves and deletes itself, with persistence callbacks, in
/// GRDB's spelling:
///
/// ```swift
/// struct Player: Codable, FetchableRecord, MutablePersistableRecord {
///     static let databaseTableName = "player"
///     var id: Int64?
///     var name: String
///     var updatedAt: Date?
///
///     mutating func willSave(_ db: Database) throws { updatedAt = Date() }   // GRDB: non-mutating; here it may change the record
///     mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
/// }
/// var player = Player(id: nil, name: "Arthur")
/// try player.insert(db)          // player.id is set by didInsert
/// ```
///
/// Callbacks run in this order: `willSave`, then `willInsert` or `willUpdate`, the statement,
/// `didInsert` or `didUpdate`, then `didSave`; `willDelete` and `didDelete(deleted:)` around a
/// delete. An error thrown by a `will` callback stops the write: nothing is written. Every
/// callback has an empty default. A record that is only `TableRecord & Encodable` gets the
/// same methods without callbacks.
public protocol MutablePersistableRecord: EncodableRecord, TableRecord {
    /// Before an insert (also by `save`); may change the record, or throw to stop the insert.
    mutating func willInsert(_ db: Connection) throws
    /// After an insert, with the new row's rowid: the place to set an auto-incremented id.
    mutating func didInsert(_ inserted: InsertionSuccess)
    /// Before an update (also by `save`), with the columns it writes; throw to stop it.
    func willUpdate(_ db: Connection, columns: Set<String>) throws
    /// After an update.
    func didUpdate(_ updated: PersistenceSuccess)
    /// Before an insert or update; may change the record, or throw to stop the write.
    mutating func willSave(_ db: Connection) throws
    /// After an insert or update.
    func didSave(_ saved: PersistenceSuccess)
    /// Before a delete; throw to stop it.
    func willDelete(_ db: Connection) throws
    /// After a delete, with whether a row was deleted.
    func didDelete(deleted: Bool)
    /// How `insert`, `update` and `save` resolve a constraint conflict when the call gives no
    /// `onConflict:`; plain statements (`ABORT`) by default. With `.replace` for inserts,
    /// `save` inserts (`INSERT OR REPLACE`) without trying an update first, as in GRDB.
    static var persistenceConflictPolicy: PersistenceConflictPolicy { get }
}

/// A ``MutablePersistableRecord`` whose insert does not change it (its key is not the rowid,
/// or it does not keep the rowid): `insert` and `save` are non-mutating.
public protocol PersistableRecord: MutablePersistableRecord {}

extension MutablePersistableRecord {
    public mutating func willInsert(_ db: Connection) throws {}
    public mutating func didInsert(_ inserted: InsertionSuccess) {}
    public func willUpdate(_ db: Connection, columns: Set<String>) throws {}
    public func didUpdate(_ updated: PersistenceSuccess) {}
    public mutating func willSave(_ db: Connection) throws {}
    public func didSave(_ saved: PersistenceSuccess) {}
    public func willDelete(_ db: Connection) throws {}
    public func didDelete(deleted: Bool) {}
    public static var persistenceConflictPolicy: PersistenceConflictPolicy { PersistenceConflictPolicy() }
}

/// A record type's conflict resolutions for inserts and updates, in GRDB's spelling:
///
/// ```swift
/// static let persistenceConflictPolicy = PersistenceConflictPolicy(insert: .replace, update: .replace)
/// ```
public struct PersistenceConflictPolicy: Sendable {
    /// The resolution of an insert's conflict.
    public let conflictResolutionForInsert: ConflictResolution
    /// The resolution of an update's conflict.
    public let conflictResolutionForUpdate: ConflictResolution

    public init(insert: ConflictResolution = .abort, update: ConflictResolution = .abort) {
        conflictResolutionForInsert = insert
        conflictResolutionForUpdate = update
    }

    /// The clause for a statement: `nil` (a plain statement) for `.abort`, SQLite's default.
    static func clause(_ given: ConflictResolution?, _ policy: ConflictResolution) -> ConflictResolution? {
        let resolution = given ?? policy
        return resolution == .abort ? nil : resolution
    }
}

/// What an insert wrote: the new row's rowid, and the values of its columns.
public struct InsertionSuccess: Sendable {
    /// The rowid of the inserted row (`sqlite3_last_insert_rowid`).
    public let rowID: Int64
    /// The values inserted, by column name.
    public let persistenceContainer: [String: DatabaseValue]
}

/// What an update or a save wrote: the values of the record's columns.
public struct PersistenceSuccess: Sendable {
    /// The values written, by column name.
    public let persistenceContainer: [String: DatabaseValue]

    init(_ columns: [(name: String, value: DatabaseValue)]) {
        persistenceContainer = Dictionary(columns.map { ($0.name, $0.value) }) { first, _ in first }
    }

    init(_ inserted: InsertionSuccess) {
        persistenceContainer = inserted.persistenceContainer
    }
}
