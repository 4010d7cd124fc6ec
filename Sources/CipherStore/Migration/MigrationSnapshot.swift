import CSQLCipher
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The migrator's safety net: a raw copy of the database file's bytes, taken before pending
/// migrations run, put back when one of them fails (or when the process died while they ran).
///
/// A copy of the bytes, not a backup: a rollback under SQLCipher, and a copy made with the
/// backup API, give the same content in different bytes (every page written is encrypted
/// with a fresh IV), and only the bytes themselves let the database come back exactly as it
/// was. The copy is still encrypted with the database's key, and it is checked before any
/// migration runs: attached to the writer (which keys it with the main database's key) and
/// passed through `PRAGMA quick_check`.
///
/// Two files sit beside the database: `NAME.migration-snapshot`, the copy, and
/// `NAME.migration-in-progress`, written durably once the copy is complete and removed once
/// the migrations have ended. Found together, they mean that a process died while migrating:
/// the copy is put back before anything else. A copy found alone was complete and is not
/// needed any more (or was kept on request).
///
/// The file is read and written through SQLite's own handle of it (`SQLITE_FCNTL_FILE_POINTER`)
/// while the writer holds an exclusive transaction: closing a second descriptor of the file
/// would drop the POSIX locks SQLite holds on it.
struct MigrationSnapshot {
    let databasePath: String

    /// The copy's path.
    var path: String { databasePath + ".migration-snapshot" }
    /// The marker's path: present while migrations run.
    var markerPath: String { databasePath + ".migration-in-progress" }

    /// The safety net of a connection's database; `nil` for an in-memory or temporary
    /// database, and for a read-only connection (no migration can run on it).
    init?(for db: Connection) {
        guard let path = db.location.filePath, !db.isReadOnly else { return nil }
        databasePath = path
    }

    /// Puts the copy back when the marker says a migration was running when the process
    /// died; removes a copy left without the marker unless copies are kept.
    /// - Returns: whether the database was put back.
    func recoverInterruptedMigration(_ db: Connection, keepingSnapshot: Bool) throws -> Bool {
        if FileSystem.exists(markerPath) {
            if FileSystem.exists(path) {
                try restore(db)
                db.logger?.warning("restored the database from its migration snapshot: a migration was interrupted",
                                   metadata: ["snapshot": "\(path)"])
                return true
            }
            try removeDurably(markerPath)
        } else if !keepingSnapshot && FileSystem.exists(path) {
            try removeDurably(path)
        }
        return false
    }

    /// Copies the database file's bytes to ``path``, checks that the copy opens with the
    /// key, and writes the marker. Nothing is left behind when it fails.
    /// - Throws: ``MigrationError/snapshotFailed(path:reason:)``.
    func take(_ db: Connection) throws {
        do {
            try exclusively(db) { file in
                let temporary = TemporaryFiles.path(for: path)
                do {
                    try copy(from: file, to: temporary)
                    try DurableReplacement.rename(temporary, over: path)
                } catch {
                    FileSystem.removeIfPresent(temporary)
                    throw error
                }
            }
            try verify(db)
            try DurableFile.replace(markerPath, with: [])
        } catch let error as MigrationError {
            FileSystem.removeIfPresent(path)
            throw error
        } catch {
            FileSystem.removeIfPresent(path)
            throw MigrationError.snapshotFailed(path: path, reason: "\(error)")
        }
    }

    /// Ends a successful run: removes the marker, then the copy unless it is kept.
    func finish(keepingSnapshot: Bool) throws {
        try removeDurably(markerPath)
        if !keepingSnapshot { try removeDurably(path) }
    }

    /// Puts the copy's bytes back into the database file, then removes the marker and the copy.
    ///
    /// In WAL mode the log is checkpointed and emptied first, so that nothing in it is laid
    /// over the restored file. The connection's cached pages are dropped afterwards: the file
    /// changed under them.
    func restore(_ db: Connection) throws {
        try exclusively(db) { file in
            let source = open(path, O_RDONLY | O_CLOEXEC)
            guard source >= 0 else { throw FileSystem.ioError("open", path) }
            defer { close(source) }
            var buffer = [UInt8](repeating: 0, count: Self.chunkSize)
            var offset: Int64 = 0
            while true {
                let count = buffer.withUnsafeMutableBytes { Foundation.read(source, $0.baseAddress!, Self.chunkSize) }
                if count < 0 && errno == EINTR { continue }
                guard count >= 0 else { throw FileSystem.ioError("read", path) }
                if count == 0 { break }
                try check(buffer.withUnsafeBytes { file.pointee.pMethods.pointee.xWrite(file, $0.baseAddress, Int32(count), offset) },
                          "write", databasePath)
                offset += Int64(count)
            }
            try check(file.pointee.pMethods.pointee.xTruncate(file, offset), "truncate", databasePath)
            try check(file.pointee.pMethods.pointee.xSync(file, SQLITE_SYNC_NORMAL), "fsync", databasePath)
        }
        sqlite3_db_release_memory(try db.handle.pointer)
        db.handle.hooks.noteSchemaReplaced()
        try removeDurably(markerPath)
        try removeDurably(path)
    }

