import CSQLCipher

/// Owns a `sqlite3*` and closes it when the last user lets go.
///
/// Statements keep their handle alive, so a statement that outlives its ``Connection`` stays
/// valid, and the handle is closed only after every statement is finalized.
///
/// The one choke point between a closed connection and freed memory: the `sqlite3*` is
/// reachable only through ``pointer``, which throws
/// ``CipherStoreError/connectionClosed`` once ``close()`` has succeeded.
final class ConnectionHandle {
    private let rawPointer: OpaquePointer
    /// The callbacks registered with SQLite; as long-lived as the `sqlite3*` they serve.
    let hooks = ConnectionHooks()
    /// Interrupts from other threads; it forgets the `sqlite3*` when the handle closes.
    let interrupter: ConnectionInterrupter

    init(_ pointer: OpaquePointer) {
        self.rawPointer = pointer
        self.interrupter = ConnectionInterrupter(pointer)
    }

    /// Whether ``close()`` succeeded.
    private(set) var isClosed = false

    /// Run once the `sqlite3*` is closed: removes what the open left behind that SQLite does
    /// not (see ``DatabaseFile/openForReading(path:key:cipher:)``).
    var afterClose: (() -> Void)?

    /// The `sqlite3*` to call SQLite with.
    /// - Throws: ``CipherStoreError/connectionClosed`` after ``close()``.
    var pointer: OpaquePointer {
        @inline(__always) get throws {
            guard !isClosed else { throw CipherStoreError.connectionClosed }
            return rawPointer
        }
    }

    /// The error of a statement refused because the `async` block running it was cancelled
    /// (see ``ConnectionInterrupter``): the one SQLite gives an interrupted statement.
    func cancelledError(sql: String) -> DatabaseError {
        DatabaseError(resultCode: .SQLITE_INTERRUPT, message: "interrupted", sql: sql)
    }

    /// The choke point that turns a SQLite result code into a thrown ``DatabaseError``.
    @inline(__always)
    func check(_ code: Int32, sql: String? = nil) throws {
        guard code != SQLITE_OK else { return }
        throw error(code, sql: sql)
    }

    /// The ``DatabaseError`` for a failed call, with the handle's extended code and message.
    func error(_ code: Int32, sql: String?) -> DatabaseError {
        // A code can only come from a call made while the handle was open; the guard keeps a
        // mistake from reading freed memory.
        guard let pointer = try? pointer else {
            return DatabaseError(resultCode: ResultCode(rawValue: code), message: CipherStoreError.connectionClosed.description, sql: sql)
        }
        let extended = sqlite3_extended_errcode(pointer)
        let resultCode = (extended & 0xFF) == (code & 0xFF) ? extended : code
        let message = (code & 0xFF) == SQLITE_AUTH ? hooks.denialReason ?? KeyPragmaGuard.refusal : String(cString: sqlite3_errmsg(pointer))
        let error = DatabaseError(resultCode: ResultCode(rawValue: resultCode), message: message, sql: sql)
        hooks.corruptionWatch?.report(error)
        return error
    }

    /// Closes the handle now. Closing a closed handle does nothing.
    /// - Throws: ``CipherStoreError/statementsStillAlive`` while statements are still alive.
    func close() throws {
        guard !isClosed else { return }
        let code = interrupter.closing { sqlite3_close($0) }
        guard code == SQLITE_OK else {
            // SQLITE_BUSY here means unfinalized statements, not a lock.
            if code == SQLITE_BUSY { throw CipherStoreError.statementsStillAlive }
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "closing the connection failed")
        }
        isClosed = true
        afterClose?()
        afterClose = nil
        // SQLite released its references to them; these go too, with what they capture.
        hooks.functions = [:]
        hooks.collations = [:]
        hooks.broker.removeAll()
    }

    deinit {
        // close_v2 defers the close until outstanding statements are finalized.
        if !isClosed, interrupter.closing({ sqlite3_close_v2($0) }) == SQLITE_OK { afterClose?() }
    }
}
