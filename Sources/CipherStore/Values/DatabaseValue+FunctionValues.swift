import CSQLCipher
import Foundation

/// How values cross between SQLite and a ``DatabaseFunction``: arguments in, result out.
extension DatabaseValue {
    /// An argument of a function call (`sqlite3_value*`), with its storage class.
    init(sqliteValue value: OpaquePointer) {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER:
            self = .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT:
            self = .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            // Text first, then its byte count: asking for the count first could convert twice.
            let text = sqlite3_value_text(value)
            let count = Int(sqlite3_value_bytes(value))
            self = .text(text.map { String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self) } ?? "")
        case SQLITE_BLOB:
            let bytes = sqlite3_value_blob(value)
            let count = Int(sqlite3_value_bytes(value))
            self = .blob(bytes.map { Data(bytes: $0, count: count) } ?? Data())
        default:
            self = .null
        }
    }

    /// The arguments of a call, in order.
    static func arguments(_ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) -> [DatabaseValue] {
        guard let values else { return [] }
        return (0..<Int(count)).map { index in values[index].map(DatabaseValue.init(sqliteValue:)) ?? .null }
    }

    /// Makes the value the result of the function call `context`.
    func setResult(of context: OpaquePointer?) {
        switch self {
        case .null:
            sqlite3_result_null(context)
        case .integer(let int):
            sqlite3_result_int64(context, int)
        case .real(let double):
            sqlite3_result_double(context, double)
        case .text(let text):
            // The explicit byte count keeps text with embedded NUL characters whole.
            sqlite3_result_text(context, text, Int32(text.utf8.count), SQLITE_TRANSIENT)
        case .blob(let data):
            data.withUnsafeBytes { bytes in
                // A NULL pointer would make an empty blob NULL.
                sqlite3_result_blob(context, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), SQLITE_TRANSIENT)
            }
        }
    }
}
