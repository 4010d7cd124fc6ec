import CSQLCipher

/// Owns a `sqlite3*` and closes it when the last user lets go.
///
/// Statements keep their handle alive, so a statement that outlives its ``Connection`` stays
/// valid, and the handle is closed only after every statement is finalized.
final class ConnectionHandle {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// SQLite's current error message for this handle.
    var errorMessage: String { String(cString: sqlite3_errmsg(pointer)) }

    /// The extended code of the most recent failure on this handle.
    var extendedErrorCode: Int32 { sqlite3_extended_errcode(pointer) }

    /// The choke point that turns a SQLite result code into a thrown ``DatabaseError``.
    @inline(__always)
    func check(_ code: Int32, sql: String? = nil) throws {
        guard code != SQLITE_OK else { return }
        throw error(code, sql: sql)
    }

    /// The ``DatabaseError`` for a failed call, with the handle's extended code and message.
    func error(_ code: Int32, sql: String?) -> DatabaseError {
        let extended = extendedErrorCode
        let resultCode = (extended & 0xFF) == (code & 0xFF) ? extended : code
        return DatabaseError(resultCode: ResultCode(rawValue: resultCode), message: errorMessage, sql: sql)
    }

    /// Whether ``close()`` succeeded.
    private(set) var isClosed = false

    /// Closes the handle now.
    /// - Throws: ``DatabaseError`` (`SQLITE_BUSY`) while statements are still alive.
    func close() throws {
        guard !isClosed else { return }
        let code = sqlite3_close(pointer)
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code),
                                message: "statements or cursors of this connection are still alive; release them, then close again")
        }
        isClosed = true
    }

    deinit {
        // close_v2 defers the close until outstanding statements are finalized.
        if !isClosed { sqlite3_close_v2(pointer) }
    }
}
