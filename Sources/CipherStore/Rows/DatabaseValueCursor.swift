/// The first column of each row, converted to `Value` one row at a time, in GRDB's spelling:
///
/// ```swift
/// let names = try String.fetchCursor(db, sql: "SELECT name FROM author ORDER BY name")
/// while let name = try names.next() { print(name) }
/// let titles = try Book.select(Column("title"), as: String.self).fetchCursor(db)
/// ```
///
/// A NULL throws ``CipherStoreError/valueConversion(column:reason:)`` unless `Value` is
/// optional (`String?`), as `fetchAll` does. Like ``RowCursor``, it keeps its statement busy
/// until it is exhausted or released: use it inside the block it was made in.
public final class DatabaseValueCursor<Value: DatabaseValueConvertible> {
    private let rows: RowCursor

    init(rows: RowCursor) {
        self.rows = rows
    }

    /// The next value, or `nil` when there are no more rows.
    /// - Throws: ``DatabaseError``, or ``CipherStoreError/valueConversion(column:reason:)``
    ///   when a value does not convert.
    public func next() throws -> Value? {
        guard let row = try rows.next() else { return nil }
        return try row.value(Value.self, at: 0)
    }

    /// Calls `body` for each remaining value.
    public func forEach(_ body: (Value) throws -> Void) throws {
        while let value = try next() { try body(value) }
    }
}

@available(*, unavailable)
extension DatabaseValueCursor: Sendable {}

extension Connection {
    /// A cursor over the first column of every row, converted to `Value`.
    /// - Throws: ``DatabaseError`` when the SQL does not compile.
    public func fetchCursor<Value: DatabaseValueConvertible>(_ type: Value.Type, sql: String, arguments: StatementArguments = .none) throws -> DatabaseValueCursor<Value> {
        DatabaseValueCursor(rows: try fetchCursor(sql: sql, arguments: arguments))
    }

    /// The same for value types that are also `Decodable` (`String`, `Int`, `Date`…): this
    /// form, the most specific, is the one Swift picks for them, instead of a cursor of records.
    public func fetchCursor<Value: DatabaseValueConvertible & Decodable>(_ type: Value.Type, sql: String,
                                                                          arguments: StatementArguments = .none) throws -> DatabaseValueCursor<Value> {
        DatabaseValueCursor(rows: try fetchCursor(sql: sql, arguments: arguments))
    }
}

extension DatabaseValueConvertible {
    /// A cursor over the first column of every row, as this type:
    /// `try String.fetchCursor(db, sql: "SELECT name FROM author")`.
    public static func fetchCursor(_ db: Connection, sql: String, arguments: StatementArguments = .none) throws -> DatabaseValueCursor<Self> {
        DatabaseValueCursor(rows: try db.fetchCursor(sql: sql, arguments: arguments))
    }

    /// A cursor over the values of a request, whatever its own row type:
    /// `String.fetchCursor(db, Book.select(Column("title")))`.
    public static func fetchCursor<T>(_ db: Connection, _ request: QueryInterfaceRequest<T>) throws -> DatabaseValueCursor<Self> {
        try request.asRequest(of: Self.self).fetchCursor(db)
    }
}

extension QueryInterfaceRequest where RowDecoder: DatabaseValueConvertible {
    /// A cursor over the first selected column of each matching row:
    /// `Book.select(Column("title"), as: String.self).fetchCursor(db)`.
    public func fetchCursor(_ db: Connection) throws -> DatabaseValueCursor<RowDecoder> {
        let sql = try makeSQL(db)
        return DatabaseValueCursor(rows: try db.fetchCursor(sql: sql.sql, arguments: sql.statementArguments))
    }
}
