// The fixed-width integers that always fit SQLite's 64-bit integer, and `Float`.
//
// `UInt` and `UInt64` are not column types: values above `Int64.max` have no SQLite integer,
// and ``DatabaseValueConvertible/databaseValue`` cannot fail. Records still hold them (the
// record encoder throws an `EncodingError` for a value above `Int64.max`, the decoder a
// ``RecordDecodingError/Problem/overflow(value:propertyType:)`` for a negative one); as a
// statement argument, convert explicitly with `Int64(exactly:)`.

extension Int8: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Int8? {
        Int64.fromDatabaseValue(value).flatMap { Int8(exactly: $0) }
    }
}

extension Int16: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Int16? {
        Int64.fromDatabaseValue(value).flatMap { Int16(exactly: $0) }
    }
}

extension UInt8: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> UInt8? {
        Int64.fromDatabaseValue(value).flatMap { UInt8(exactly: $0) }
    }
}

extension UInt16: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> UInt16? {
        Int64.fromDatabaseValue(value).flatMap { UInt16(exactly: $0) }
    }
}

extension UInt32: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> UInt32? {
        Int64.fromDatabaseValue(value).flatMap { UInt32(exactly: $0) }
    }
}

/// Stored as a real (a `Double`, which holds every `Float` exactly). Reading refuses a finite
/// number too large for a `Float` rather than returning infinity.
extension Float: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .real(Double(self)) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Float? {
        guard let double = Double.fromDatabaseValue(value) else { return nil }
        let float = Float(double)
        return float.isFinite || !double.isFinite ? float : nil
    }
}
