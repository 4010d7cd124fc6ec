extension TableRecord where Self: Encodable {
    /// Inserts the record into its table. See `Connection.insert(_:into:)`.
    /// - Parameters:
    ///   - db: the connection.
    ///   - onConflict: `INSERT OR REPLACE`, `OR IGNORE`…; a plain INSERT by default.
    public func insert(_ db: Connection, onConflict: ConflictResolution? = nil) throws {
        if let record = self as? any MutablePersistableRecord { return try record.insertCopyWithCallbacks(db, onConflict: onConflict) }
        try db.insert(encoding: self, into: Self.databaseTableName, onConflict: onConflict)
    }

    /// Updates the record's row with every property. See `Connection.update(_:in:primaryKey:)`.
    /// - Throws: ``RecordError/rowNotFound(table:primaryKey:)`` when the row is gone.
    public func update(_ db: Connection, onConflict: ConflictResolution? = nil) throws {
        if let record = self as? any MutablePersistableRecord { return try record.updateWithCallbacks(db, onConflict: onConflict) }
        try db.update(columns: RecordEncoder.columns(of: self), in: Self.databaseTableName, primaryKey: Self.primaryKeyColumn,
                      recordType: Self.self, onConflict: onConflict)
    }

    /// Updates the record's row, or inserts it when no row has its key (or its key is nil).
    public func save(_ db: Connection, onConflict: ConflictResolution? = nil) throws {
        if let record = self as? any MutablePersistableRecord { return try record.saveCopyWithCallbacks(db, onConflict: onConflict) }
        do {
            try update(db, onConflict: onConflict)
        } catch RecordError.rowNotFound, RecordError.nilPrimaryKey {
            try insert(db, onConflict: onConflict)
        }
    }

    /// Updates only the columns whose values differ from `old`'s (the record as it was read).
    /// A ``MutablePersistableRecord`` runs its callbacks (see its `updateChanges(_:from:)`).
    /// - Returns: whether anything was written.
    /// - Throws: ``RecordError/rowNotFound(table:primaryKey:)`` when the row is gone.
    @discardableResult
    public func updateChanges(_ db: Connection, from old: Self, onConflict: ConflictResolution? = nil) throws -> Bool {
        if let record = self as? any MutablePersistableRecord { return try record.updateChangesWithCallbacks(db, from: old, onConflict: onConflict) }
        let changes = try RecordChanges(self, from: old, in: db)
        guard !changes.columns.isEmpty else { return false }
        try changes.write(db, onConflict: onConflict)
        return true
    }

    /// Changes the record with `modify`, then updates only the columns it changed, as GRDB's
    /// `updateChanges(_:modify:)`: `try player.updateChanges(db) { $0.score = 1000 }`. A
    /// ``MutablePersistableRecord`` runs its callbacks, as in `updateChanges(_:from:)`.
    ///
    /// The record keeps what `modify` changed even when the update throws (as in GRDB): then
    /// nothing was written, unless the error is a `did` callback's. An error thrown by `modify`
    /// comes out before anything is written. A changed primary key is refused
    /// (``RecordError/primaryKeyChanged(table:primaryKey:)``): the row is found by its key, and
    /// the new key would update another row, or none.
    /// - Returns: whether anything was written (`false` when `modify` changed no column).
    /// - Throws: ``RecordError/rowNotFound(table:primaryKey:)`` when the row is gone.
    @discardableResult
    public mutating func updateChanges(_ db: Connection, onConflict: ConflictResolution? = nil, modify: (inout Self) throws -> Void) throws -> Bool {
        let old = self
        try modify(&self)
        return try updateChanges(db, from: old, onConflict: onConflict)
    }

    /// Deletes the record's row.
    /// - Returns: whether there was one.
    @discardableResult
    public func delete(_ db: Connection) throws -> Bool {
        if let record = self as? any MutablePersistableRecord { return try record.deleteWithCallbacks(db) }
        do {
            try db.delete(self, from: Self.databaseTableName, primaryKey: Self.primaryKeyColumn)
            return true
        } catch RecordError.rowNotFound {
            return false
        }
    }

    /// Whether the record's row exists.
    public func exists(_ db: Connection) throws -> Bool {
        let key: [(name: String, value: DatabaseValue)]
        do {
            key = try db.recordKey(of: RecordEncoder.columns(of: self), table: Self.databaseTableName, primaryKey: Self.primaryKeyColumn, recordType: Self.self)
        } catch RecordError.missingPrimaryKey, RecordError.nilPrimaryKey {
            return false
        }
        return try db.rowExists(in: Self.databaseTableName, key: key)
    }
}

extension TableRecord where Self: RowIDRecord {
    /// Inserts the record and, when its `id` is nil, sets it to the new row's rowid.
    /// See `Connection.insert(_:into:)` for a ``RowIDRecord``.
    public mutating func insert(_ db: Connection, onConflict: ConflictResolution? = nil) throws {
        if var record = self as? any MutablePersistableRecord {
            try record.insertWithCallbacks(db, onConflict: onConflict)
            self = record as! Self
            return
        }
        try db.insert(encoding: self, into: Self.databaseTableName, onConflict: onConflict)
        // INSERT OR IGNORE that ignored leaves the id nil: the last rowid is another row's.
        guard db.changesCount > 0 else { return }
        try takeRowID(db.lastInsertedRowID, table: Self.databaseTableName)
    }

    /// Inserts the record when its `id` is nil (setting it), else updates its row, or
    /// inserts it when the row is gone.
    public mutating func save(_ db: Connection, onConflict: ConflictResolution? = nil) throws {
        if var record = self as? any MutablePersistableRecord {
            try record.saveWithCallbacks(db, onConflict: onConflict)
            self = record as! Self
            return
        }
        guard id != nil else { return try insert(db, onConflict: onConflict) }
        do {
            try update(db, onConflict: onConflict)
        } catch RecordError.rowNotFound {
            try insert(db, onConflict: onConflict)
        }
    }
}

extension DatabaseReader {
    /// Observes the records a request fetches: the current ones first, then fresh ones after
    /// each commit that changed the table. See ``observe(_:)``.
    public func observe<Record: FetchableRecord & TableRecord & Sendable>(_ request: QueryRequest<Record>) -> DatabaseObservation<[Record]> {
        observe { db in try request.fetchAll(db) }
    }
}
