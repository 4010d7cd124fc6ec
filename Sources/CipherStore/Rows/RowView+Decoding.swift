/// GRDB's spelling of a row's reads, for records that write their own `init(row:)`
/// (``RowDecodableRecord``): values by index or column name, and the records of the
/// associations a request includes, by key.
extension RowView {
    /// The value at a column index, converted to `Value` (``value(_:at:)``).
    @inlinable
    public func decode<Value: DatabaseValueConvertible>(_ type: Value.Type = Value.self, atIndex index: Int) throws -> Value {
        try value(Value.self, at: index)
    }

    /// The value of the named column (case-insensitive), converted to `Value`. A column the
    /// row does not have reads as NULL does for a type that accepts NULL (`nil` for an
    /// optional, ``DatabaseValue/null``), as in GRDB, so a misspelled name reads as NULL there;
    /// for any other type it throws, naming the row's columns.
    @inlinable @inline(__always)
    public func decode<Value: DatabaseValueConvertible>(_ type: Value.Type = Value.self, forColumn name: String) throws -> Value {
        if let index = layout.index(of: name), let stored = storedValue(Value.self, at: base + index) { return stored }
        return try convertedValue(Value.self, forColumn: name)
    }

    /// ``decode(_:forColumn:)`` for what ``storedValue(_:at:)`` does not read, out of line.
    @usableFromInline
    func convertedValue<Value: DatabaseValueConvertible>(_ type: Value.Type, forColumn name: String) throws -> Value {
        guard let index = layout.index(of: name) else {
            if let missing = Value.fromDatabaseValue(.null) { return missing }
            throw CipherStoreError.valueConversion(column: name, reason: "no such column; the row has \(layout.columnNames.joined(separator: ", "))")
        }
        let value = source.databaseValue(at: base + index)
        if let converted = Value.fromDatabaseValue(value) { return converted }
        throw Row.conversionError(value, column: name, type: Value.self)
    }

    /// The record of a to-one association the request includes under `key`
    /// (`including(required: Book.author)`: `"author"`), found among this row's scopes and
    /// then theirs.
    /// - Throws: ``RecordDecodingError`` when the row has no such scope, or when an optional
    ///   association matched no row (read it with ``decodeIfPresent(_:forKey:)``).
    public func decode<Record: RowDecodableRecord>(_ type: Record.Type = Record.self, forKey key: String) throws -> Record {
        if let kept = keptScopes?.view(forKey: key) {
            guard !kept.view.isMissing else { throw Self.missing(Record.self, forKey: key) }
            return try Record(row: kept.view)
        }
        let scope = try self.scope(forKey: key, as: Record.self)
        guard !scope.isMissing else { throw Self.missing(Record.self, forKey: key) }
        return try Record(row: scope)
    }

    /// The error of a record read from an optional association that matched no row.
    private static func missing<Record>(_ type: Record.Type, forKey key: String) -> RecordDecodingError {
        RecordDecodingError(recordType: "\(Record.self)", column: key, problem: .null(propertyType: "\(Record.self)"))
    }

    /// The record of an association the request includes under `key`, or `nil` when an
    /// optional association (`including(optional:)`) matched no row.
    /// - Throws: ``RecordDecodingError`` when the row has no such scope.
    public func decodeIfPresent<Record: RowDecodableRecord>(_ type: Record.Type = Record.self, forKey key: String) throws -> Record? {
        if let kept = keptScopes?.view(forKey: key) { return kept.view.isMissing ? nil : try Record(row: kept.view) }
        let scope = try self.scope(forKey: key, as: Record.self)
        return scope.isMissing ? nil : try Record(row: scope)
    }

    /// The records of a to-many association the request includes under `key`
    /// (`including(all: Author.books)`: `"books"`), in the association's order.
    /// - Throws: ``RecordDecodingError`` when the request does not include it.
    public func decode<Record: RowDecodableRecord>(_ type: [Record].Type, forKey key: String) throws -> [Record] {
        guard let rows = scoped?.prefetchedRows(key) else {
            throw RecordDecodingError(recordType: "[\(Record.self)]", column: key,
                                      problem: .unsupportedShape("the request includes no to-many association \(key) (including(all:)); \(scopesDescription)"))
        }
        return try rows.map { try Record(row: RowView(scoped: $0)) }
    }

    /// An optional association's scope that matched no row: its columns are all NULL.
    private var isMissing: Bool { plan?.isMissing(in: source) ?? false }

    /// The view of the scope of `key`: a child of this row's scope, else a child of a child
    /// (depth first).
    private func scope<Record>(forKey key: String, as type: Record.Type) throws -> RowView {
        if let plan {
            // The usual key is spelled as the association's, lowercased, and a scope with no
            // to-many rows under its to-one scopes has none to hand down: its child is the
            // child's plan on the same columns, made without a `ScopedRow`.
            if prefetchedRows?.nested.isEmpty ?? true, let index = plan.children.firstIndex(where: { $0.key == key }) {
                return RowView(source: source, plan: plan.children[index].plan, prefetchedRows: nil)
            }
            if let scoped, let path = plan.path(to: key) { return RowView(scoped: scoped.scope(at: path)) }
        }
        throw RecordDecodingError(recordType: "\(Record.self)", column: key,
                                  problem: .unsupportedShape("the request includes no to-one association \(key) (including(required:) or including(optional:)); \(scopesDescription)"))
    }

    /// The association keys this row has, for errors.
    private var scopesDescription: String {
        guard let scoped else { return "the row has no associations" }
        let keys = scoped.plan.children.map(\.key) + scoped.prefetched.keys.sorted()
        return keys.isEmpty ? "the row has no associations" : "the row has " + keys.joined(separator: ", ")
    }
}
