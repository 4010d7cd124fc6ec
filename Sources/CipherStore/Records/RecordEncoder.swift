import Foundation

/// Encodes an `Encodable` value into column values, in the order of its coding keys: one
/// column per property, each converted by ``ColumnValueEncoder``.
///
/// A connection keeps one encoder for its inserts and gives it the columns the table's kept
/// INSERT was prepared for (``expect(_:)``): while the record encodes the same keys in the same
/// order, as a synthesized `encode(to:)` does, each key's name is only compared with the
/// expected one (a literal's two words), nothing is collected but the values, and they are bound
/// by position. The first key that differs switches the encoder to collecting every name, and
/// the caller prepares an INSERT for those columns.
final class RecordEncoder: Encoder {
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]
    // Unchecked exclusivity: only this encoder's containers write, one call at a time.
    /// The values, in the order the keys were encoded. Room for a usual record's columns from
    /// the start, so encoding one grows nothing.
    @exclusivity(unchecked) private(set) var values: [DatabaseValue] = {
        var values: [DatabaseValue] = []
        values.reserveCapacity(16)
        return values
    }()
    /// The names of the keys encoded so far, once they are no longer the expected ones (else empty).
    @exclusivity(unchecked) private var names: [String] = []
    /// The names the caller expects, in order; empty: every name is collected.
    @exclusivity(unchecked) private var expected: [String] = []
    /// Whether every key so far was the expected one at its position.
    @exclusivity(unchecked) private var isExpected = false

    /// Set when the record used a shape rows cannot hold; thrown once encoding returns.
    var unsupported: String?
    /// The record's type when it chooses how dates and UUIDs are stored.
    var strategies: (any EncodableRecord.Type)?
    /// The record type `strategies` was looked up for: a reused encoder casts once per type.
    private var strategiesType: ObjectIdentifier?
    /// The keyed container of the last record, handed out again while its key type is the
    /// same (see ``RecordDecoder``'s). It holds this encoder: ``releaseContainers()`` breaks the cycle.
    private var keptContainer: (keyType: ObjectIdentifier, container: AnyObject)?
    /// Whether containers are kept: only for an encoder that encodes many records.
    private let keepsContainers: Bool

    /// - Parameter keepsContainers: keep the keyed container from record to record; the owner
    ///   then calls ``releaseContainers()`` when done with the encoder.
    init(keepsContainers: Bool = false) {
        self.keepsContainers = keepsContainers
    }

    static func columns(of record: some Encodable) throws -> [(name: String, value: DatabaseValue)] {
        let encoder = RecordEncoder()
        try encoder.encode(record)
        return encoder.columns
    }

    /// The encoded columns, named.
    var columns: [(name: String, value: DatabaseValue)] {
        var columns: [(name: String, value: DatabaseValue)] = []
        columns.reserveCapacity(values.count)
        for index in values.indices { columns.append((isExpected ? expected[index] : names[index], values[index])) }
        return columns
    }

    /// Whether the record encoded exactly the expected keys, in order.
    var encodedExpectedKeys: Bool { isExpected && values.count == expected.count }

    /// The names of the keys the next record is expected to encode, in order.
    func expect(_ names: [String]) {
        expected = names
    }

    /// Encodes `record`, replacing what the last one encoded.
    /// - Throws: `EncodingError` for a shape rows cannot hold, or the record's own error.
    func encode<Record: Encodable>(_ record: Record) throws {
        values.removeAll(keepingCapacity: true)
        names.removeAll(keepingCapacity: true)
        isExpected = !expected.isEmpty
        unsupported = nil
        let recordType = type(of: record)
        if strategiesType != ObjectIdentifier(recordType) {
            strategiesType = ObjectIdentifier(recordType)
            strategies = recordType as? any EncodableRecord.Type
        }
        try record.encode(to: self)
        if let unsupported {
            throw EncodingError.invalidValue(record, .init(codingPath: [], debugDescription: unsupported))
        }
    }

    /// Adds a column. Synthesized `encode(to:)` names each key once; a key encoded twice
    /// makes the INSERT fail with SQLite's "specified more than once".
    @inline(__always)
    func set(_ key: some CodingKey, _ value: DatabaseValue) {
        let name = key.stringValue
        if isExpected {
            let position = values.count
            if position < expected.count && expected[position] == name {
                values.append(value)
                return
            }
            // Not the expected key: the names so far were the expected ones.
            isExpected = false
            names.append(contentsOf: expected.prefix(position))
        }
        if names.capacity == 0 { names.reserveCapacity(16) }
        names.append(name)
        values.append(value)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if let kept = keptContainer, kept.keyType == ObjectIdentifier(Key.self) {
            return unsafeDowncast(kept.container, to: KeptContainer<Key>.self).container
        }
        let container = KeyedEncodingContainer(RecordKeyedContainer<Key>(encoder: self))
        if keepsContainers { keptContainer = (ObjectIdentifier(Key.self), KeptContainer(container)) }
        return container
    }

    /// Lets go of the kept container, which holds this encoder.
    func releaseContainers() {
        keptContainer = nil
    }

    private final class KeptContainer<Key: CodingKey> {
        let container: KeyedEncodingContainer<Key>
        init(_ container: KeyedEncodingContainer<Key>) { self.container = container }
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

    mutating func encodeNil(forKey key: Key) throws { encoder.set(key, .null) }
    mutating func encode(_ value: Double, forKey key: Key) throws { encoder.set(key, .real(value)) }
    mutating func encode(_ value: Float, forKey key: Key) throws { encoder.set(key, value.databaseValue) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { encoder.set(key, .integer(value ? 1 : 0)) }
    mutating func encode(_ value: String, forKey key: Key) throws { encoder.set(key, .text(value)) }
    // Integers that always fit 64 signed bits convert directly: the generic check below runs
    // unspecialised here (this container is reached through the standard library's box), at
    // several hundred instructions a value.
    mutating func encode(_ value: Int, forKey key: Key) throws { encoder.set(key, .integer(Int64(value))) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { encoder.set(key, .integer(Int64(value))) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { encoder.set(key, .integer(Int64(value))) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { encoder.set(key, .integer(Int64(value))) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { encoder.set(key, .integer(value)) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { encoder.set(key, .integer(Int64(value))) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { encoder.set(key, .integer(Int64(value))) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { encoder.set(key, .integer(Int64(value))) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try integer(value, key) }

    /// Column types, single values (enums with a raw value, wrappers), and nested values and
    /// arrays as JSON text: see ``ColumnValueEncoder``.
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if let strategies = encoder.strategies {
            if let date = value as? Date {
                return encoder.set(key, strategies.databaseDateEncodingStrategy(for: key.stringValue).databaseValue(date))
            }
            if let uuid = value as? UUID {
                return encoder.set(key, strategies.databaseUUIDEncodingStrategy(for: key.stringValue).databaseValue(uuid))
            }
        }
        encoder.set(key, try ColumnValueEncoder.databaseValue(of: value, codingPath: [key]))
    }

    private func integer(_ value: some FixedWidthInteger, _ key: Key) throws {
        encoder.set(key, try ColumnValueEncoder.integer(value, codingPath: [key]))
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
