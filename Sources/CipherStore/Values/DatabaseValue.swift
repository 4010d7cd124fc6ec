import Foundation

/// One SQLite value: NULL, integer, real, text or blob.
public enum DatabaseValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// Whether the value is NULL.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// A short description; blobs show their size only.
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .text(let value): return String(reflecting: value)
        case .blob(let data): return "<\(data.count) bytes>"
        }
    }

    /// The SQLite storage class name: "null", "integer", "real", "text" or "blob".
    var storageClass: String {
        switch self {
        case .null: return "null"
        case .integer: return "integer"
        case .real: return "real"
        case .text: return "text"
        case .blob: return "blob"
        }
    }
}
