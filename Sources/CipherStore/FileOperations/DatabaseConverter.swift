import CSQLCipher
import Foundation

/// One encrypt, decrypt or key change: copy with `sqlcipher_export` into a temporary file,
/// verify, sync, and move into place. See ``DatabaseMaintenance`` for the guarantees.
struct DatabaseConverter: Sendable {
    /// A key and the cipher settings that go with it; no key means plaintext.
    struct Side: Sendable {
        let key: DatabaseKey?
        let cipher: CipherSettings
    }

    let sourcePath: String
    let source: Side
    let target: Side
    let destination: OutputDestination
    let options: ConversionOptions

    /// The attached name of the output inside the exporting connection.
    static let targetSchema = "cipherstore_target"

    func run() throws -> ConversionReport {
        let started = Date()
        // Before any file is touched: SQLCipher 3.4.1 overruns a heap buffer when given a page
        // size that is not a power of two.
        try source.cipher.validate()
        try target.cipher.validate()
        try checkSource()
        let outputPath = try resolveOutput()
        let removedLeftovers = TemporaryFiles.removeLeftovers(for: outputPath)
        try checkCancelled()

        // Keeps writers out from the first read to the final rename.
        let lock = try openSource()
        defer { try? lock.close() }
        let journalMode = try lock.fetchScalar(String.self, sql: "PRAGMA journal_mode") ?? "delete"
        let isWAL = journalMode.lowercased() == "wal"
        if case .inPlace = destination {
            let holders = FileSystem.otherProcessesHavingOpen(sourcePath)
            guard holders.isEmpty else {
                throw ConversionError.databaseInUse(path: sourcePath, detail: "open in process(es) \(holders.map(String.init).joined(separator: ", "))")
            }
            // Empties the WAL, so no frame of the old file can be replayed onto the new one.
            if isWAL { _ = try lock.fetchOne(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        }
        do {
            try lock.beginTransaction(.immediate)
        } catch ResultCode.SQLITE_BUSY {
            throw ConversionError.databaseInUse(path: sourcePath, detail: "another connection is writing to it, or another conversion is running")
        }
        if case .inPlace = destination, isWAL, FileSystem.size(sourcePath + "-wal") > 0 {
            throw ConversionError.databaseInUse(path: sourcePath, detail: "another connection keeps its write-ahead log from being checkpointed")
        }

        let temporaryPath = TemporaryFiles.path(for: outputPath)
        do {
            try FileSystem.createOwnerOnlyFile(temporaryPath)
            let verification = try copyAndVerify(into: temporaryPath, journalMode: isWAL ? "wal" : nil)
            try checkCancelled()
            report(.replacing, written: FileSystem.size(temporaryPath))
            let backupPath = try replace(outputPath, with: temporaryPath)
            try? lock.rollback()
            try lock.close()
            if case .inPlace = destination, isWAL {
                // The old file's WAL is empty (checked above); its index must not outlive it.
                FileSystem.removeIfPresent(sourcePath + "-wal")
                FileSystem.removeIfPresent(sourcePath + "-shm")
            }
            let bytes = FileSystem.size(outputPath)
            report(.done, written: bytes)
            return ConversionReport(
                outputPath: outputPath, backupPath: backupPath, removedLeftovers: removedLeftovers,
                verification: VerificationReport(
                    path: outputPath, isEncrypted: verification.isEncrypted, tables: verification.tables,
                    userVersion: verification.userVersion, applicationID: verification.applicationID,
                    journalMode: verification.journalMode, schemaObjectCount: verification.schemaObjectCount),
                outputBytes: bytes, seconds: Date().timeIntervalSince(started))
        } catch {
            FileSystem.removeDatabaseFiles(temporaryPath)
            throw error
        }
    }

    // MARK: Steps

    private func checkSource() throws {
        let info = DatabaseFileInfo.inspect(path: sourcePath)
        switch info.kind {
        case .missing: throw ConversionError.sourceMissing(path: sourcePath)
        case .directory: throw ConversionError.sourceIsDirectory(path: sourcePath)
        case .empty: throw ConversionError.sourceEmpty(path: sourcePath)
        case .unreadable: throw FileSystem.ioError("read", sourcePath)
        case .notADatabase:
            throw CipherStoreError.notADatabase(path: sourcePath, detail: info.kindDescription + ", \(info.size) bytes")
        case .plaintext where source.key != nil:
            throw CipherStoreError.notEncrypted(path: sourcePath)
        case .encrypted where source.key == nil:
            throw ConversionError.alreadyEncrypted(path: sourcePath)
        case .plaintext, .encrypted:
            break
        }
    }

    private func resolveOutput() throws -> String {
        switch destination {
        case .file(let path, let overwrite):
            let directory = FileSystem.directory(of: path)
            guard FileSystem.isDirectory(directory), FileSystem.isWritableDirectory(directory) else {
                throw ConversionError.outputDirectoryUnusable(path: directory)
            }
            if FileSystem.isSameFile(path, sourcePath) || path == sourcePath {
                throw ConversionError.outputIsSource(path: path)
            }
            if FileSystem.exists(path) {
                guard overwrite else { throw ConversionError.outputExists(path: path) }
                guard !FileSystem.isDirectory(path) else { throw ConversionError.outputExists(path: path) }
            }
            return path
        case .inPlace(let backup):
            let directory = FileSystem.directory(of: sourcePath)
            guard FileSystem.isWritableDirectory(directory) else {
                throw ConversionError.outputDirectoryUnusable(path: directory)
            }
            if let backup, FileSystem.exists(backup) { throw ConversionError.backupExists(path: backup) }
            return sourcePath
        }
    }

    /// - Parameter conversionIO: opens through the conversion VFS (batched writes to files
    ///   attached later, counted reads of the source).
    private func openSource(conversionIO: Bool = false) throws -> Connection {
        var configuration = Configuration(cipher: source.cipher, busyTimeout: options.busyTimeout, foreignKeys: false)
        if conversionIO { configuration.vfsName = try ConversionIO.vfsName() }
        do {
            return try Connection(path: sourcePath, key: source.key, configuration: configuration)
        } catch ResultCode.SQLITE_CORRUPT {
            throw ConversionError.unreadableSchema(path: sourcePath, detail: "malformed database schema")
        } catch ResultCode.SQLITE_BUSY {
            throw ConversionError.databaseInUse(path: sourcePath, detail: "locked by another connection")
        }
    }

    /// What the result must match, read on a connection of its own.
    private func captureSource() throws -> DatabaseSnapshot {
        let db = try openSource()
        defer { try? db.close() }
        return try DatabaseSnapshot.capture(db)
    }

    /// Exports the source into `temporaryPath`, checks the result against the source and
    /// syncs it.
    ///
    /// The integrity check runs on the exporting connection, before it lets go of the result:
    /// the pages it wrote are still in its cache (up to ``ConversionOptions/pageCacheBytes``),
    /// so they are checked without being decrypted again; spilled pages are read back. A fresh
    /// connection then opens the file with the target key and compares it with the source,
    /// and with ``ConversionOptions/fullReadBack`` runs the integrity check again on the file.
    /// Independent steps overlap on a second core: the source's row counts with the export,
    /// the sync with the fresh connection's reads.
    private func copyAndVerify(into temporaryPath: String, journalMode: String?) throws -> VerificationReport {
        let exporter = try openSource(conversionIO: true)
        defer { try? exporter.close() }
        let converter = self
        let sourceCapture = BackgroundWork { try converter.captureSource() }
        defer { sourceCapture.wait() }
        try export(exporter, into: temporaryPath)
        let sourceSnapshot = try sourceCapture.value()
        try finishAndCheck(exporter, like: sourceSnapshot, journalMode: journalMode)
        return try verifyWrittenFile(temporaryPath, against: sourceSnapshot)
    }

    /// Attaches `temporaryPath` to `exporter` with the target key and settings and copies the
    /// source into it with `sqlcipher_export`, reporting progress.
    private func export(_ exporter: Connection, into temporaryPath: String) throws {
        let autoVacuum = try exporter.fetchScalar(Int.self, sql: "PRAGMA main.auto_vacuum") ?? 0
        let schema = Self.targetSchema
        // With a keyed main database, ATTACH without KEY would reuse the main key: an empty
        // KEY makes the target plaintext. The target's own key goes through sqlite3_key_v2.
        let plaintextClause = (target.key == nil && source.key != nil) ? " KEY ''" : ""
        try exporter.execute(sql: "ATTACH DATABASE ? AS \(schema)\(plaintextClause)", arguments: [DatabaseLocation.sqliteFilePath(temporaryPath)])
        if let key = target.key {
            try key.withKeyBytes { bytes in
                try exporter.handle.check(sqlite3_key_v2(exporter.handle.pointer, schema, bytes.baseAddress, Int32(bytes.count)))
            }
            try exporter.applyCipherSettings(target.cipher, database: schema)
        }
        try exporter.execute(sql: "PRAGMA \(schema).auto_vacuum = \(autoVacuum)")
        // The output is a temporary file, discarded on any failure and synced once before the
        // rename: it needs neither a rollback journal nor a sync after each statement.
        try exporter.execute(sql: "PRAGMA \(schema).journal_mode = OFF")
        try exporter.execute(sql: "PRAGMA \(schema).synchronous = OFF")
        // Negative: KiB, not pages. Pages that fit are written once, in order, at the commit.
        try exporter.execute(sql: "PRAGMA \(schema).cache_size = -\(max(options.pageCacheBytes / 1024, 1))")

        let progress = ExportProgressMonitor(temporaryPath: temporaryPath, sourceBytes: FileSystem.size(sourcePath),
                                             totalBytes: sourceBytes(), options: options)
        do {
            try progress.observe(exporter) {
                try exporter.execute(sql: "SELECT sqlcipher_export('\(schema)')")
            }
        } catch let error as DatabaseError {
            // sqlcipher_export reports a full disk or a failed write as a generic error.
            throw ConversionError.io(operation: "writing the converted database", path: temporaryPath,
                                     reason: error.message ?? error.description)
        }
        try checkCancelled()
        report(.verifying, written: FileSystem.size(temporaryPath))
    }

    /// Sets what `sqlcipher_export` leaves at its defaults, runs the integrity check on the
    /// pages the exporter still holds, sets the journal mode and detaches the result.
    private func finishAndCheck(_ exporter: Connection, like sourceSnapshot: DatabaseSnapshot, journalMode: String?) throws {
        let schema = Self.targetSchema
        try exporter.execute(sql: "PRAGMA \(schema).user_version = \(sourceSnapshot.userVersion)")
        try exporter.execute(sql: "PRAGMA \(schema).application_id = \(sourceSnapshot.applicationID)")
        // Before the journal mode changes: entering WAL mode could drop the cached pages.
        try DatabaseMaintenance.checkIntegrity(exporter, schema: schema)
        if let journalMode { try exporter.execute(sql: "PRAGMA \(schema).journal_mode = \(journalMode)") }
        try exporter.execute(sql: "DETACH DATABASE \(schema)")
    }

    /// Opens the written file on a fresh connection with the target key and compares it with
    /// the source, while another thread syncs it.
    private func verifyWrittenFile(_ temporaryPath: String, against sourceSnapshot: DatabaseSnapshot) throws -> VerificationReport {
        let expectedKind: DatabaseFileInfo.Kind = target.key == nil ? .plaintext : .encrypted
        let writtenKind = DatabaseFileInfo.inspect(path: temporaryPath).kind
        guard writtenKind == expectedKind else {
            throw ConversionError.verificationFailed(detail: "the result is \(writtenKind.rawValue), expected \(expectedKind.rawValue)")
        }
        let syncing = BackgroundWork { try FileSystem.sync(temporaryPath) }
        defer { syncing.wait() }
        let verification: VerificationReport
        do {
            let check = try Connection(path: temporaryPath, key: target.key,
                                       configuration: Configuration(cipher: target.cipher, foreignKeys: false))
            defer { try? check.close() }
            let resultSnapshot = try DatabaseSnapshot.capture(check)
            if let difference = sourceSnapshot.difference(from: resultSnapshot) {
                throw ConversionError.verificationFailed(detail: difference)
            }
            if options.fullReadBack { try DatabaseMaintenance.checkIntegrity(check) }
            verification = try DatabaseMaintenance.verificationReport(check, path: temporaryPath, snapshot: resultSnapshot)
        } catch let error as DatabaseError where [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode.primaryResultCode) {
            throw ConversionError.verificationFailed(detail: "reading the written file back: \(error.message ?? error.description)")
        }
        try syncing.value()
        return verification
    }

    /// Moves the verified file into place; returns the backup path, if any.
    private func replace(_ outputPath: String, with temporaryPath: String) throws -> String? {
        switch destination {
        case .file(_, let overwrite):
            if overwrite {
                // A journal or WAL of the replaced file must not be applied to the new one.
                for suffix in ["-journal", "-wal", "-shm"] { FileSystem.removeIfPresent(outputPath + suffix) }
                try FileSystem.rename(temporaryPath, to: outputPath)
            } else {
                // link() fails instead of replacing a file that appeared meanwhile.
                guard try FileSystem.link(temporaryPath, to: outputPath) else { throw ConversionError.outputExists(path: outputPath) }
                FileSystem.removeIfPresent(temporaryPath)
            }
            try FileSystem.syncDirectory(of: outputPath)
            return nil
        case .inPlace(let backup):
            if let backup {
                guard try FileSystem.link(sourcePath, to: backup) else { throw ConversionError.backupExists(path: backup) }
            }
            try FileSystem.rename(temporaryPath, to: sourcePath)
            try FileSystem.syncDirectory(of: sourcePath)
            return backup
        }
    }

    private func sourceBytes() -> Int64 {
        FileSystem.size(sourcePath) + FileSystem.size(sourcePath + "-wal")
    }

    private func checkCancelled() throws {
        if options.cancellation?.isCancelled == true { throw ConversionError.cancelled }
    }

    private func report(_ phase: ConversionProgress.Phase, written: Int64) {
        guard let progress = options.progress else { return }
        let fraction: Double
        switch phase {
        case .copying: fraction = 0
        case .verifying: fraction = 0.8
        case .replacing: fraction = 0.95
        case .done: fraction = 1
        }
        progress(ConversionProgress(phase: phase, bytesWritten: written, bytesTotal: sourceBytes(), fractionCompleted: fraction))
    }
}
