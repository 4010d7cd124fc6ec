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
/// Callbacks run in this order, as in GRDB: `willSave`, then inside `aroundSave`: `willInsert`
/// or `willUpdate`, `aroundInsert` or `aroundUpdate` around the statement, `didInsert` or
/// `didUpdate`; then `didSave`. `willDelete`, `aroundDelete` and `didDelete(deleted:)` for a
/// delete. An error thrown by a `will` callback stops the write: nothing is written. An
/// `around` callback calls its closure once: one that returns without a successful call, or
/// calls it twice, gets a ``DatabaseError`` that says which (GRDB stops the program there).
/// Every callback has a default that does nothing (the `around` ones call the closure). A record that is only `TableRecord & Encodable` gets the
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
    /// Around an insert, after `willInsert` and before `didInsert`: call `insert` once (it
    /// runs the INSERT and returns what it wrote), with work of your own before and after.
    func aroundInsert(_ db: Connection, insert: () throws -> InsertionSuccess) throws
    /// Around an update, after `willUpdate` and before `didUpdate`: call `update` once.
    func aroundUpdate(_ db: Connection, columns: Set<String>, update: () throws -> PersistenceSuccess) throws
    /// Around an insert or an update (with their own callbacks), after `willSave` and before
    /// `didSave`: call `save` once.
    func aroundSave(_ db: Connection, save: () throws -> PersistenceSuccess) throws
    /// Around a delete, after `willDelete` and before `didDelete`: call `delete` once (it
    /// returns whether a row was deleted).
    func aroundDelete(_ db: Connection, delete: () throws -> Bool) throws
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
    public func aroundInsert(_ db: Connection, insert: () throws -> InsertionSuccess) throws { _ = try insert() }
    public func aroundUpdate(_ db: Connection, columns: Set<String>, update: () throws -> PersistenceSuccess) throws { _ = try update() }
    public func aroundSave(_ db: Connection, save: () throws -> PersistenceSuccess) throws { _ = try save() }
    public func aroundDelete(_ db: Connection, delete: () throws -> Bool) throws { _ = try delete() }
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
