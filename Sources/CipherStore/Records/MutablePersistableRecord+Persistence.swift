extension MutablePersistableRecord {
    /// Inserts the record, running `willSave`, `willInsert`, `didInsert` and `didSave` around it.
    /// - Parameters:
    ///   - db: the connection.
    ///   - onConflict: `INSERT OR REPLACE`, `OR IGNORE`…; a plain INSERT by default.
    /// - Throws: ``DatabaseError`` (nothing written), an error of a `will` callback (nothing
    ///   written), `EncodingError`.
    public mutating func insert(_ db: Connection, onConflict: ConflictResolution? = nil) throws {
        try insertWithCallbacks(db, onConflict: onConflict)
    }

    /// Updates the record's row with every column, running `willSave`, `willUpdate`,
    /// `didUpdate` and `didSave` around it. The record is not changed: what `willSave` changes
    /// is written, on a copy; call `save` to keep those changes in the record too.
    /// - Throws: ``RecordError/rowNotFound(table:primaryKey:)`` when the row is gone (nothing
    ///   written), ``DatabaseError``, an error of a `will` callback.
    public func update(_ db: Connection, onConflict: ConflictResolution? = nil) throws {
        try updateWithCallbacks(db, onConflict: onConflict)
    }

    /// Updates the record's row, or inserts it when its key is nil or its row is gone.
    public mutating func save(_ db: Connection, onConflict: ConflictResolution? = nil) throws {
        try performSave(db, onConflict: onConflict)
    }

    /// `willSave`, then an update, or an insert when the key is nil (a ``RowIDRecord`` without
    /// an id, or any record whose row key holds a nil: no update callback runs then) or the
    /// row is gone.
    mutating func performSave(_ db: Connection, onConflict: ConflictResolution?) throws {
        try willSave(db)
        try saving(db) { record in
            if let rowIDRecord = record as? any RowIDRecord, rowIDRecord.hasNilID {
                return try record.performInsert(db, onConflict: onConflict)
            }
            if onConflict == nil, Self.persistenceConflictPolicy.conflictResolutionForInsert == .replace {
                return try record.performInsert(db, onConflict: nil)
            }
            // A nil key has no row to update: insert without the update's callbacks, as GRDB does.
            if try record.hasNilKey(db) {
                return try record.performInsert(db, onConflict: onConflict)
            }
            do {
                return try record.performUpdate(db, onConflict: onConflict)
            } catch RecordError.rowNotFound, RecordError.nilPrimaryKey {
                return try record.performInsert(db, onConflict: onConflict)
            }
        }
    }

    /// Whether a value of the record's row key is nil: it was never inserted.
    func hasNilKey(_ db: Connection) throws -> Bool {
        do {
            _ = try db.recordKey(of: RecordEncoder.columns(of: self), table: Self.databaseTableName, primaryKey: Self.primaryKeyColumn, recordType: Self.self)
            return false
        } catch RecordError.nilPrimaryKey {
            return true
        }
    }

    /// Updates only the columns whose values differ from `old`'s (the record as it was read),
    /// running `willSave`, `willUpdate` with those columns, `didUpdate` and `didSave`. When
    /// nothing differs, nothing runs and nothing is written, as in GRDB. What `willSave`
    /// changes (an `updatedAt`) counts as a change and is written; the record itself is not
    /// changed (the callbacks run on a copy).
    /// - Returns: whether anything was written.
    /// - Throws: ``RecordError/rowNotFound(table:primaryKey:)`` when the row is gone (nothing
    ///   written), an error of a `will` callback (nothing written), ``DatabaseError``.
    /// - Parameters:
    ///   - db: the connection.
    ///   - old: the record as it was read.
    ///   - onConflict: `UPDATE OR …`; the type's ``persistenceConflictPolicy`` by default.
    @discardableResult
    public func updateChanges(_ db: Connection, from old: Self, onConflict: ConflictResolution? = nil) throws -> Bool {
        guard try !RecordChanges(self, from: old, in: db).columns.isEmpty else { return false }
        var copy = self
        try copy.willSave(db)
        let changes = try RecordChanges(copy, from: old, in: db)
        guard !changes.columns.isEmpty else { return false }
        try copy.saving(db) { record in
            try record.updating(db, columns: Set(changes.columns.map(\.name))) {
                try changes.write(db, onConflict: PersistenceConflictPolicy.clause(onConflict, Self.persistenceConflictPolicy.conflictResolutionForUpdate))
                return PersistenceSuccess(changes.all)
            }
        }
        return true
    }

    /// Deletes the record's row, running `willDelete` and `didDelete(deleted:)` around it.
    /// - Returns: whether there was one.
    @discardableResult
    public func delete(_ db: Connection) throws -> Bool {
        try willDelete(db)
        let deleted = try PersistenceCallbacks.around("aroundDelete", calling: "delete()", of: Self.self, { try aroundDelete(db, delete: $0) }) {
            do {
                try db.delete(self, from: Self.databaseTableName, primaryKey: Self.primaryKeyColumn)
                return true
            } catch RecordError.rowNotFound {
                return false
            }
        }
        didDelete(deleted: deleted)
        return deleted
    }

    /// Inserts the record, or updates the row it conflicts with (a row with its primary key or
    /// another unique value): `INSERT … ON CONFLICT DO UPDATE SET …`, every column but the
    /// primary key. Runs the insert callbacks; `didInsert` gets the row's rowid either way.
    /// - Throws: a ``DatabaseError`` naming the linked SQLite when it is older than 3.35
    ///   (UPSERT with RETURNING; SQLCipher 3.4.1 is SQLite 3.15.2): nothing is written, and
    ///   `save(_:)` works there. ``DatabaseError`` for other failures.
    public mutating func upsert(_ db: Connection) throws {
        try performUpsert(db)
    }

    mutating func performUpsert(_ db: Connection) throws {
        try SQLiteFeature.returning.require("upsert")
        try willSave(db)
        try saving(db) { record in
            try record.inserting(db) { record in
                let columns = try RecordEncoder.columns(of: record)
                let rowID = try db.fetchScalar(Int64.self, sql: try record.upsertSQL(db, columns) + " RETURNING rowid", arguments: .positional(columns.map(\.value))) ?? db.lastInsertedRowID
                return InsertionSuccess(rowID: rowID, persistenceContainer: PersistenceSuccess(columns).persistenceContainer)
            }
        }
    }

    /// `INSERT … ON CONFLICT DO UPDATE SET` every column but the primary key.
    func upsertSQL(_ db: Connection, _ columns: [(name: String, value: DatabaseValue)]) throws -> String {
        let primaryKey = Set(try db.primaryKeyColumns(ofTable: Self.databaseTableName).map { $0.lowercased() })
        let names = columns.map { Connection.quoteIdentifier($0.name) }
        let updates = columns.filter { !primaryKey.contains($0.name.lowercased()) }.map { Connection.quoteIdentifier($0.name) }
        let onConflict = updates.isEmpty ? "DO NOTHING" : "DO UPDATE SET " + updates.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        return "INSERT INTO \(Connection.quoteIdentifier(Self.databaseTableName)) (\(names.joined(separator: ", "))) VALUES ("
            + Array(repeating: "?", count: names.count).joined(separator: ", ") + ") ON CONFLICT " + onConflict
    }

    /// `willInsert`, `aroundInsert` around the INSERT, `didInsert`; `nil` when an
    /// `INSERT OR IGNORE` ignored the row.
    mutating func performInsert(_ db: Connection, onConflict: ConflictResolution?) throws -> PersistenceSuccess? {
        try inserting(db) { record in
            let columns = try db.insert(encoding: record, into: Self.databaseTableName,
                                        onConflict: PersistenceConflictPolicy.clause(onConflict, Self.persistenceConflictPolicy.conflictResolutionForInsert), named: true)
            // INSERT OR IGNORE that ignored: no row of this record's, no rowid to tell.
            guard db.changesCount > 0 else { return nil }
            return InsertionSuccess(rowID: db.lastInsertedRowID, persistenceContainer: PersistenceSuccess(columns).persistenceContainer)
        }
    }

    /// `willUpdate`, `aroundUpdate` around the UPDATE of every column, `didUpdate`.
    func performUpdate(_ db: Connection, onConflict: ConflictResolution?) throws -> PersistenceSuccess {
        let columns = try RecordEncoder.columns(of: self)
        return try updating(db, columns: Set(columns.map(\.name))) {
            try db.update(columns: columns, in: Self.databaseTableName, primaryKey: Self.primaryKeyColumn, recordType: Self.self,
                          onConflict: PersistenceConflictPolicy.clause(onConflict, Self.persistenceConflictPolicy.conflictResolutionForUpdate))
            return PersistenceSuccess(columns)
        }
    }

    /// `aroundSave` around `write` (an insert or an update, with their own callbacks), then
    /// `didSave` when a row was written. `willSave` has run: the caller may need its changes first.
    mutating func saving(_ db: Connection, _ write: (inout Self) throws -> PersistenceSuccess?) throws {
        // The callback runs on a copy: the closure changes the record (its id, didInsert).
        let callbacks = self
        var saved: PersistenceSuccess?
        _ = try PersistenceCallbacks.around("aroundSave", calling: "save()", of: Self.self, { try callbacks.aroundSave(db, save: $0) }) {
            saved = try write(&self)
            return saved ?? PersistenceSuccess([])
        }
        if let saved { didSave(saved) }
    }

    /// `willInsert`, `aroundInsert` around `write`, then, when a row was inserted, the rowid
    /// of a ``RowIDRecord`` set (also when the caller's code is generic over
    /// `MutablePersistableRecord` and does not know it is one) and `didInsert`.
    mutating func inserting(_ db: Connection, _ write: (Self) throws -> InsertionSuccess?) throws -> PersistenceSuccess? {
        try willInsert(db)
        let record = self
        var inserted: InsertionSuccess?
        _ = try PersistenceCallbacks.around("aroundInsert", calling: "insert()", of: Self.self, { try record.aroundInsert(db, insert: $0) }) {
            inserted = try write(record)
            // An ignored insert: the closure must still return a value; nothing follows it.
            return inserted ?? InsertionSuccess(rowID: 0, persistenceContainer: [:])
        }
        guard let inserted else { return nil }
        if var rowIDRecord = self as? any RowIDRecord {
            try rowIDRecord.takeRowID(inserted.rowID, table: Self.databaseTableName)
            self = rowIDRecord as! Self
        }
        didInsert(inserted)
        return PersistenceSuccess(inserted)
    }

    /// `willUpdate`, `aroundUpdate` around `write`, `didUpdate`.
    func updating(_ db: Connection, columns: Set<String>, _ write: () throws -> PersistenceSuccess) throws -> PersistenceSuccess {
        try willUpdate(db, columns: columns)
        let updated = try PersistenceCallbacks.around("aroundUpdate", calling: "update()", of: Self.self, { try aroundUpdate(db, columns: columns, update: $0) }, write)
        didUpdate(updated)
        return updated
    }
}

