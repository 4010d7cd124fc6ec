/// One result row: its values and the names of its columns.
///
/// Rows are copied out of the statement, so they stay valid after the query and may cross
/// threads. Read a column by index or by name (case-insensitive), as a ``DatabaseValue`` or as
/// any ``DatabaseValueConvertible`` type:
///
/// ```swift
/// if let row = try db.fetchOne(sql: "SELECT Id, name, city FROM User WHERE name = ?", arguments: ["Lily"]) {
///     let id: Int64 = try row.value(at: 0)
///     let city: String? = try row.value(named: "city")
/// }
/// ```
public struct Row: Sendable, CustomStringConvertible {
    @usableFromInline let layout: RowLayout
    /// The values, in column order.
    public let values: [DatabaseValue]

    init(layout: RowLayout, values: [DatabaseValue]) {
        self.layout = layout
        self.values = values
    }

    /// Copies the current row of a statement.
    init(statement: Statement) {
        let count = statement.columnCount
        let values = [DatabaseValue](unsafeUninitializedCapacity: count) { buffer, initialized in
            for index in 0..<count { (buffer.baseAddress! + index).initialize(to: statement.databaseValue(at: index)) }
            initialized = count
        }
        self.init(layout: statement.rowLayout, values: values)
    }

    /// The column names, in order.
    public var columnNames: [String] { layout.columnNames }

    /// The number of columns.
    public var count: Int { values.count }

    /// The value at a column index. Traps when the index is out of range, like an array.
    public subscript(index: Int) -> DatabaseValue { values[index] }

    /// The value of the named column (case-insensitive), or `nil` when there is no such column.
    public subscript(name: String) -> DatabaseValue? {
        layout.index(of: name).map { values[$0] }
    }

    /// The value of the column (case-insensitive), or `nil` when there is no such column.
    public subscript(column: Column) -> DatabaseValue? { self[column.name] }

    /// Whether the row has a column with this name (case-insensitive).
    public func hasColumn(_ name: String) -> Bool { layout.index(of: name) != nil }

    /// The value at a column index, converted to `T`.
    ///
    /// - Throws: ``CipherStoreError/valueConversion(column:reason:)`` when the index is out of
    ///   range or the value does not convert (a NULL converts only to an `Optional`).
    @inlinable
    public func value<T: DatabaseValueConvertible>(_ type: T.Type = T.self, at index: Int) throws -> T {
        let index = try layout.checkedIndex(index)
        if let converted = T.fromDatabaseValue(values[index]) { return converted }
        // The column's name is looked up only for the error: a read touches no string.
        throw Self.conversionError(values[index], column: layout.columnNames[index], type: T.self)
    }

    /// The value of the named column (case-insensitive), converted to `T`.
    ///
    /// - Throws: ``CipherStoreError/valueConversion(column:reason:)`` when there is no such
    ///   column or the value does not convert.
    @inlinable
    public func value<T: DatabaseValueConvertible>(_ type: T.Type = T.self, named name: String) throws -> T {
        let index = try layout.checkedIndex(named: name)
        if let converted = T.fromDatabaseValue(values[index]) { return converted }
        throw Self.conversionError(values[index], column: name, type: T.self)
    }

    @usableFromInline
    static func conversionError(_ value: DatabaseValue, column: String, type: Any.Type) -> CipherStoreError {
        let reason = value.isNull
            ? "it is NULL; read it as \(type)? instead"
            : "\(value.storageClass.first.map { "aeiou".contains($0) } == true ? "an" : "a") \(value.storageClass) value does not convert to \(type)"
        return CipherStoreError.valueConversion(column: column, reason: reason)
    }

    public var description: String {
        "[" + zip(layout.columnNames, values).map { "\($0): \($1)" }.joined(separator: ", ") + "]"
    }
}
