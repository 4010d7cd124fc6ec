/// Holds a conversion's source still, from before its first read to the end of the conversion,
/// on a connection of its own.
///
/// - Into a new file: a write lock (`BEGIN IMMEDIATE`) keeps writers out, so every connection
///   of the conversion reads the same snapshot. A source this process cannot write (mode 0444,
///   a read-only mount) is held with a read transaction instead, which keeps writers from
///   committing in rollback-journal mode.
/// - In place: the write lock is kept until the old file has been renamed away, so no writer
///   can commit between the snapshot and the swap. A connection that still has the old file
///   open and tries to write after the swap fails with `SQLITE_READONLY_DBMOVED` in
///   rollback-journal mode. In WAL mode it would commit into the old file's log, silently lost;
///   so a WAL source is first switched to rollback-journal mode, which SQLite allows only when
///   no other connection has the file open — in this process or another. If one does, the
///   conversion is refused. On failure the source is switched back to WAL mode.
///   A conversion that waited for the lock while another one replaced the file is refused
///   too: it would otherwise convert the replaced file and put it back over the other's result.
final class SourceLock {
    let connection: Connection
    /// Whether the source was in WAL mode when the conversion started.
    let wasWAL: Bool
    /// Whether the source is held with a read transaction only (it is not writable).
    let isReadOnly: Bool
    private let path: String
    private var leftWAL = false

    /// Opens the source and locks it.
    ///
    /// - Parameters:
    ///   - forReplacement: the source is about to be replaced (in place).
    ///   - readOnly: the source opens read-only only (SQLCipher 2.0.0's HMAC salt mask): it is
    ///     held with a read transaction, as a file this process cannot write.
    ///   - open: opens a connection to the source, read-only or not.
    init(path: String, forReplacement: Bool, readOnly: Bool = false, open: (_ readOnly: Bool) throws -> Connection) throws {
        self.path = path
        // Taken before the open: if the path names another file once the lock is held, the
        // file opened may be one that another conversion replaced meanwhile (its start
        // overwritten, see ReplacedFile, or kept as a backup).
        let opened = FileSystem.identity(path)
        let replacedMeanwhile = { forReplacement && FileSystem.identity(path) != opened }
        isReadOnly = readOnly || (!forReplacement && !FileSystem.isWritableDatabase(path))
        do {
            connection = try open(isReadOnly)
        } catch where replacedMeanwhile() {
            throw Self.replaced(path)
        }
        let mode: String
        do {
            mode = try connection.fetchScalar(String.self, sql: "PRAGMA journal_mode") ?? "delete"
        } catch {
            try? connection.close()
            throw error
        }
        wasWAL = mode.lowercased() == "wal"
        do {
            if forReplacement && wasWAL { try leaveWAL() }
            try begin()
            if replacedMeanwhile() { throw Self.replaced(path) }
        } catch {
            release(restoring: true)
            throw replacedMeanwhile() ? Self.replaced(path) : error
        }
    }

    /// The file at `path` was replaced (by another conversion) while this one waited for its lock.
    private static func replaced(_ path: String) -> DatabaseFileError {
        .replacedByAnotherConversion(path: path)
    }

    /// Switches the source out of WAL mode; SQLite checkpoints and removes the log and its index.
    private func leaveWAL() throws {
        let inUse = DatabaseFileError.databaseInUse(
            path: path, detail: "other connections have it open, in this process or another; a database in WAL mode is converted in place only when nothing else has it open")
        do {
            let mode = try connection.fetchScalar(String.self, sql: "PRAGMA journal_mode = DELETE")
            guard mode?.lowercased() == "delete" else { throw inUse }
        } catch ResultCode.SQLITE_BUSY {
            throw inUse
        } catch ResultCode.SQLITE_LOCKED {
            throw inUse
        }
        leftWAL = true
    }

    private func begin() throws {
        do {
            if isReadOnly {
                try connection.beginTransaction(.deferred)
                // A deferred transaction takes its lock at the first read.
                _ = try connection.fetchOne(sql: "SELECT count(*) FROM sqlite_master")
            } else {
                try connection.beginTransaction(.immediate)
            }
        } catch ResultCode.SQLITE_BUSY {
            throw DatabaseFileError.databaseInUse(path: path, detail: "another connection is writing to it, or another conversion is running")
        }
    }

    /// Lets go of the lock and closes the connection; with `restoring`, switches a source that
    /// was taken out of WAL mode back into it (the conversion did not replace it).
    func release(restoring: Bool) {
        if connection.isInTransaction { try? connection.rollback() }
        if restoring && leftWAL {
            _ = try? connection.fetchScalar(String.self, sql: "PRAGMA journal_mode = WAL")
        }
        try? connection.close()
    }
}
