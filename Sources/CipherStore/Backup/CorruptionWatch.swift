import CSQLCipher
import Synchronization

/// What a queue or pool tells its corruption handler (see
/// ``DatabaseReader/onCorruption(_:)``): SQLite found the database damaged while the app used it.
public struct DatabaseCorruption: Sendable, CustomStringConvertible {
    /// The database file.
    public let path: String
    /// The error SQLite reported: `SQLITE_CORRUPT` ("database disk image is malformed"),
    /// `SQLITE_NOTADB` ("file is not a database"), or for a page whose HMAC does not match on
    /// SQLCipher 3, `SQLITE_ERROR` with SQLite's generic message ("SQL logic error or missing
    /// database"), which is all SQLCipher 3 says then.
    public let error: DatabaseError

    public var description: String { "'\(path)' is damaged: \(error)" }
}

/// The corruption handler of one queue or pool, shared by its connections: the first
/// `SQLITE_CORRUPT` or `SQLITE_NOTADB` any of them reports after a handler was set calls it,
/// once.
final class CorruptionWatch: Sendable {
    let path: String
    private let handler = Mutex<(@Sendable (DatabaseCorruption) -> Void)?>(nil)
    private let notified = Atomic<Bool>(false)

    init(path: String) {
        self.path = path
    }

    func setHandler(_ handler: @escaping @Sendable (DatabaseCorruption) -> Void) {
        self.handler.withLock { $0 = handler }
    }

    /// Calls the handler if `error` reports damage and it was not called before.
    func report(_ error: DatabaseError) {
        guard Self.isDamage(error), let handler = handler.withLock({ $0 }) else { return }
        guard !notified.exchange(true, ordering: .acquiringAndReleasing) else { return }
        handler(DatabaseCorruption(path: path, error: error))
    }

    /// `SQLITE_CORRUPT`, `SQLITE_NOTADB`, and SQLCipher 3's report of a page that fails its
    /// HMAC: a bare `SQLITE_ERROR` with SQLite's generic message and nothing more specific
    /// (a mistake in SQL always says what it is).
    static func isDamage(_ error: DatabaseError) -> Bool {
        switch error.resultCode.primaryResultCode {
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: return true
        case .SQLITE_ERROR: return error.resultCode == .SQLITE_ERROR && error.message == genericErrorMessage
        default: return false
        }
    }

    private static let genericErrorMessage = String(cString: sqlite3_errstr(SQLITE_ERROR))
}