    private static let chunkSize = 1 << 16

    /// Runs `body` with SQLite's handle of the main database file, inside an exclusive
    /// transaction that writes nothing (so no other connection writes meanwhile), with the
    /// write-ahead log empty.
    private func exclusively(_ db: Connection, _ body: (UnsafeMutablePointer<sqlite3_file>) throws -> Void) throws {
        let wal = try db.fetchScalar(String.self, sql: "PRAGMA journal_mode")?.lowercased() == "wal"
        for attempt in 1...3 {
            if wal {
                let busy = try db.fetchScalar(Int.self, sql: "PRAGMA wal_checkpoint(TRUNCATE)") ?? 1
                guard busy == 0 else {
                    throw DatabaseFileError.databaseInUse(path: databasePath, detail: "another connection is reading from the write-ahead log, so it cannot be emptied")
                }
            }
            try db.execute(sql: "BEGIN EXCLUSIVE")
            // A commit from another process between the checkpoint and BEGIN refills the log.
            if wal && FileSystem.size(databasePath + "-wal") > 0 {
                try db.execute(sql: "ROLLBACK")
                if attempt == 3 {
                    throw DatabaseFileError.databaseInUse(path: databasePath, detail: "other connections keep writing to it")
                }
                continue
            }
            defer { try? db.execute(sql: "ROLLBACK") }
            try body(try mainFile(db))
            return
        }
    }

    /// SQLite's own handle of the main database file.
    private func mainFile(_ db: Connection) throws -> UnsafeMutablePointer<sqlite3_file> {
        var file: UnsafeMutablePointer<sqlite3_file>?
        let code = sqlite3_file_control(try db.handle.pointer, "main", SQLITE_FCNTL_FILE_POINTER, &file)
        guard code == SQLITE_OK, let file, file.pointee.pMethods != nil else {
            throw DatabaseFileError.io(operation: "reach the open file of", path: databasePath, reason: "SQLite result code \(code)")
        }
        return file
    }

    /// Writes the file's bytes, read through SQLite's handle, to a new file (mode 0600), synced.
    private func copy(from file: UnsafeMutablePointer<sqlite3_file>, to output: String) throws {
        var size: sqlite3_int64 = 0
        try check(file.pointee.pMethods.pointee.xFileSize(file, &size), "read the size of", databasePath)
        let descriptor = open(output, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw FileSystem.ioError("create", output) }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: Self.chunkSize)
        var offset: Int64 = 0
        while offset < size {
            let count = Int(min(Int64(Self.chunkSize), size - offset))
            try check(buffer.withUnsafeMutableBytes { file.pointee.pMethods.pointee.xRead(file, $0.baseAddress, Int32(count), offset) },
                      "read", databasePath)
            var written = 0
            while written < count {
                let result = buffer.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress! + written, count - written) }
                if result < 0 && errno == EINTR { continue }
                guard result > 0 else { throw FileSystem.ioError("write", output) }
                written += result
            }
            offset += Int64(count)
        }
        guard fsync(descriptor) == 0 else { throw FileSystem.ioError("fsync", output) }
    }

    /// Attaches the copy (keyed like the main database) and runs a quick check on it.
    private func verify(_ db: Connection) throws {
        try db.execute(sql: "ATTACH DATABASE ? AS cipherstore_migration_snapshot",
                       arguments: [try DatabaseLocation.sqliteFilePath(path)])
        defer {
            try? db.execute(sql: "DETACH DATABASE cipherstore_migration_snapshot")
            for sideFile in DatabaseSideFiles.present(beside: path) { FileSystem.removeIfPresent(sideFile) }
        }
        let result = try db.fetchScalar(String.self, sql: "PRAGMA cipherstore_migration_snapshot.quick_check")
        guard result == "ok" else {
            throw MigrationError.snapshotFailed(path: path, reason: "the copy does not pass `PRAGMA quick_check` (\(result ?? "no result"))")
        }
    }

    /// Removes a file and syncs its directory, so that the removal survives a power cut.
    private func removeDurably(_ file: String) throws {
        guard unlink(file) == 0 || errno == ENOENT else { throw FileSystem.ioError("remove", file) }
        try FileSystem.syncDirectory(of: file)
    }

    private func check(_ code: Int32, _ operation: String, _ file: String) throws {
        guard code == SQLITE_OK else {
            throw DatabaseFileError.io(operation: operation, path: file, reason: "SQLite result code \(code)")
        }
    }
}
