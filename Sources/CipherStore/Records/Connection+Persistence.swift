extension Connection {
    /// Inserts an `Encodable` record: one column per coding key, every value bound.
    ///
    /// ```swift
    /// struct NewNote: Encodable { var body: String }
    /// try db.insert(NewNote(body: "hi"), into: "note")
    /// let id = db.lastInsertedRowID
    /// ```
    ///
    /// To have the record's `id` set from the new row, see `insert(&record, into:)`.
    /// - Throws: ``DatabaseError``; `EncodingError` for a value no column holds (an integer
    ///   above `Int64.max`).
    public func insert(_ record: some Encodable, into table: String) throws {
        try insert(encoding: record, into: table, onConflict: nil)
    }

    /// Encodes a record and inserts it, with `INSERT OR …` for a conflict resolution.
    ///
    /// A plain INSERT encodes with the connection's own encoder, which expects the columns of
    /// the table's last INSERT: while the record encodes those keys, its values are bound to
    /// that statement by position, with no list of columns built.
    /// - Returns: the encoded columns, when `named`; else an empty array.
    @discardableResult
    func insert(encoding record: some Encodable, into table: String, onConflict: ConflictResolution?, named: Bool = false) throws -> [(name: String, value: DatabaseValue)] {
        guard onConflict == nil, statementCache.capacity > 0, !recordEncoderIsBusy else {
            let columns = try RecordEncoder.columns(of: record)
            try insert(columns: columns, into: table, onConflict: onConflict)
            return columns
        }
        let encoder = recordEncoder ?? RecordEncoder(keepsContainers: true)
        recordEncoder = encoder
        recordEncoderIsBusy = true
        defer { recordEncoderIsBusy = false }
        let cached = insertStatements[table]
        encoder.expect(cached?.columns ?? [])
        try encoder.encode(record)
        if let cached, encoder.encodedExpectedKeys, !cached.statement.isBusy {
            if handle.hooks.recordedSQL != nil { handle.hooks.recordedSQL?.insert(cached.statement.sql) }
            try cached.statement.execute(orderedValues: encoder.values)
            return named ? encoder.columns : []
        }
        let columns = encoder.columns
        try insert(columns: columns, into: table, onConflict: nil)
        return columns
    }

    /// Inserts encoded columns, with `INSERT OR …` for a conflict resolution.
    func insert(columns: [(name: String, value: DatabaseValue)], into table: String, onConflict: ConflictResolution?) throws {
        let statement: Statement
        // The INSERT of the last record inserted into the table, reused while the columns are
        // the same: the usual loop of one record type prepares its statement once.
        // Kept only as long as the statement cache keeps statements (a capacity of 0 keeps none).
        if onConflict == nil, let cached = insertStatements[table], !cached.statement.isBusy,
           cached.columns.elementsEqual(columns, by: { $0 == $1.name }) {
            statement = cached.statement
            if handle.hooks.recordedSQL != nil { handle.hooks.recordedSQL?.insert(statement.sql) }
        } else {
            let names = columns.map(\.name)
            let list = names.map(Self.quoteIdentifier).joined(separator: ", ")
            let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
            let verb = onConflict.map { "INSERT OR \($0.rawValue) INTO " } ?? "INSERT INTO "
            statement = try cachedStatement(sql: verb + "\(Self.quoteIdentifier(table)) (\(list)) VALUES (\(placeholders))")
            if onConflict == nil && statementCache.capacity > 0 { insertStatements[table] = InsertStatement(columns: names, statement: statement) }
        }
        try statement.execute(columns: columns)
    }

    /// Inserts a record and, when its `id` is `nil`, sets it to the new row's rowid.
    ///
    /// ```swift
    /// var note = Note(id: nil, body: "hi")
    /// try db.insert(&note, into: "note")
    /// // note.id is the new row's id
    /// ```
    ///
    /// The `id` column must be the table's `INTEGER PRIMARY KEY` (the rowid): SQLite then gives
    /// a NULL id the next free value. A record whose `id` is set is inserted with it, unchanged.
    ///
    /// - Throws: ``DatabaseError`` (the record is unchanged then),
    ///   ``RecordError/rowIDOutOfRange(table:rowID:idType:)``, or `EncodingError`.
    public func insert<Record: RowIDRecord>(_ record: inout Record, into table: String) throws {
        try insert(record, into: table)
        try record.takeRowID(lastInsertedRowID, table: table)
    }

    /// Inserts a record whose key is not the rowid (a UUID, a name): the same as
    /// `insert(_:into:)`, for a call written with `&`. The record is not changed.
    public func insert<Record: Encodable>(_ record: inout Record, into table: String) throws {
        let value = record
        try insert(value, into: table)
    }

    /// Updates the row of `table` whose `primaryKey` column equals the record's value for it,
    /// with every other property of the record.
    ///
    /// ```swift
    /// note.body = "edited"
    /// try db.update(note, in: "note")
    /// ```
    ///
    /// - Parameters:
    ///   - record: the record, with its primary key set.
    ///   - table: the table.
    ///   - primaryKey: the primary key column, as the record's coding key spells it (case-insensitive).
    /// - Throws: ``RecordError/rowNotFound(table:primaryKey:)`` when no row has the key (nothing
    ///   changed), ``RecordError/missingPrimaryKey(table:primaryKey:recordType:)``,
    ///   ``RecordError/nilPrimaryKey(table:primaryKey:)``, ``DatabaseError``, `EncodingError`.
    public func update<Record: Encodable>(_ record: Record, in table: String, primaryKey: String = "id") throws {
        try update(columns: RecordEncoder.columns(of: record), in: table, primaryKey: primaryKey, recordType: Record.self, onConflict: nil)
    }

    /// Updates a row with encoded columns, with `UPDATE OR …` for a conflict resolution. An
    /// `UPDATE OR IGNORE` that ignored a conflict is no error when the row exists: it was left
    /// as it was, as asked.
    func update(columns: [(name: String, value: DatabaseValue)], in table: String, primaryKey: String,
                recordType: Any.Type, onConflict: ConflictResolution?) throws {
        let key = try recordKey(of: columns, table: table, primaryKey: primaryKey, recordType: recordType)
        try update(columns: columns, in: table, key: key, onConflict: onConflict)
    }

    /// Updates the row the key finds (``recordKey(of:table:primaryKey:recordType:)``) with the
    /// columns that are not the key's.
    func update(columns: [(name: String, value: DatabaseValue)], in table: String,
                key: [(name: String, value: DatabaseValue)], onConflict: ConflictResolution?) throws {
        let keyNames = Set(key.map { $0.name.lowercased() })
        let others = columns.filter { !keyNames.contains($0.name.lowercased()) }
        let quotedKey = Self.quoteIdentifier(key[0].name)
        // A record that is only its key still checks that its row exists.
        let assignments = others.isEmpty
            ? "\(quotedKey) = \(quotedKey)"
            : others.map { "\(Self.quoteIdentifier($0.name)) = ?" }.joined(separator: ", ")
        let verb = onConflict.map { "UPDATE OR \($0.rawValue) " } ?? "UPDATE "
        let before = totalChangesCount
        try execute(sql: verb + "\(Self.quoteIdentifier(table)) SET \(assignments) WHERE " + Self.keyCondition(key),
                    arguments: .positional(others.map(\.value) + key.map(\.value)))
        guard !wroteRows(since: before) else { return }
        // UPDATE OR IGNORE changes nothing when it ignores a conflict: the row is there.
        let exists = try onConflict == .ignore && rowExists(in: table, key: key)
        guard exists else { throw RecordError.rowNotFound(table: table, primaryKey: Self.keyDescription(key)) }
    }

    /// Deletes the row of `table` whose `primaryKey` column equals the record's value for it.
    ///
    /// ```swift
    /// try db.delete(note, from: "note")
    /// ```
    ///
    /// - Throws: ``RecordError/rowNotFound(table:primaryKey:)`` when no row has the key,
    ///   ``RecordError/missingPrimaryKey(table:primaryKey:recordType:)``,
    ///   ``RecordError/nilPrimaryKey(table:primaryKey:)``, ``DatabaseError``, `EncodingError`.
    public func delete<Record: Encodable>(_ record: Record, from table: String, primaryKey: String = "id") throws {
        let columns = try RecordEncoder.columns(of: record)
        let key = try recordKey(of: columns, table: table, primaryKey: primaryKey, recordType: Record.self)
        let before = totalChangesCount
        try execute(sql: "DELETE FROM \(Self.quoteIdentifier(table)) WHERE " + Self.keyCondition(key), arguments: .positional(key.map(\.value)))
        guard wroteRows(since: before) else { throw RecordError.rowNotFound(table: table, primaryKey: Self.keyDescription(key)) }
    }

    /// Deletes the row of `table` whose `primaryKey` column equals `key` (or, when that column
    /// can name several rows, whose one-column primary key does: see
    /// ``TableRecord/primaryKeyColumn``).
    ///
    /// ```swift
    /// try db.deleteOne(from: "note", key: 42)
    /// ```
    ///
    /// To delete a row that may already be gone, without an error, run
    /// `DELETE FROM … WHERE id = ?` with ``execute(sql:arguments:)`` and read ``changesCount``.
    ///
    /// - Throws: ``RecordError/rowNotFound(table:primaryKey:)`` when no row has the key,
    ///   ``RecordError/nilPrimaryKey(table:primaryKey:)`` for a NULL key,
    ///   ``RecordError/keyNamesSeveralRows(table:column:)``, ``DatabaseError``.
    public func deleteOne(from table: String, key: some DatabaseValueConvertible, primaryKey: String = "id") throws {
        let value = key.databaseValue
        guard !value.isNull else { throw RecordError.nilPrimaryKey(table: table, primaryKey: primaryKey) }
        let column = try singleKeyColumn(ofTable: table, preferred: primaryKey)
        let before = totalChangesCount
        try execute(sql: "DELETE FROM \(Self.quoteIdentifier(table)) WHERE \(Self.quoteIdentifier(column)) = ?",
                    arguments: .positional([value]))
        guard wroteRows(since: before) else { throw RecordError.rowNotFound(table: table, primaryKey: column) }
    }

    /// The columns and values that find the record's row, checked: the `primaryKey` column
    /// when it names one row, else the table's declared primary key (as GRDB reads a record's
    /// key from the schema: `code TEXT PRIMARY KEY`, a pivot table's `PRIMARY KEY (playerId,
    /// teamId)`), which the record must hold. See ``rowKeyColumns(ofTable:preferred:)``.
    func recordKey(of columns: [(name: String, value: DatabaseValue)], table: String,
                   primaryKey: String, recordType: Any.Type) throws -> [(name: String, value: DatabaseValue)] {
        func column(_ name: String) -> (name: String, value: DatabaseValue)? {
            columns.first { $0.name.lowercased() == name.lowercased() }
        }
        let keyColumns = try rowKeyColumns(ofTable: table, preferred: primaryKey)
        let key = keyColumns.compactMap(column)
        guard key.count == keyColumns.count else {
            // The record has its key column, which repeats, and lacks the primary key.
            if keyColumns != [primaryKey], column(primaryKey) != nil {
                throw RecordError.keyNamesSeveralRows(table: table, column: primaryKey)
            }
            throw RecordError.missingPrimaryKey(table: table, primaryKey: keyColumns.joined(separator: ", "), recordType: "\(recordType)")
        }
        guard !key.contains(where: { $0.value.isNull }) else { throw RecordError.nilPrimaryKey(table: table, primaryKey: Self.keyDescription(key)) }
        return key
    }

    /// Whether the UPDATE or DELETE just run wrote a row: its own count, or the connection's
    /// total since `before`, which also counts what a view's INSTEAD OF trigger wrote (SQLite
    /// counts no row of a view as changed). On a table, a statement that matched no row fires
    /// no row trigger, so the total moves only when it matched.
    func wroteRows(since before: Int) -> Bool {
        changesCount > 0 || totalChangesCount != before
    }

    /// `"a" = ? AND "b" = ?` for the key's columns.
    static func keyCondition(_ key: [(name: String, value: DatabaseValue)]) -> String {
        key.map { "\(quoteIdentifier($0.name)) = ?" }.joined(separator: " AND ")
    }

    /// The key's column names, for messages: `id`, or `playerId, teamId`.
    static func keyDescription(_ key: [(name: String, value: DatabaseValue)]) -> String {
        key.map(\.name).joined(separator: ", ")
    }

    /// Whether a row of `table` has the key's values.
    func rowExists(in table: String, key: [(name: String, value: DatabaseValue)]) throws -> Bool {
        try fetchScalar(Int.self, sql: "SELECT EXISTS (SELECT 1 FROM \(Self.quoteIdentifier(table)) WHERE " + Self.keyCondition(key) + ")",
                        arguments: .positional(key.map(\.value))) == 1
    }
}
