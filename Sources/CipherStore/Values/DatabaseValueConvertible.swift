import Foundation

/// A Swift type that can be stored in and read from a database column.
///
/// Conversions are strict: reading text as an `Int` fails rather than guessing; integers and
/// reals convert to each other where the value is exact.
public protocol DatabaseValueConvertible: SQLExpressible {
    /// The value to bind.
    var databaseValue: DatabaseValue { get }
    /// The Swift value for a database value, or `nil` when it does not convert.
    static func fromDatabaseValue(_ value: DatabaseValue) -> Self?
}

extension DatabaseValue: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> DatabaseValue? { value }
}

extension Int64: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self) }
    @inlinable
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Int64? {
        switch value {
        case .integer(let int): return int
        case .real(let double): return Int64(exactly: double)
        default: return nil
        }
    }
}

extension Int: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    @inlinable
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Int? {
        Int64.fromDatabaseValue(value).flatMap { Int(exactly: $0) }
    }
}

extension Int32: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Int32? {
        Int64.fromDatabaseValue(value).flatMap { Int32(exactly: $0) }
    }
}

extension Double: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .real(self) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Double? {
        switch value {
        case .real(let double): return double
        case .integer(let int): return Double(int)
        default: return nil
        }
    }
}

/// Stored as the integers 0 and 1.
extension Bool: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Bool? {
        Int64.fromDatabaseValue(value).map { $0 != 0 }
    }
}

extension String: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(self) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> String? {
        if case .text(let text) = value { return text }
        return nil
    }
}

extension Data: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .blob(self) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Data? {
        switch value {
        case .blob(let data): return data
        case .text(let text): return Data(text.utf8)
        default: return nil
        }
    }
}

/// Stored as UTC text `yyyy-MM-dd HH:mm:ss.SSS`, which sorts in time order and which SQLite's
/// date functions understand. Reading also accepts `yyyy-MM-dd`, `yyyy-MM-dd HH:mm[:ss[.S…]]`
/// (with `T` or a space, a fraction of any number of digits, and an optional final `Z`), all
/// read as UTC, and numbers as Unix timestamps. Precision is one millisecond.
extension Date: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(DatabaseDateFormat.string(from: self)) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Date? {
        switch value {
        case .text(let text): return DatabaseDateFormat.date(from: text)
        case .integer(let seconds): return Date(timeIntervalSince1970: TimeInterval(seconds))
        case .real(let seconds): return Date(timeIntervalSince1970: seconds)
        default: return nil
        }
    }
}

extension Optional: SQLExpressible where Wrapped: DatabaseValueConvertible {}

/// `nil` is stored as NULL, and NULL reads back as `nil`.
extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self?.databaseValue ?? .null }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Wrapped?? {
        if case .null = value { return .some(nil) }
        return Wrapped.fromDatabaseValue(value).map { .some($0) }
    }
}

/// An enum with raw values stores its raw value: `enum Color: String, DatabaseValueConvertible {}`
/// needs no body, and `Column("color") == Color.blue` binds `"blue"`. A stored value that is no
/// case's raw value does not convert.
extension DatabaseValueConvertible where Self: RawRepresentable, RawValue: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { rawValue.databaseValue }

    public static func fromDatabaseValue(_ value: DatabaseValue) -> Self? {
        RawValue.fromDatabaseValue(value).flatMap(Self.init(rawValue:))
    }
}
