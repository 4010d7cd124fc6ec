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
    @inlinable  // specialized in the caller: the loop then looks up no generic metadata per row
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

    /// Decodes one fetched row as `Record`, by the same rules as `fetchAll(_:sql:arguments:)`.
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
        let decoder = RecordDecoder(source: .row(row))
        defer { decoder.releaseContainers() }
        return try decoder.decode(Record.self)
    }
}
