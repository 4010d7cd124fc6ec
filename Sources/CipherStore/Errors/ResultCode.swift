import CSQLCipher

/// A SQLite result code, primary or extended.
///
/// Extended codes keep their primary code in the low 8 bits, so a pattern with a primary code
/// matches every extended code built on it:
///
/// ```swift
/// do { try db.execute(sql: "INSERT INTO user(name) VALUES (?)", arguments: ["Lily"]) }
/// catch ResultCode.SQLITE_CONSTRAINT { print("duplicate") }
/// ```
///
/// See <https://www.sqlite.org/rescode.html>.
public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The primary result code: the low 8 bits.
    public var primaryResultCode: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }

    /// SQLite's English text for the code (`sqlite3_errstr`).
    public var description: String {
        "\(rawValue) (\(String(cString: sqlite3_errstr(rawValue))))"
    }

    /// `SQLITE_OK`: success.
    public static let SQLITE_OK = ResultCode(rawValue: 0)
    /// `SQLITE_ERROR`: generic error, such as a syntax error.
    public static let SQLITE_ERROR = ResultCode(rawValue: 1)
    /// `SQLITE_INTERNAL`.
    public static let SQLITE_INTERNAL = ResultCode(rawValue: 2)
    /// `SQLITE_PERM`: access permission denied.
    public static let SQLITE_PERM = ResultCode(rawValue: 3)
    /// `SQLITE_ABORT`: the operation was aborted.
    public static let SQLITE_ABORT = ResultCode(rawValue: 4)
    /// `SQLITE_BUSY`: the database file is locked by another connection.
    public static let SQLITE_BUSY = ResultCode(rawValue: 5)
    /// `SQLITE_LOCKED`: a table is locked by this connection.
    public static let SQLITE_LOCKED = ResultCode(rawValue: 6)
    /// `SQLITE_NOMEM`.
    public static let SQLITE_NOMEM = ResultCode(rawValue: 7)
    /// `SQLITE_READONLY`: attempt to write a read-only database.
    public static let SQLITE_READONLY = ResultCode(rawValue: 8)
    /// `SQLITE_INTERRUPT`: interrupted by `sqlite3_interrupt`.
    public static let SQLITE_INTERRUPT = ResultCode(rawValue: 9)
    /// `SQLITE_IOERR`: disk I/O error.
    public static let SQLITE_IOERR = ResultCode(rawValue: 10)
    /// `SQLITE_CORRUPT`: the database disk image is malformed.
    public static let SQLITE_CORRUPT = ResultCode(rawValue: 11)
    /// `SQLITE_FULL`: the disk (or `max_page_count`) is full.
    public static let SQLITE_FULL = ResultCode(rawValue: 13)
    /// `SQLITE_CANTOPEN`: unable to open the database file.
    public static let SQLITE_CANTOPEN = ResultCode(rawValue: 14)
    /// `SQLITE_SCHEMA`: the schema changed.
    public static let SQLITE_SCHEMA = ResultCode(rawValue: 17)
    /// `SQLITE_TOOBIG`: string or blob too big.
    public static let SQLITE_TOOBIG = ResultCode(rawValue: 18)
    /// `SQLITE_CONSTRAINT`: a constraint failed.
    public static let SQLITE_CONSTRAINT = ResultCode(rawValue: 19)
    /// `SQLITE_MISMATCH`: data type mismatch.
    public static let SQLITE_MISMATCH = ResultCode(rawValue: 20)
    /// `SQLITE_MISUSE`: library used incorrectly.
    public static let SQLITE_MISUSE = ResultCode(rawValue: 21)
    /// `SQLITE_AUTH`: authorization denied.
    public static let SQLITE_AUTH = ResultCode(rawValue: 23)
    /// `SQLITE_RANGE`: bind parameter index out of range.
    public static let SQLITE_RANGE = ResultCode(rawValue: 25)
    /// `SQLITE_NOTADB`: file is encrypted (with another key) or is not a database.
    public static let SQLITE_NOTADB = ResultCode(rawValue: 26)
    /// `SQLITE_ROW`: a row is ready.
    public static let SQLITE_ROW = ResultCode(rawValue: 100)
    /// `SQLITE_DONE`: the statement has finished.
    public static let SQLITE_DONE = ResultCode(rawValue: 101)

    /// Matches a code against a pattern; a primary pattern matches all its extended codes.
    public static func ~= (pattern: ResultCode, code: ResultCode) -> Bool {
        if pattern.primaryResultCode == pattern {
            return pattern == code.primaryResultCode
        }
        return pattern == code
    }

    /// Matches a thrown ``DatabaseError`` against a result code in a `catch` clause.
    /// A migration's error wrapped in ``MigrationError`` matches as the error inside.
    public static func ~= (pattern: ResultCode, error: any Error) -> Bool {
        if let migration = error as? MigrationError, let underlying = migration.underlyingError {
            return pattern ~= underlying
        }
        guard let error = error as? DatabaseError else { return false }
        return pattern ~= error.resultCode
    }
}
