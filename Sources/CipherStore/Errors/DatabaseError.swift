/// An error reported by SQLite: its (extended) result code, its message and the SQL that failed.
///
/// Bound arguments are never kept: they may hold secrets.
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// The extended result code.
    public let resultCode: ResultCode
    /// SQLite's message (`sqlite3_errmsg`), when there is one.
    public let message: String?
    /// The SQL statement that failed, when there is one. Never contains a key.
    public let sql: String?

    /// Creates an error; mainly for the library itself.
    public init(resultCode: ResultCode, message: String? = nil, sql: String? = nil) {
        self.resultCode = resultCode
        self.message = message
        self.sql = sql
    }

    public var description: String { message { $0.swiftSpelling } }

    /// The description, with each way out it offers (a ``Remedy``) spelled by `spelling`; a
    /// remedy spelled `nil` is not offered, and the message leaves it out.
    public func message(spelling: (Remedy) -> String?) -> String {
        var text = "SQLite error \(resultCode)"
        if let message { text += ": \(message == KeyPragmaGuard.refusal ? KeyPragmaGuard.refusal(spelling: spelling) : message)" }
        if let sql { text += " — while executing `\(sql)`" }
        if let advice = advice(spelling: spelling) { text += ". \(advice)" } else if message?.hasSuffix(Self.permissionAdvice) == true { text += "." }
        return text
    }

    /// SQLite's message, the key-pragma refusal's way out spelled by `spelling`.
    public func sqliteMessage(spelling: (Remedy) -> String?) -> String? {
        message == KeyPragmaGuard.refusal ? KeyPragmaGuard.refusal(spelling: spelling) : message
    }

    /// What the user can do next, for the codes where that is known.
    private func advice(spelling: (Remedy) -> String?) -> String? {
        switch resultCode.primaryResultCode {
        case .SQLITE_BUSY where message?.hasPrefix("unable to delete/modify") == true:
            // Not a lock: sqlite3_create_function or _collation while a statement of this
            // connection runs.
            return "A statement of this connection is still running (an open cursor, or a statement not stepped to its end or reset): finish or release it, then add or remove the function or collation again."
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return "Another connection or process holds a lock on the database: retry later" + (spelling(.busyTimeout).map { " or \($0)" } ?? "") + "."
        case .SQLITE_FULL:
            return "The disk (or the database's page limit) is full: free space and retry; the failed transaction was rolled back."
        case .SQLITE_CANTOPEN where message?.hasSuffix(Self.permissionAdvice) == true,
             .SQLITE_READONLY where message?.hasSuffix(Self.permissionAdvice) == true:
            return nil
        case .SQLITE_READONLY:
            return "The database was opened read-only or its file is not writable: check the open mode and file permissions."
        case .SQLITE_CANTOPEN:
            return "Check that the path exists, its directory is writable, and the process may open it (and has file descriptors left: see `ulimit -n`)."
        case .SQLITE_CORRUPT:
            return "The file is damaged: restore it from a backup."
        case .SQLITE_CONSTRAINT:
            return "The statement violates a constraint of the schema; nothing was written by it."
        case .SQLITE_IOERR where resultCode.rawValue == Self.ioErrorShmSize:
            // Growing the WAL index failed: on Linux, a full file system (tmpfs, /dev/shm) is the usual cause.
            return "The WAL index (-shm) beside the database could not grow: free space on its file system, check the disk, then retry."
        case .SQLITE_IOERR:
            return "The operating system reported an I/O error: check free space, the disk and the file system."
        case .SQLITE_INTERRUPT:
            return "The statement was interrupted (interrupt() was called, or the task that ran it was cancelled); an interrupted write rolled back its whole transaction. Run it again if it is still wanted."
        default:
            return nil
        }
    }
}

extension DatabaseError {
    /// `SQLITE_IOERR_SHMSIZE`: the WAL index could not be grown.
    static let ioErrorShmSize: Int32 = 10 | (19 << 8)
}

extension DatabaseError {
    /// Whether the error is `SQLITE_INTERRUPT` or `SQLITE_ABORT`: a statement stopped by
    /// ``Connection/interrupt()`` or ``DatabaseReader/interrupt()``, or one that ran in a
    /// transaction an interrupt rolled back.
    ///
    /// ```swift
    /// do {
    ///     try await queue.read { db in try db.fetchAll(sql: longQuery) }
    /// } catch let error as DatabaseError where error.isInterruptionError {
    ///     print("stopped")
    /// }
    /// ```
    public var isInterruptionError: Bool {
        switch resultCode.primaryResultCode {
        case .SQLITE_INTERRUPT, .SQLITE_ABORT: return true
        default: return false
        }
    }

    /// The SQL function a statement or the schema calls that the connection does not have
    /// ("no such function: f", or "unknown function: f()" from an index on an expression), or
    /// `nil` for any other error.
    var missingFunctionName: String? {
        guard resultCode.primaryResultCode == .SQLITE_ERROR, let message else { return nil }
        for prefix in ["no such function: ", "unknown function: "] where message.hasPrefix(prefix) {
            let name = message.dropFirst(prefix.count)
            return String(name.hasSuffix("()") ? name.dropLast(2) : name)
        }
        return nil
    }

    /// The table a statement names that the database does not have ("no such table: t", or
    /// "no such table: main.t"), or `nil` for any other error.
    var missingTableName: String? {
        let prefix = "no such table: "
        guard resultCode.primaryResultCode == .SQLITE_ERROR, let message, message.hasPrefix(prefix) else { return nil }
        let name = message.dropFirst(prefix.count)
        return String(name.hasPrefix("main.") ? name.dropFirst(5) : name)
    }

    /// The collation a statement or the schema names that the connection does not have ("no
    /// such collation sequence: c"), or `nil` for any other error.
    public var missingCollationName: String? {
        let prefix = "no such collation sequence: "
        guard resultCode.primaryResultCode == .SQLITE_ERROR, let message, message.hasPrefix(prefix) else { return nil }
        return String(message.dropFirst(prefix.count))
    }
}
