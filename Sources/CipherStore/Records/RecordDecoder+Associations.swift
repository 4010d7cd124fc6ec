/// Decoding the rows of a request with associations: a property whose key is an included
/// association decodes from that association's columns (a record, or `nil` for an optional
/// one that matched no row) or rows (an array); a record-typed property whose key is no column
/// decodes from the base table's columns (`var book: Book` in `struct BookInfo`), as in GRDB.
extension RecordDecoder {
    /// The value of `key` from the associations, or `nil` when the key is a plain column.
    func associated<T: Decodable>(_ type: T.Type, forKey key: some CodingKey, in scoped: ScopedRow) throws -> T? {
        if let scope = scoped.scope(key.stringValue) {
            guard !scope.isMissing else {
                throw error(.null(propertyType: "\(T.self)"), key: key)
            }
            return try RecordDecoder(scoped: scope).decode(T.self)
        }
        if let rows = scoped.prefetchedRows(key.stringValue) {
            return try T(from: PrefetchedRows(rows: rows, key: key))
        }
        if lookUp(key) == nil, !(T.self is any DatabaseValueConvertible.Type) {
            return try RecordDecoder(scoped: scoped).decode(T.self)
        }
        return nil
    }

    /// The rows of a to-many association, as an array (or set) of records.
    struct PrefetchedRows: Decoder {
        let rows: [ScopedRow]
        let key: any CodingKey
        var codingPath: [any CodingKey] { [key] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            throw RecordDecodingError(recordType: "\(NestedKey.self)", column: key.stringValue,
                                      problem: .unsupportedShape("it is a to-many association: decode it as an array of records"))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer { Elements(rows: rows, key: key) }

        func singleValueContainer() throws -> any SingleValueDecodingContainer {
            throw RecordDecodingError(recordType: "?", column: key.stringValue,
                                      problem: .unsupportedShape("it is a to-many association: decode it as an array of records"))
        }
    }

    struct Elements: UnkeyedDecodingContainer {
        let rows: [ScopedRow]
        let key: any CodingKey
        var currentIndex = 0
        var codingPath: [any CodingKey] { [key] }
        var count: Int? { rows.count }
        var isAtEnd: Bool { currentIndex >= rows.count }

        mutating func decodeNil() throws -> Bool { false }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(T.self, .init(codingPath: codingPath, debugDescription: "no more rows"))
            }
            defer { currentIndex += 1 }
            return try RecordDecoder(scoped: rows[currentIndex]).decode(T.self)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            throw RecordDecodingError(recordType: "?", column: key.stringValue, problem: .unsupportedShape("each row of a to-many association decodes as a record"))
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            throw RecordDecodingError(recordType: "?", column: key.stringValue, problem: .unsupportedShape("each row of a to-many association decodes as a record"))
        }

        mutating func superDecoder() throws -> any Decoder {
            throw RecordDecodingError(recordType: "?", column: key.stringValue, problem: .unsupportedShape("each row of a to-many association decodes as a record"))
        }
    }
}
