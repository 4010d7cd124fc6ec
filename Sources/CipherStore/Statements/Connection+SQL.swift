/// The `literal:` forms of the connection's methods: SQL built with interpolation (see ``SQL``),
/// every interpolated value bound.
extension Connection {
    /// Runs one statement: `try db.execute(literal: "DELETE FROM note WHERE id = \(id)")`.
    /// - Throws: as ``execute(sql:arguments:)``.
    public func execute(literal: SQL) throws {
        try execute(sql: literal.sql, arguments: literal.statementArguments)
    }

    /// Every row of a query. - Throws: as ``fetchAll(sql:arguments:)``.
    public func fetchAll(literal: SQL) throws -> [Row] {
        try fetchAll(sql: literal.sql, arguments: literal.statementArguments)
    }

    /// The first row of a query, or `nil`. - Throws: as ``fetchOne(sql:arguments:)``.
    public func fetchOne(literal: SQL) throws -> Row? {
        try fetchOne(sql: literal.sql, arguments: literal.statementArguments)
    }

    /// The first column of the first row; `nil` for no row or NULL.
    /// - Throws: as ``fetchScalar(_:sql:arguments:)``.
    public func fetchScalar<T: DatabaseValueConvertible>(_ type: T.Type = T.self, literal: SQL) throws -> T? {
        try fetchScalar(type, sql: literal.sql, arguments: literal.statementArguments)
    }

    /// Every row decoded as `Record`. - Throws: as ``fetchAll(_:sql:arguments:)-(Record.Type,_,_)``.
    public func fetchAll<Record: Decodable>(_ type: Record.Type, literal: SQL) throws -> [Record] {
        try fetchAll(type, sql: literal.sql, arguments: literal.statementArguments)
    }

    /// The first row decoded as `Record`, or `nil`.
    public func fetchOne<Record: Decodable>(_ type: Record.Type, literal: SQL) throws -> Record? {
        try fetchOne(type, sql: literal.sql, arguments: literal.statementArguments)
    }

    /// The first column of every row, as `Value`.
    public func fetchAll<Value: DatabaseValueConvertible>(_ type: Value.Type, literal: SQL) throws -> [Value] {
        try fetchAll(type, sql: literal.sql, arguments: literal.statementArguments)
    }

    /// The same for value types that are also `Decodable`: read from the first column, not
    /// decoded as records.
    public func fetchAll<Value: DatabaseValueConvertible & Decodable>(_ type: Value.Type, literal: SQL) throws -> [Value] {
        try fetchAll(type, sql: literal.sql, arguments: literal.statementArguments)
    }

    /// The first column of the first row, as `Value`; `nil` for no row or NULL.
    public func fetchOne<Value: DatabaseValueConvertible>(_ type: Value.Type, literal: SQL) throws -> Value? {
        try fetchScalar(type, sql: literal.sql, arguments: literal.statementArguments)
    }

    /// The same for value types that are also `Decodable`.
    public func fetchOne<Value: DatabaseValueConvertible & Decodable>(_ type: Value.Type, literal: SQL) throws -> Value? {
        try fetchScalar(type, sql: literal.sql, arguments: literal.statementArguments)
    }
}

extension DatabaseValueConvertible {
    /// The first column of every row, as this type: `try String.fetchAll(db, literal: "SELECT name FROM author WHERE city = \(city)")`.
    public static func fetchAll(_ db: Connection, literal: SQL) throws -> [Self] {
        try fetchAll(db, sql: literal.sql, arguments: literal.statementArguments)
    }

    /// The first column of the first row, as this type; `nil` for no row or NULL.
    public static func fetchOne(_ db: Connection, literal: SQL) throws -> Self? {
        try fetchOne(db, sql: literal.sql, arguments: literal.statementArguments)
    }
}
