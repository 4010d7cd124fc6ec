import Foundation

/// Encodes an `Encodable` value into column values, in the order of its coding keys: one
/// column per property, each converted by ``ColumnValueEncoder``.
final class RecordEncoder: Encoder {
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]
    /// Room for a usual record's columns from the start, so encoding one grows nothing.
    /// Unchecked exclusivity: only this encoder's containers append, one at a time.
    @exclusivity(unchecked) private(set) var columns: [(name: String, value: DatabaseValue)] = {
        var columns: [(name: String, value: DatabaseValue)] = []
        columns.reserveCapacity(16)
        return columns
    }()

    /// Set when the record used a shape rows cannot hold; thrown once encoding returns.
    var unsupported: String?
    /// The record's type when it chooses how dates and UUIDs are stored.
    var strategies: (any EncodableRecord.Type)?

    static func columns(of record: some Encodable) throws -> [(name: String, value: DatabaseValue)] {
        let encoder = RecordEncoder()
        encoder.strategies = type(of: record) as? any EncodableRecord.Type
        try record.encode(to: encoder)
        if let unsupported = encoder.unsupported {
            throw EncodingError.invalidValue(record, .init(codingPath: [], debugDescription: unsupported))
        }
        return encoder.columns
    }

    /// Adds a column. Synthesized `encode(to:)` names each key once; a key encoded twice
    /// makes the INSERT fail with SQLite's "specified more than once".
    func set(_ name: String, _ value: DatabaseValue) {
        columns.append((name, value))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(RecordKeyedContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        unsupported = "records encode as keyed containers: one column per property"
        return UnsupportedContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        unsupported = "records encode as keyed containers: one column per property"
        return UnsupportedContainer(encoder: self)
    }
}

private struct RecordKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: RecordEncoder
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws { encoder.set(key.stringValue, .null) }
    mutating func encode(_ value: Double, forKey key: Key) throws { encoder.set(key.stringValue, .real(value)) }
    mutating func encode(_ value: Float, forKey key: Key) throws { encoder.set(key.stringValue, value.databaseValue) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { encoder.set(key.stringValue, .integer(value ? 1 : 0)) }
    mutating func encode(_ value: String, forKey key: Key) throws { encoder.set(key.stringValue, .text(value)) }
    // Integers that always fit 64 signed bits convert directly: the generic check below runs
    // unspecialised here (this container is reached through the standard library's box), at
    // several hundred instructions a value.
    mutating func encode(_ value: Int, forKey key: Key) throws { encoder.set(key.stringValue, .integer(Int64(value))) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { encoder.set(key.stringValue, .integer(Int64(value))) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { encoder.set(key.stringValue, .integer(Int64(value))) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { encoder.set(key.stringValue, .integer(Int64(value))) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { encoder.set(key.stringValue, .integer(value)) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { encoder.set(key.stringValue, .integer(Int64(value))) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { encoder.set(key.stringValue, .integer(Int64(value))) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { encoder.set(key.stringValue, .integer(Int64(value))) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try integer(value, key) }

    /// Column types, single values (enums with a raw value, wrappers), and nested values and
    /// arrays as JSON text: see ``ColumnValueEncoder``.
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if let strategies = encoder.strategies {
            if let date = value as? Date {
                return encoder.set(key.stringValue, strategies.databaseDateEncodingStrategy(for: key.stringValue).databaseValue(date))
            }
            if let uuid = value as? UUID {
                return encoder.set(key.stringValue, strategies.databaseUUIDEncodingStrategy(for: key.stringValue).databaseValue(uuid))
            }
        }
        encoder.set(key.stringValue, try ColumnValueEncoder.databaseValue(of: value, codingPath: [key]))
    }

    private func integer(_ value: some FixedWidthInteger, _ key: Key) throws {
        encoder.set(key.stringValue, try ColumnValueEncoder.integer(value, codingPath: [key]))
    }

    // Synthesized encode(to:) calls encodeIfPresent for optionals, and the standard library's
    // versions skip nil: the column would then be left out, so an update would keep the old
    // value and an insert would take the column's default. A nil property is stored as NULL.
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try optional(value, key) }

    private mutating func optional(_ value: (some Encodable)?, _ key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        encoder.unsupported = "\(key.stringValue): nested values are not stored in rows"
        return KeyedEncodingContainer(RecordKeyedContainer<NestedKey>(encoder: RecordEncoder()))
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder.unsupported = "\(key.stringValue): arrays are not stored in rows"
        return UnsupportedContainer(encoder: RecordEncoder())
    }
    mutating func superEncoder() -> any Encoder { encoder }
    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder }
}

/// Accepts and drops what a record encodes in a shape rows cannot hold; the encoder has
/// already noted the problem and throws when encoding returns.
private struct UnsupportedContainer: UnkeyedEncodingContainer, SingleValueEncodingContainer {
    let encoder: RecordEncoder
    var codingPath: [any CodingKey] { [] }
    var count: Int { 0 }

    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(RecordKeyedContainer<NestedKey>(encoder: RecordEncoder()))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { encoder }
}