extension MutablePersistableRecord {
    /// Inserts the record and returns the row as stored (defaults and triggers applied),
    /// decoded as `type`: `INSERT … RETURNING *`. Runs the insert callbacks on the record.
    /// - Throws: a ``DatabaseError`` naming the linked SQLite when it is older than 3.35
    ///   (nothing is written), or the errors of `insert(_:onConflict:)`.
    public mutating func insertAndFetch<T: FetchableRecord>(_ db: Connection, onConflict: ConflictResolution? = nil, as type: T.Type) throws -> T {
        try performInsertAndFetch(db, onConflict: onConflict, as: T.self)
    }

    /// Upserts the record (see `upsert(_:)`) and returns the row as stored, decoded as `type`.
    public mutating func upsertAndFetch<T: FetchableRecord>(_ db: Connection, as type: T.Type) throws -> T {
        try performUpsertAndFetch(db, as: T.self)
    }

    /// `insertAndFetch`, under a name of its own: a ``PersistableRecord``'s non-mutating
    /// forms, more specific, would otherwise call themselves.
    mutating func performInsertAndFetch<T: FetchableRecord>(_ db: Connection, onConflict: ConflictResolution?, as type: T.Type) throws -> T {
        try SQLiteFeature.returning.require("insertAndFetch")
        let verb = PersistenceConflictPolicy.clause(onConflict, Self.persistenceConflictPolicy.conflictResolutionForInsert)
            .map { "INSERT OR \($0.rawValue) INTO " } ?? "INSERT INTO "
        return try fetchReturned(db, as: T.self) { _, columns in
            verb + Connection.quoteIdentifier(Self.databaseTableName) + " (" + columns.map { Connection.quoteIdentifier($0.name) }.joined(separator: ", ")
                + ") VALUES (" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ") RETURNING *, rowid"
        }
    }

