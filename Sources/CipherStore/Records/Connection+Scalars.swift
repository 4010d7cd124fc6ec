extension Connection {
    /// The first column of every row, converted to `Value`.
    ///
    /// ```swift
    /// let names = try db.fetchAll(String.self, sql: "SELECT name FROM author ORDER BY name")
    /// ```
    ///
    /// A value type such as `String`, `Int`, `Date` or `UUID` is read from the first column,
    /// not decoded as a record as a `Decodable` type would be.
    ///
    /// - Throws: ``DatabaseError``, or ``CipherStoreError/valueConversion(column:reason:)`` when
    ///   a value does not convert (a NULL included).
    public func fetchAll<Value: DatabaseValueConvertible>(_ type: Value.Type, sql: String, arguments: StatementArguments = .none) throws -> [Value] {
        try fetchAll(sql: sql, arguments: arguments).map { try $0.value(Value.self, at: 0) }
    }

    /// The same for value types that are also `Decodable`: this form, the most specific, is the
    /// one Swift picks for them, instead of decoding each row as a record.
    public func fetchAll<Value: DatabaseValueConvertible & Decodable>(_ type: Value.Type, sql: String,
                                                                       arguments: StatementArguments = .none) throws -> [Value] {
        try fetchAll(sql: sql, arguments: arguments).map { try $0.value(Value.self, at: 0) }
    }

    /// The first column of the first row, converted to `Value`; `nil` when there is no row or
    /// the value is NULL (as ``fetchScalar(_:sql:arguments:)``).
    ///
    /// ```swift
    /// let count = try db.fetchOne(Int.self, sql: "SELECT count(*) FROM note")
    /// ```
    ///
    /// - Throws: ``DatabaseError``, or ``CipherStoreError/valueConversion(column:reason:)``.
    public func fetchOne<Value: DatabaseValueConvertible>(_ type: Value.Type, sql: String, arguments: StatementArguments = .none) throws -> Value? {
        try fetchScalar(Value.self, sql: sql, arguments: arguments)
    }

    /// The same for value types that are also `Decodable` (see `fetchAll(_:sql:arguments:)`).
    public func fetchOne<Value: DatabaseValueConvertible & Decodable>(_ type: Value.Type, sql: String,
                                                                       arguments: StatementArguments = .none) throws -> Value? {
        try fetchScalar(Value.self, sql: sql, arguments: arguments)
    }
}

extension DatabaseValueConvertible {
    /// The first column of every row, as this type: `try String.fetchAll(db, sql: "SELECT name FROM author")`.
    /// - Throws: as ``Connection/fetchScalar(_:sql:arguments:)``, and for a NULL.
    public static func fetchAll(_ db: Connection, sql: String, arguments: StatementArguments = .none) throws -> [Self] {
        try db.fetchAll(sql: sql, arguments: arguments).map { try $0.value(Self.self, at: 0) }
    }

    /// The first column of the first row, as this type; `nil` for no row or NULL:
    /// `try Int.fetchOne(db, sql: "SELECT count(*) FROM note")`.
    /// - Throws: as ``Connection/fetchScalar(_:sql:arguments:)``.
    public static func fetchOne(_ db: Connection, sql: String, arguments: StatementArguments = .none) throws -> Self? {
        try db.fetchScalar(Self.self, sql: sql, arguments: arguments)
    }
}
