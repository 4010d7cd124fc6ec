extension TableRecord where Self: Encodable {
    /// Inserts the record into its table. See `Connection.insert(_:into:)`.
    /// - Parameters:
    ///   - db: the connection.
    ///   - onConflict: `INSERT OR REPLACE`, `OR IGNORE`…; a plain INSERT by default.
    public func insert(_ db: Connection, onConflict: ConflictResolution? = nil) throws {
        try db.insert(encoding: self, into: Self.databaseTableName, onConflict: onConflict)
    }

    /// Updates the record's row with every property. See `Connection.update(_:in:primaryKey:)`.
    /// - Throws: ``RecordError/rowNotFound(table:primaryKey:)`` when the row is gone.
    public func update(_ db: Connection, onConflict: ConflictResolution? = nil) throws {
        try db.update(columns: RecordEncoder.columns(of: self), in: Self.databaseTableName, primaryKey: Self.primaryKeyColumn,
                      recordType: Self.self, onConflict: onConflict)
    }

    /// Updates the record's row, or inserts it when no row has its key (or its key is nil).
    public func save(_ db: Connection, onConflict: ConflictResolution? = nil) throws {
        do {
            try update(db, onConflict: onConflict)
        } catch RecordError.rowNotFound, RecordError.nilPrimaryKey {
            try insert(db, onConflict: onConflict)
        }
    }

    /// Updates only the columns whose values differ from `old`'s (the record as it was read).
    /// - Returns: whether anything was written.
    /// - Throws: ``RecordError/rowNotFound(table:primaryKey:)`` when the row is gone.
    @discardableResult
    public func updateChanges(_ db: Connection, from old: Self) throws -> Bool {
        let columns = try RecordEncoder.columns(of: self)
        let previous = Dictionary(try RecordEncoder.columns(of: old).map { ($0.name, $0.value) }) { first, _ in first }
        let key = Self.primaryKeyColumn.lowercased()
        guard let keyColumn = columns.first(where: { $0.name.lowercased() == key }) else {
            throw RecordError.missingPrimaryKey(table: Self.databaseTableName, primaryKey: Self.primaryKeyColumn, recordType: "\(Self.self)")
        }
        guard !keyColumn.value.isNull else { throw RecordError.nilPrimaryKey(table: Self.databaseTableName, primaryKey: keyColumn.name) }
        let changed = columns.filter { $0.name.lowercased() != key && previous[$0.name] != $0.value }
        guard !changed.isEmpty else { return false }
        let assignments = changed.map { "\(Connection.quoteIdentifier($0.name)) = ?" }.joined(separator: ", ")
        try db.execute(sql: "UPDATE \(Connection.quoteIdentifier(Self.databaseTableName)) SET \(assignments) WHERE \(Connection.quoteIdentifier(keyColumn.name)) = ?",
                       arguments: .positional(changed.map(\.value) + [keyColumn.value]))
        guard db.changesCount > 0 else { throw RecordError.rowNotFound(table: Self.databaseTableName, primaryKey: keyColumn.name) }
        return true
    }

    /// Deletes the record's row.
    /// - Returns: whether there was one.
    @discardableResult
    public func delete(_ db: Connection) throws -> Bool {
        do {
            try db.delete(self, from: Self.databaseTableName, primaryKey: Self.primaryKeyColumn)
            return true
        } catch RecordError.rowNotFound {
            return false
        }
    }

    /// Whether the record's row exists.
    public func exists(_ db: Connection) throws -> Bool {
        let key = Self.primaryKeyColumn.lowercased()
        guard let value = try RecordEncoder.columns(of: self).first(where: { $0.name.lowercased() == key })?.value, !value.isNull else {
            return false
        }
        return try Self.exists(db, key: value)
    }
}

extension TableRecord where Self: RowIDRecord {
    /// Inserts the record and, when its `id` is nil, sets it to the new row's rowid.
    /// See `Connection.insert(_:into:)` for a ``RowIDRecord``.
    public mutating func insert(_ db: Connection, onConflict: ConflictResolution? = nil) throws {
        try db.insert(encoding: self, into: Self.databaseTableName, onConflict: onConflict)
        // INSERT OR IGNORE that ignored leaves the id nil: the last rowid is another row's.
        guard db.changesCount > 0 else { return }
        try takeRowID(db.lastInsertedRowID, table: Self.databaseTableName)
    }

    /// Inserts the record when its `id` is nil (setting it), else updates its row, or
    /// inserts it when the row is gone.
    public mutating func save(_ db: Connection, onConflict: ConflictResolution? = nil) throws {
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