    /// `upsertAndFetch`, under a name of its own (see `performInsertAndFetch`).
    mutating func performUpsertAndFetch<T: FetchableRecord>(_ db: Connection, as type: T.Type) throws -> T {
        try SQLiteFeature.returning.require("upsertAndFetch")
        return try fetchReturned(db, as: T.self) { record, columns in try record.upsertSQL(db, columns) + " RETURNING *, rowid" }
    }

    /// The save and insert callbacks around the statement `sql` makes for the record's
    /// columns, which returns the stored row then its rowid; the row decoded as `type`.
    private mutating func fetchReturned<T: Decodable>(_ db: Connection, as type: T.Type,
                                                      sql: (Self, [(name: String, value: DatabaseValue)]) throws -> String) throws -> T {
        try willSave(db)
        var stored: T?
        try saving(db) { record in
            try record.inserting(db) { record in
                let columns = try RecordEncoder.columns(of: record)
                let statement = try sql(record, columns)
                guard let row = try db.fetchOne(sql: statement, arguments: .positional(columns.map(\.value))) else {
                    throw DatabaseError(resultCode: .SQLITE_ERROR, message: "the INSERT into \(Self.databaseTableName) returned no row (a conflict it ignored); nothing was written", sql: statement)
                }
                stored = try db.decode(T.self, from: row)
                return InsertionSuccess(rowID: try row.value(at: row.count - 1), persistenceContainer: PersistenceSuccess(columns).persistenceContainer)
            }
        }
        guard let stored else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "aroundInsert or aroundSave of \(Self.self) returned without the row the INSERT stored; call insert() and save() once and return their result")
        }
        return stored
    }
}

