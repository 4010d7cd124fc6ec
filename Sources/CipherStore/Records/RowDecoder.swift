import Foundation

/// Decodes a `Decodable` value from a ``Row``, matching coding keys to column names
/// (case-insensitive) through the row's shared column index, built once per statement.
struct RowDecoder: Decoder {
    let row: Row
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RowKeyedContainer<Key>(row: row))
    }

    /// Decodes one column value as a single-value type, such as an enum with a raw value.
    static func decodeSingleValue<T: Decodable>(_ type: T.Type, from value: DatabaseValue, key: any CodingKey) throws -> T {
        try T(from: ValueDecoder(value: value, codingPath: [key]))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: codingPath, debugDescription: "rows decode as keyed containers only"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(Any.self, .init(codingPath: codingPath, debugDescription: "rows decode as keyed containers only"))
    }
}

private struct RowKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let row: Row
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { row.columnNames.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { row.hasColumn(key.stringValue) }

    func decodeNil(forKey key: Key) throws -> Bool {
        row[key.stringValue]?.isNull ?? true
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        if let convertible = T.self as? any DatabaseValueConvertible.Type {
            return try decodeConvertible(convertible, key: key) as! T
        }
        // Nested Decodable values (e.g. enums with raw values) read the column as one value.
        guard let value = row[key.stringValue] else { throw missing(key) }
        return try T(from: ValueDecoder(value: value, codingPath: [key]))
    }

    private func decodeConvertible<C: DatabaseValueConvertible>(_ type: C.Type, key: Key) throws -> C {
        try row.value(C.self, named: key.stringValue)
    }

    private func missing(_ key: Key) -> DecodingError {
        .keyNotFound(key, .init(codingPath: [key], debugDescription: "no column \(key.stringValue) in \(row.columnNames)"))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw DecodingError.typeMismatch(type, .init(codingPath: [key], debugDescription: "nested containers are not stored in rows"))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: [key], debugDescription: "arrays are not stored in rows"))
    }

    func superDecoder() throws -> any Decoder { RowDecoder(row: row) }
    func superDecoder(forKey key: Key) throws -> any Decoder { RowDecoder(row: row) }
}

/// Decodes one column value, for `RawRepresentable` enums and similar single-value types.
private struct ValueDecoder: Decoder, SingleValueDecodingContainer {
    let value: DatabaseValue
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw DecodingError.typeMismatch(type, .init(codingPath: codingPath, debugDescription: "a column holds one value"))
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: codingPath, debugDescription: "a column holds one value"))
    }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { value.isNull }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let convertible = T.self as? any DatabaseValueConvertible.Type, let result = convertible.fromDatabaseValue(value) as? T {
            return result
        }
        throw DecodingError.typeMismatch(type, .init(codingPath: codingPath, debugDescription: "cannot read \(value) as \(T.self)"))
    }
}
