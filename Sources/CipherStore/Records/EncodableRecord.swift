import Foundation

/// An `Encodable` record that chooses how its dates and UUIDs are stored, column by column, in
/// GRDB's spelling:
///
/// ```swift
/// struct Event: Codable, FetchableRecord, MutablePersistableRecord {
///     static let databaseTableName = "event"
///     var id: UUID
///     var date: Date
///     // Exact: the Double a Date holds, with no rounding to milliseconds.
///     static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .timeIntervalSinceReferenceDate }
///     static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .timeIntervalSinceReferenceDate }
///     static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy { .lowercaseString }
/// }
/// ```
///
/// The defaults keep the library's storage: dates as UTC text to the millisecond
/// (`2026-11-26 14:03:07.250`, which sorts and which SQLite's date functions read), UUIDs as
/// 16-byte blobs. Text to the millisecond loses what a `Date` holds below it: a record that
/// must read back the same `Date` stores `.timeIntervalSinceReferenceDate`.
public protocol EncodableRecord: Encodable {
    /// How the date in `column` is stored; ``DatabaseDateEncodingStrategy/deferredToDate`` by default.
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy
    /// How the UUID in `column` is stored; ``DatabaseUUIDEncodingStrategy/deferredToUUID`` by default.
    static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy
}

extension EncodableRecord {
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .deferredToDate }
    public static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy { .deferredToUUID }
}

/// How a record stores a `Date`.
public enum DatabaseDateEncodingStrategy: Sendable {
    /// UTC text `yyyy-MM-dd HH:mm:ss.SSS`, as `Date`'s ``DatabaseValueConvertible`` conformance.
    case deferredToDate
    /// A real: seconds since 2001-01-01, exactly the `Double` a `Date` holds.
    case timeIntervalSinceReferenceDate
    /// A real: seconds since 1970-01-01 (may round the last bit of a `Date`).
    case timeIntervalSince1970
    /// An integer: whole milliseconds since 1970-01-01.
    case millisecondsSince1970
    /// An integer: whole seconds since 1970-01-01.
    case secondsSince1970
    /// ISO 8601 text with milliseconds and `Z` (`2026-11-26T14:03:07.250Z`).
    case iso8601
    /// A value of the record's choosing.
    case custom(@Sendable (Date) -> DatabaseValue)

    func databaseValue(_ date: Date) -> DatabaseValue {
        switch self {
        case .deferredToDate: return date.databaseValue
        case .timeIntervalSinceReferenceDate: return .real(date.timeIntervalSinceReferenceDate)
        case .timeIntervalSince1970: return .real(date.timeIntervalSince1970)
        case .millisecondsSince1970: return .integer(Int64((date.timeIntervalSince1970 * 1000).rounded()))
        case .secondsSince1970: return .integer(Int64(date.timeIntervalSince1970.rounded()))
        case .iso8601: return .text(DatabaseDateFormat.string(from: date).replacingOccurrences(of: " ", with: "T") + "Z")
        case .custom(let encode): return encode(date)
        }
    }
}

/// How a record reads a `Date`: the counterpart of ``DatabaseDateEncodingStrategy``.
public enum DatabaseDateDecodingStrategy: Sendable {
    /// `Date`'s ``DatabaseValueConvertible`` conformance: date text, or numbers as seconds since 1970.
    case deferredToDate
    /// A number of seconds since 2001-01-01.
    case timeIntervalSinceReferenceDate
    /// A number of seconds since 1970-01-01.
    case timeIntervalSince1970
    /// A number of milliseconds since 1970-01-01.
    case millisecondsSince1970
    /// ISO 8601 text (as `.iso8601` stores it, or with a space or no fraction).
    case iso8601
    /// A conversion of the record's choosing; `nil` is a decoding error.
    case custom(@Sendable (DatabaseValue) -> Date?)

    func date(_ value: DatabaseValue) -> Date? {
        func number() -> Double? { Double.fromDatabaseValue(value) }
        switch self {
        case .deferredToDate: return Date.fromDatabaseValue(value)
        case .timeIntervalSinceReferenceDate: return number().map(Date.init(timeIntervalSinceReferenceDate:))
        case .timeIntervalSince1970: return number().map(Date.init(timeIntervalSince1970:))
        case .millisecondsSince1970: return number().map { Date(timeIntervalSince1970: $0 / 1000) }
        case .iso8601:
            guard case .text(let text) = value else { return nil }
            return DatabaseDateFormat.date(from: text.hasSuffix("Z") ? String(text.dropLast()) : text)
        case .custom(let decode): return decode(value)
        }
    }
}

/// How a record stores a `UUID`. Reading accepts every form.
public enum DatabaseUUIDEncodingStrategy: Sendable {
    /// A 16-byte blob, as `UUID`'s ``DatabaseValueConvertible`` conformance.
    case deferredToUUID
    /// Text, `E621E1F8-C36C-495A-93FC-0C247A3E6E5F`.
    case uppercaseString
    /// Text, `e621e1f8-c36c-495a-93fc-0c247a3e6e5f`.
    case lowercaseString

    func databaseValue(_ uuid: UUID) -> DatabaseValue {
        switch self {
        case .deferredToUUID: return uuid.databaseValue
        case .uppercaseString: return .text(uuid.uuidString)
        case .lowercaseString: return .text(uuid.uuidString.lowercased())
        }
    }
}