extension MutablePersistableRecord where Self: FetchableRecord {
    /// Inserts the record and returns the row as stored (defaults and triggers applied):
    /// `INSERT … RETURNING *`. Runs the insert callbacks on the record.
    /// - Throws: a ``DatabaseError`` naming the linked SQLite when it is older than 3.35
    ///   (nothing is written), or the errors of `insert(_:onConflict:)`.
    public mutating func insertAndFetch(_ db: Connection, onConflict: ConflictResolution? = nil) throws -> Self {
        try performInsertAndFetch(db, onConflict: onConflict, as: Self.self)
    }

    /// Upserts the record (see `upsert(_:)`) and returns the row as stored.
    public mutating func upsertAndFetch(_ db: Connection) throws -> Self {
        try performUpsertAndFetch(db, as: Self.self)
    }
}

extension PersistableRecord {
    /// Inserts the record and returns the row as stored, decoded as `type` (see
    /// `MutablePersistableRecord.insertAndFetch(_:onConflict:as:)`); the callbacks run on a copy.
    public func insertAndFetch<T: FetchableRecord>(_ db: Connection, onConflict: ConflictResolution? = nil, as type: T.Type) throws -> T {
        var copy = self
        return try copy.performInsertAndFetch(db, onConflict: onConflict, as: T.self)
    }

    /// Upserts the record and returns the row as stored, decoded as `type`; the callbacks run on a copy.
    public func upsertAndFetch<T: FetchableRecord>(_ db: Connection, as type: T.Type) throws -> T {
        var copy = self
        return try copy.performUpsertAndFetch(db, as: T.self)
    }
}

extension PersistableRecord where Self: FetchableRecord {
    /// Inserts the record and returns the row as stored; the callbacks run on a copy.
    public func insertAndFetch(_ db: Connection, onConflict: ConflictResolution? = nil) throws -> Self {
        var copy = self
        return try copy.performInsertAndFetch(db, onConflict: onConflict, as: Self.self)
    }

    /// Upserts the record and returns the row as stored; the callbacks run on a copy.
    public func upsertAndFetch(_ db: Connection) throws -> Self {
        var copy = self
        return try copy.performUpsertAndFetch(db, as: Self.self)
    }
}

