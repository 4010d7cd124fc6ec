extension Connection {
    /// All rows of a query decoded as `Record`, columns matched to coding keys by name
    /// (case-insensitive).
    ///
    /// ```swift
    /// struct Note: Decodable { var id: Int64; var body: String }
    /// let notes = try db.fetchAll(Note.self, sql: "SELECT id, body FROM note")
    /// ```
    ///
    /// An optional property reads a missing column or NULL as `nil`. Integers must fit the
    /// property's type; text never converts to a number, nor a number to text.
    ///
    /// - Throws: ``DatabaseError``, or ``RecordDecodingError`` when a row does not fit `Record`
    ///   (the same error ``decode(_:from:)`` throws for that row).
    public func fetchAll<Record: Decodable>(_ type: Record.Type, sql: String, arguments: StatementArguments = .none) throws -> [Record] {
        let cursor = try fetchCursor(Record.self, sql: sql, arguments: arguments)
        var records: [Record] = []
        while let record = try cursor.next() { records.append(record) }
        return records
    }

    /// A cursor that decodes rows as `Record` one at a time.
    /// - Throws: ``DatabaseError``; its ``RecordCursor/next()`` also throws ``RecordDecodingError``.
    public func fetchCursor<Record: Decodable>(_ type: Record.Type, sql: String, arguments: StatementArguments = .none) throws -> RecordCursor<Record> {
        try RecordCursor(statement: cachedStatement(sql: sql), arguments: arguments)
    }

    /// The first row of a query decoded as `Record`, or `nil`.
    /// - Throws: ``DatabaseError``, or ``RecordDecodingError`` when the row does not fit `Record`.
    public func fetchOne<Record: Decodable>(_ type: Record.Type, sql: String, arguments: StatementArguments = .none) throws -> Record? {
        try fetchCursor(Record.self, sql: sql, arguments: arguments).next()
    }

    /// Decodes one fetched row as `Record`, by the same rules as ``fetchAll(_:sql:arguments:)``.
    ///
    /// ```swift
    /// for row in try db.fetchAll(sql: "SELECT id, body FROM note") {
    ///     let note = try db.decode(Note.self, from: row)
    /// }
    /// ```
    ///
    /// - Throws: ``RecordDecodingError`` when the row does not fit `Record`: the same error,
    ///   equal value, as fetching the record straight from SQL.
    public func decode<Record: Decodable>(_ type: Record.Type, from row: Row) throws -> Record {
        try RecordDecoder(source: .row(row)).decode(Record.self)
    }

    /// Inserts an `Encodable` record: one column per coding key, every value bound.
    ///
    /// ```swift
    /// struct NewNote: Encodable { var body: String }
    /// try db.insert(NewNote(body: "hi"), into: "note")
    /// let id = db.lastInsertedRowID
    /// ```
    public func insert(_ record: some Encodable, into table: String) throws {
        let columns = try RecordEncoder.columns(of: record)
        let names = columns.map(\.name)
        let sql: String
        if let cached = insertStatementSQL[table], cached.columns == names {
            sql = cached.sql
        } else {
            let list = names.map(Self.quoteIdentifier).joined(separator: ", ")
            let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
            sql = "INSERT INTO \(Self.quoteIdentifier(table)) (\(list)) VALUES (\(placeholders))"
            insertStatementSQL[table] = (names, sql)
        }
        try execute(sql: sql, arguments: .positional(columns.map(\.value)))
    }

    /// Updates the row of `table` whose `primaryKey` column equals the record's value for it.
    /// - Returns: whether a row was updated.
    @discardableResult
    public func update(_ record: some Encodable, in table: String, primaryKey: String = "id") throws -> Bool {
        let columns = try RecordEncoder.columns(of: record)
        guard let key = columns.first(where: { $0.name.lowercased() == primaryKey.lowercased() }) else {
            throw CipherStoreError.invalidArguments(reason: "the record has no \(primaryKey) property", sql: "UPDATE \(table)")
        }
        let others = columns.filter { $0.name.lowercased() != primaryKey.lowercased() }
        let assignments = others.map { "\(Self.quoteIdentifier($0.name)) = ?" }.joined(separator: ", ")
        try execute(sql: "UPDATE \(Self.quoteIdentifier(table)) SET \(assignments) WHERE \(Self.quoteIdentifier(key.name)) = ?",
                    arguments: .positional(others.map(\.value) + [key.value]))
        return changesCount > 0
    }
}
