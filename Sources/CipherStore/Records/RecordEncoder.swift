import Foundation

/// Encodes an `Encodable` value into column values, in the order of its coding keys.
final class RecordEncoder: Encoder {
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]
    private(set) var columns: [(name: String, value: DatabaseValue)] = []

    static func columns(of record: some Encodable) throws -> [(name: String, value: DatabaseValue)] {
        let encoder = RecordEncoder()
        try record.encode(to: encoder)
        return encoder.columns
    }

    func set(_ name: String, _ value: DatabaseValue) {
        if let index = columns.firstIndex(where: { $0.name == name }) {
            columns[index].value = value
        } else {
            columns.append((name, value))
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(RecordKeyedContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        fatalError("records encode as keyed containers: one column per property")
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        fatalError("records encode as keyed containers: one column per property")
    }
}

private struct RecordKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: RecordEncoder
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws { encoder.set(key.stringValue, .null) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if let convertible = value as? any DatabaseValueConvertible {
            encoder.set(key.stringValue, convertible.databaseValue)
        } else if let raw = (value as? any RawRepresentable)?.rawValue as? any DatabaseValueConvertible {
            encoder.set(key.stringValue, raw.databaseValue)
        } else {
            throw EncodingError.invalidValue(value, .init(codingPath: [key], debugDescription: "\(T.self) is not a column type; make it DatabaseValueConvertible"))
        }
    }

    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        fatalError("nested values are not stored in rows")
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        fatalError("arrays are not stored in rows")
    }
    mutating func superEncoder() -> any Encoder { encoder }
    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder }
}