extension PersistableRecord {
    /// Inserts the record (see `MutablePersistableRecord.insert(_:onConflict:)`); the
    /// callbacks run on a copy, since the record is not changed.
    public func insert(_ db: Connection, onConflict: ConflictResolution? = nil) throws {
        try insertCopyWithCallbacks(db, onConflict: onConflict)
    }

    /// Updates the record's row, or inserts it (see `MutablePersistableRecord.save(_:onConflict:)`).
    public func save(_ db: Connection, onConflict: ConflictResolution? = nil) throws {
        var copy = self
        try copy.performSave(db, onConflict: onConflict)
    }

    /// Upserts the record (see `MutablePersistableRecord.upsert(_:)`).
    public func upsert(_ db: Connection) throws {
        var copy = self
        try copy.performUpsert(db)
    }
}

// The same as the unconstrained methods, which set the id too: declared so that a type that is
// both finds one `insert` and one `save` (those of `TableRecord where Self: RowIDRecord` are as
// specific as the unconstrained ones).
extension MutablePersistableRecord where Self: RowIDRecord {
    /// Inserts the record; when its `id` is nil, sets it to the new rowid before `didInsert`.
    public mutating func insert(_ db: Connection, onConflict: ConflictResolution? = nil) throws {
        try insertWithCallbacks(db, onConflict: onConflict)
    }

    /// Inserts the record when its `id` is nil (setting it), else updates its row, or inserts
    /// it when the row is gone. `willSave` runs once.
    public mutating func save(_ db: Connection, onConflict: ConflictResolution? = nil) throws {
        try performSave(db, onConflict: onConflict)
    }
}

extension PersistableRecord where Self: RowIDRecord {
    /// Inserts the record; when its `id` is nil, sets it to the new rowid (a ``RowIDRecord``
    /// changes on insert even when it is a ``PersistableRecord``).
    public mutating func insert(_ db: Connection, onConflict: ConflictResolution? = nil) throws {
        try insertWithCallbacks(db, onConflict: onConflict)
    }

    /// Inserts the record when its `id` is nil (setting it), else updates its row, or inserts
    /// it when the row is gone.
    public mutating func save(_ db: Connection, onConflict: ConflictResolution? = nil) throws {
        try performSave(db, onConflict: onConflict)
    }
}

/// The ``TableRecord`` methods of an `Encodable` record call these when the record turns out to
/// be a ``MutablePersistableRecord``: a caller generic over `TableRecord & Encodable` (or
/// ``RowIDRecord``) runs the record's callbacks, as a caller that knows its type does.
extension MutablePersistableRecord {
    func insertCopyWithCallbacks(_ db: Connection, onConflict: ConflictResolution?) throws {
        var copy = self
        try copy.insertWithCallbacks(db, onConflict: onConflict)
    }

    mutating func insertWithCallbacks(_ db: Connection, onConflict: ConflictResolution?) throws {
        try willSave(db)
        try saving(db) { try $0.performInsert(db, onConflict: onConflict) }
    }

    /// The update's callbacks run on a copy: the record is not changed by an update.
    func updateWithCallbacks(_ db: Connection, onConflict: ConflictResolution?) throws {
        var copy = self
        try copy.willSave(db)
        try copy.saving(db) { try $0.performUpdate(db, onConflict: onConflict) }
    }

    func saveCopyWithCallbacks(_ db: Connection, onConflict: ConflictResolution?) throws {
        var copy = self
        try copy.performSave(db, onConflict: onConflict)
    }

    mutating func saveWithCallbacks(_ db: Connection, onConflict: ConflictResolution?) throws {
        try performSave(db, onConflict: onConflict)
    }

    /// `old` is the record as it was, seen by a caller that does not know its type.
    /// - Throws: ``RecordError/differentRecordTypes(table:record:old:)`` when `old` is not of
    ///   this record's type (a superclass instance): its columns may not be this one's.
    func updateChangesWithCallbacks(_ db: Connection, from old: Any, onConflict: ConflictResolution?) throws -> Bool {
        guard let old = old as? Self else {
            throw RecordError.differentRecordTypes(table: Self.databaseTableName, record: "\(Self.self)", old: "\(type(of: old))")
        }
        return try updateChanges(db, from: old, onConflict: onConflict)
    }

    func deleteWithCallbacks(_ db: Connection) throws -> Bool {
        try delete(db)
    }
}
