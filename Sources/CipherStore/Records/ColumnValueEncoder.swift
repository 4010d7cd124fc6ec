import Foundation

/// Turns one record property into one column value.
///
/// A ``DatabaseValueConvertible`` gives its own value. Any other `Encodable` is encoded once
/// into this encoder: a type that encodes a single value (an enum with a raw value, a wrapper
/// around one primitive) stores that value, as the record decoder reads it back; a type that
/// asks for a keyed or unkeyed container (a nested struct, an array, a dictionary) is stored as
/// JSON text (``JSONColumn``).
final class ColumnValueEncoder: Encoder {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    /// What a single-value container stored.
    fileprivate var value: DatabaseValue?
    /// Set when the type asked for a keyed or unkeyed container: it is stored as JSON.
    fileprivate var needsJSON = false

    private init(codingPath: [any CodingKey]) {
        self.codingPath = codingPath
    }

    /// The column value of one property.
    /// - Throws: `EncodingError` for an integer above `Int64.max` or a type that encodes nothing.
    static func databaseValue<T: Encodable>(of value: T, codingPath: [any CodingKey]) throws -> DatabaseValue {
        if let convertible = value as? any DatabaseValueConvertible {
            return convertible.databaseValue
        }
        let probe = ColumnValueEncoder(codingPath: codingPath)
        try value.encode(to: probe)
        if probe.needsJSON {
            return .text(try JSONColumn.text(of: value))
        }
        guard let result = probe.value else {
            throw EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: "\(T.self) encoded no value; encode one value, or a keyed or unkeyed container (stored as JSON)"))
        }
        return result
    }

    /// An integer as SQLite stores it: 64 bits, signed.
    /// - Throws: `EncodingError.invalidValue` for a value above `Int64.max` (a `UInt64` or `UInt`).
    /// The coding path is built only for the error: a record's every integer passes here.
    @inline(__always)
    static func integer<I: FixedWidthInteger>(_ value: I, codingPath: @autoclosure () -> [any CodingKey]) throws -> DatabaseValue {
        guard let integer = Int64(exactly: value) else {
            throw EncodingError.invalidValue(value, .init(
                codingPath: codingPath(),
                debugDescription: "\(value) is above Int64.max (\(Int64.max)), the largest integer SQLite stores. Store such values as text (String(value)) or keep them below 2^63"))
        }
        return .integer(integer)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        needsJSON = true
        return KeyedEncodingContainer(DiscardingContainer<Key>())
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        needsJSON = true
        return DiscardingContainer<ColumnKey>()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValue(encoder: self)
    }

    private struct SingleValue: SingleValueEncodingContainer {
        let encoder: ColumnValueEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }

        private func store(_ value: DatabaseValue) { encoder.value = value }
        private func integer(_ value: some FixedWidthInteger) throws { store(try ColumnValueEncoder.integer(value, codingPath: codingPath)) }

        func encodeNil() throws { store(.null) }
        func encode(_ value: Bool) throws { store(value.databaseValue) }
        func encode(_ value: String) throws { store(.text(value)) }
        func encode(_ value: Double) throws { store(.real(value)) }
        func encode(_ value: Float) throws { store(value.databaseValue) }
        func encode(_ value: Int) throws { try integer(value) }
        func encode(_ value: Int8) throws { try integer(value) }
        func encode(_ value: Int16) throws { try integer(value) }
        func encode(_ value: Int32) throws { try integer(value) }
        func encode(_ value: Int64) throws { try integer(value) }
        func encode(_ value: UInt) throws { try integer(value) }
        func encode(_ value: UInt8) throws { try integer(value) }
        func encode(_ value: UInt16) throws { try integer(value) }
        func encode(_ value: UInt32) throws { try integer(value) }
        func encode(_ value: UInt64) throws { try integer(value) }
        func encode<T: Encodable>(_ value: T) throws {
            store(try ColumnValueEncoder.databaseValue(of: value, codingPath: codingPath))
        }
    }
}

/// A coding key for unkeyed containers, which have none.
struct ColumnKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { self.stringValue = String(intValue); self.intValue = intValue }
}

/// Accepts and drops everything: the probe only needs to know that a container was asked for;
/// the JSON encoder then encodes the value for real.
private struct DiscardingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol, UnkeyedEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    var count: Int { 0 }

    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
    mutating func encodeNil(forKey key: Key) throws {}
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {}
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(DiscardingContainer<NestedKey>())
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(DiscardingContainer<NestedKey>())
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { DiscardingEncoder() }
    mutating func superEncoder(forKey key: Key) -> any Encoder { DiscardingEncoder() }
}

private struct DiscardingEncoder: Encoder {
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> { KeyedEncodingContainer(DiscardingContainer<Key>()) }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { DiscardingContainer<ColumnKey>() }
    func singleValueContainer() -> any SingleValueEncodingContainer { DiscardingValue() }
}

private struct DiscardingValue: SingleValueEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
}
