import CSQLCipher
import Foundation

/// One encrypt, decrypt or key change: copy (``DatabaseExport``, rowids kept) into a temporary file,
/// verify, sync, and move into place. See ``DatabaseFile`` for the guarantees.
struct DatabaseConverter: Sendable {
    /// A key and the cipher settings that go with it; no key means plaintext.
    struct Side: Sendable {
        let key: DatabaseKey?
        let cipher: CipherSettings
    }

    let sourcePath: String
    private(set) var source: Side
    private(set) var target: Side
    let destination: OutputDestination
    let options: DatabaseFileOptions

    /// The attached name of the output inside the exporting connection.
    static let targetSchema = "cipherstore_target"

    /// - Parameter sourcePath: replaced in place, a symbolic link is followed to the file it
    ///   names: that file is what holds the data.
    init(sourcePath: String, source: Side, target: Side, destination: OutputDestination, options: DatabaseFileOptions) throws {
        if case .inPlace = destination, FileSystem.isSymbolicLink(sourcePath) {
            guard let resolved = FileSystem.resolvingLinks(sourcePath) else { throw DatabaseFileError.sourceMissing(path: sourcePath) }
            self.sourcePath = resolved
        } else {
            self.sourcePath = sourcePath
        }
        self.source = source
        self.target = target
        self.destination = destination
        self.options = options
    }

    func run() throws -> DatabaseFileReport {
        let started = Date()
        // Before any file is touched: SQLCipher 3.4.1 overruns a heap buffer when given a page
        // size that is not a power of two.
        try source.cipher.validate()
        try target.cipher.validate()
        if source.cipher.hasOwnSaltMask && isInPlace {
            throw CipherStoreError.invalidConfiguration(reason: "a file with an HMAC salt mask other than 0x3a (SQLCipher 2.0.0) opens read-only only, so it cannot be converted in place. Convert it into a new file, then replace the old one with it.")
        }
        try checkSource()
        let outputPath = try resolveOutput()
        if isInPlace { try FileSystem.checkOwnerCanBeKept(sourcePath) }
        let removedLeftovers = TemporaryFiles.removeLeftovers(for: outputPath)
        try checkCancelled()

        // Keeps writers out from the first read to the final rename (see SourceLock). The
        // source's connections (the lock's, the exporter's, the snapshot's) share one
        // stretching of a passphrase; when the key derived here does not open the file (other
        // KDF settings than the ones assumed, or a wrong passphrase), the passphrase is used.
        var converter = self
        let derivedSourceKey = try source.key.flatMap {
            try SharedKeyDerivation.rawKeyWithSalt(for: $0, path: sourcePath, cipher: source.cipher)
        }
        if let derivedSourceKey { converter.source = Side(key: derivedSourceKey, cipher: source.cipher) }
        let readOnlySource = source.cipher.hasOwnSaltMask
        func lockSource(_ converter: DatabaseConverter) throws -> SourceLock {
            try SourceLock(path: sourcePath, forReplacement: isInPlace, readOnly: readOnlySource) { readOnly in try converter.openSource(readOnly: readOnly) }
        }
        let lock: SourceLock
        do {
            lock = try lockSource(converter)
        } catch CipherStoreError.wrongKey where derivedSourceKey != nil {
            converter.source = source
            lock = try lockSource(converter)
        }
        var replaced = false
        defer { lock.release(restoring: !replaced) }
        try DatabaseFile.checkWholePages(lock.connection, path: sourcePath)
        converter.target = Side(key: target.key, cipher: try converter.settledTargetCipher(lock.connection))

        let temporaryPath = TemporaryFiles.path(for: outputPath)
        do {
            try FileSystem.createOwnerOnlyFile(temporaryPath)
            // The result replaces the original for whoever used it: same owner, group and mode.
            if isInPlace { try FileSystem.copyOwnerAndMode(from: sourcePath, to: temporaryPath) }
            let (verification, schemaCopy, rowidsNotKept) = try converter.copyAndVerify(into: temporaryPath, journalMode: lock.wasWAL ? "wal" : nil)
            try checkCancelled()
            report(.replacing, written: FileSystem.size(temporaryPath))
            // The last moment to stop: after the rename the result is in place.
            try checkCancelled()
            var sideFiles = DatabaseSideFiles.Cleared()
            if isInPlace {
                // A journal kept by PERSIST or TRUNCATE mode holds old pages — plaintext, for an
                // encryption. It is not hot (the lock's first read would have rolled it back) and
                // nobody else can write to it while the lock is held. A log beside the source
                // was checkpointed when the lock left WAL mode.
                sideFiles = try DatabaseSideFiles.clear(beside: sourcePath, keepingLogs: false)
            }
            // Opened before the rename, while its name still leads to it (see ReplacedFile).
            let replacedFile = isInPlace ? try ReplacedFile(path: sourcePath) : nil
            let result = FileSystem.identity(temporaryPath)
            let backupPath: String?
            do {
                (backupPath, sideFiles) = try replace(outputPath, with: temporaryPath, sideFiles: sideFiles)
            } catch {
                // What to report is read from the disk: once the output's name leads to the
                // result, the conversion happened, whichever step failed after it.
                guard DurableReplacement.holds(outputPath, identity: result) else {
                    replacedFile?.close()
                    throw error
                }
                replaced = true
                replacedFile?.retire()
                throw notDurable(outputPath, failure: (error as? DurableReplacement.Unsynced)?.failure ?? "\(error)")
            }
            replaced = true
            replacedFile?.retire()
            let schemaCopyPath = SchemaCopy.publish(schemaCopy, forDatabase: outputPath)
            let bytes = FileSystem.size(outputPath)
            report(.done, written: bytes)
            return DatabaseFileReport(
                outputPath: outputPath, backupPath: backupPath, removedLeftovers: removedLeftovers,
                verification: verification.at(path: outputPath),
                outputBytes: bytes, seconds: Date().timeIntervalSince(started), schemaCopyPath: schemaCopyPath,
                removedSideFiles: sideFiles.removed, sideFilesMovedAside: sideFiles.movedAside.map(\.to), rowidsNotKept: rowidsNotKept)
        } catch {
            FileSystem.removeDatabaseFiles(temporaryPath)
            throw error
        }
    }

    /// The result's cipher settings. A key change and a decryption read an encrypted file and
    /// keep what it has: each setting the caller left `nil` is the source's (page size, KDF
    /// iterations, HMAC use; for a plaintext result only the page size counts). An encryption
    /// makes a new encrypted file: each setting left `nil` is the linked SQLCipher's default,
    /// so that the result opens with its key alone, in the `sqlcipher` shell and with
    /// ``CipherSettings/libraryDefaults``, whatever page size the plaintext source had. A
    /// result with a plaintext header gets a salt (see below).
    private func settledTargetCipher(_ sourceConnection: Connection) throws -> CipherSettings {
        let inSource = try CipherSettings.inUse(by: sourceConnection, encrypted: source.key != nil)
        if target.key == nil {
            return target.cipher.filling(from: CipherSettings(pageSize: inSource.pageSize))
        }
        var settled = source.key == nil ? target.cipher : target.cipher.filling(from: inSource)
        if (settled.plaintextHeaderSize ?? 0) > 0 && settled.salt == nil {
            // The result will not hold its salt where SQLCipher reads it: choose it here, so the
            // verifying connection can open the result and the report can name it. An encrypted
            // source's salt is kept (read from the file, or the one it was opened with), so an
            // app that stores it needs nothing new; otherwise a random one.
            settled.salt = try CipherSettings.salt(in: sourceConnection) ?? SecureRandom.bytes(16)
        }
        return settled
    }

    private var isInPlace: Bool {
        if case .inPlace = destination { return true }
        return false
    }

    // MARK: Steps

    private func checkSource() throws {
        try DatabaseFile.checkExistingDatabaseFile(sourcePath)
        let info = DatabaseFileInfo.inspect(path: sourcePath)
        switch info.kind {
        case .missing, .directory, .notARegularFile, .empty:
            // Refused above; a file that changed kind since is refused as what it is now.
            try DatabaseFile.checkExistingDatabaseFile(sourcePath)
        case .unreadable: throw FileSystem.ioError("read", sourcePath)
        case .notADatabase:
            throw CipherStoreError.notADatabase(path: sourcePath, detail: info.kindDescription + ", \(info.size) bytes")
        case .plaintext where source.key != nil && target.key == nil:
            throw DatabaseFileError.alreadyPlaintext(path: sourcePath)
        case .plaintext where source.key != nil:
            throw CipherStoreError.notEncrypted(path: sourcePath)
        case .encrypted where source.key == nil:
            throw DatabaseFileError.alreadyEncrypted(path: sourcePath)
        case .plaintext, .encrypted:
            break
        }
    }

    private func resolveOutput() throws -> String {
        switch destination {
        case .file(let path, let overwrite):
            try OutputDestination.checkNewFile(path, source: sourcePath, overwrite: overwrite)
            return path
        case .inPlace(let backup, let replacingOtherLinks):
            let directory = FileSystem.directory(of: sourcePath)
            guard FileSystem.isWritableDirectory(directory) else {
                throw DatabaseFileError.outputDirectoryUnusable(path: directory)
            }
            let links = FileSystem.linkCount(sourcePath)
            if links > 1 && !replacingOtherLinks {
                throw DatabaseFileError.sourceHasOtherNames(path: sourcePath, nameCount: links,
                                                          namesFound: FileSystem.otherNamesInDirectory(of: sourcePath))
            }
            if let backup, FileSystem.exists(backup) { throw DatabaseFileError.backupExists(path: backup) }
            return sourcePath
        }
    }

    /// - Parameter conversionIO: opens through the conversion VFS (batched writes to files
    ///   attached later, counted reads of the source).
    /// - Parameter readOnly: opens the source read-only.
    private func openSource(conversionIO: Bool = false, readOnly: Bool = false) throws -> Connection {
        var configuration = Configuration(cipher: source.cipher, readOnly: readOnly, busyTimeout: options.busyTimeout, foreignKeys: false)
        if conversionIO {
            configuration.vfsName = try ConversionIO.vfsName()
            // The exporter writes only to the file it attaches; its source stays read-only.
            configuration.readOnlyMainDatabase = true
        }
        do {
            return try Connection(path: sourcePath, key: source.key, configuration: configuration)
        } catch let error as DatabaseError where error.resultCode.primaryResultCode == .SQLITE_CORRUPT {
            throw DatabaseFileError.openingFailed(path: sourcePath, error)
        } catch ResultCode.SQLITE_BUSY {
            throw DatabaseFileError.databaseInUse(path: sourcePath, detail: "locked by another connection")
        }
    }

    /// What the result must match, read on a connection of its own.
    private func captureSource() throws -> DatabaseSnapshot {
        let db = try openSource(readOnly: true)
        defer { try? db.close() }
        return try DatabaseSnapshot.capture(db, comparingContent: true)
    }

    /// Exports the source into `temporaryPath`, checks the result against the source and
    /// syncs it.
    ///
    /// The integrity check runs on the exporting connection, before it lets go of the result:
    /// the pages it wrote are still in its cache (up to ``DatabaseFileOptions/pageCacheBytes``),
    /// so they are checked without being decrypted again; spilled pages are read back. A fresh
    /// connection then opens the file with the target key and compares it with the source,
    /// and with ``DatabaseFileOptions/fullReadBack`` runs the integrity check again on the file.
    /// Independent steps overlap on a second core: the source's row counts with the export,
    /// the sync with the fresh connection's reads.
    /// - Returns: the verification, the result's schema copy, and the tables whose rowids could
    ///   not be kept (see ``DatabaseExport``).
    private func copyAndVerify(into temporaryPath: String, journalMode: String?) throws -> (VerificationReport, SchemaCopy.Pending?, [String]) {
        let exporter = try openSource(conversionIO: true)
        defer { try? exporter.close() }
        let converter = self
        let sourceCapture = BackgroundWork { try converter.captureSource() }
        defer { sourceCapture.wait() }
        let (derivedTargetKey, rowidsNotKept) = try export(exporter, into: temporaryPath)
        defer { derivedTargetKey?.wait() }
        let sourceSnapshot = try sourceCapture.value()
        try finishAndCheck(exporter, like: sourceSnapshot, journalMode: journalMode)
        let (verification, schemaCopy) = try verifyWrittenFile(temporaryPath, against: sourceSnapshot, derivedKey: derivedTargetKey)
        return (verification, schemaCopy, rowidsNotKept)
    }

    /// Attaches `temporaryPath` to `exporter` with the target key and settings and copies the
    /// source into it with ``DatabaseExport``, reporting progress.
    ///
    /// - Returns: for a passphrase on SQLCipher 4 (which reports the salt it chose for the
    ///   result), the key derived from it for that salt, computed on another thread during
    ///   the copy, for the verifying connection (see ``verifyWrittenFile(_:against:derivedKey:)``);
    ///   and the tables whose rowids could not be kept.
    private func export(_ exporter: Connection, into temporaryPath: String) throws -> (BackgroundWork<DatabaseKey?>?, [String]) {
        let autoVacuum = try exporter.fetchScalar(Int.self, sql: "PRAGMA main.auto_vacuum") ?? 0
        let schema = Self.targetSchema
        // With a keyed main database, ATTACH without KEY would reuse the main key: an empty
        // KEY makes the target plaintext. The target's own key goes through sqlite3_key_v2.
        let plaintextClause = (target.key == nil && source.key != nil) ? " KEY ''" : ""
        try exporter.execute(sql: "ATTACH DATABASE ? AS \(schema)\(plaintextClause)", arguments: [DatabaseLocation.sqliteFilePath(temporaryPath)])
        var derivedKey: BackgroundWork<DatabaseKey?>?
        if let key = target.key {
            try key.withKeyBytes { bytes in
                try exporter.handle.check(sqlite3_key_v2(exporter.handle.pointer, schema, bytes.baseAddress, Int32(bytes.count)))
            }
            try exporter.applyCipherSettings(target.cipher, database: schema)
            if key.kind == .passphrase, let salt = try CipherSettings.salt(in: exporter, schema: schema) {
                let cipher = target.cipher
                derivedKey = BackgroundWork { try SharedKeyDerivation.rawKeyWithSalt(for: key, salt: salt, cipher: cipher) }
            }
        } else if let pageSize = target.cipher.pageSize {
            // Validated as a power of two from 512 to 65536.
            try exporter.execute(sql: "PRAGMA \(schema).page_size = \(pageSize)")
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
        var rowidsNotKept: [String] = []
        do {
            try progress.observe(exporter) {
                rowidsNotKept = try DatabaseExport(connection: exporter, target: schema).run()
            }
        } catch let error as DatabaseError where error.missingFunctionName != nil {
            // An index on an expression or a CHECK constraint the rewrite would compute.
            throw DatabaseFileError.missingFunction(path: sourcePath, function: error.missingFunctionName ?? "")
        } catch let error as DatabaseError {
            // A full disk or a failed write comes back as a generic error.
            throw DatabaseFileError.io(operation: "writing the converted database", path: temporaryPath,
                                     reason: error.message ?? error.description)
        }
        try checkCancelled()
        report(.verifying, written: FileSystem.size(temporaryPath))
        return (derivedKey, rowidsNotKept)
    }

    /// Sets what `sqlcipher_export` leaves at its defaults, runs the integrity check on the
    /// pages the exporter still holds, sets the journal mode and detaches the result.
    private func finishAndCheck(_ exporter: Connection, like sourceSnapshot: DatabaseSnapshot, journalMode: String?) throws {
        let schema = Self.targetSchema
        try exporter.execute(sql: "PRAGMA \(schema).user_version = \(sourceSnapshot.userVersion)")
        try exporter.execute(sql: "PRAGMA \(schema).application_id = \(sourceSnapshot.applicationID)")
        // Before the journal mode changes: entering WAL mode could drop the cached pages.
        try DatabaseFile.checkIntegrity(exporter, schema: schema)
        if let journalMode { try exporter.execute(sql: "PRAGMA \(schema).journal_mode = \(journalMode)") }
        try exporter.execute(sql: "DETACH DATABASE \(schema)")
    }

    /// Opens the written file on a fresh connection with the target key and compares it with
    /// the source, while another thread syncs it.
    ///
    /// With `derivedKey` (a passphrase stretched here, for the salt SQLCipher chose), the
    /// connection opens with that key first: it opens only if it is the very key SQLCipher
    /// derived from the passphrase when it wrote the file (the first page's HMAC), so the
    /// passphrase opens the file too, and the open costs no second stretching. If it does not
    /// open, the passphrase is used.
    private func verifyWrittenFile(_ temporaryPath: String, against sourceSnapshot: DatabaseSnapshot,
                                   derivedKey: BackgroundWork<DatabaseKey?>?) throws -> (VerificationReport, SchemaCopy.Pending?) {
        let expectedKind: DatabaseFileInfo.Kind = target.key == nil ? .plaintext : .encrypted
        let writtenKind = DatabaseFileInfo.inspect(path: temporaryPath).kind
        guard writtenKind == expectedKind else {
            throw DatabaseFileError.verificationFailed(detail: "the result is \(writtenKind.rawValue), expected \(expectedKind.rawValue)")
        }
        let syncing = BackgroundWork { try FileSystem.sync(temporaryPath) }
        defer { syncing.wait() }
        let verification: VerificationReport
        var schema: SchemaCopy.Pending?
        do {
            var configuration = Configuration(cipher: target.key == nil ? .libraryDefaults : target.cipher, foreignKeys: false)
            // Through the counting VFS: the reads below are the verification's progress.
            configuration.vfsName = try ConversionIO.vfsName()
            var checkKey = target.key
            let check = try (try? derivedKey?.value()).flatMap { key in
                (try? Connection(path: temporaryPath, key: key, configuration: configuration)).map { checkKey = key; return $0 }
            } ?? Connection(path: temporaryPath, key: target.key, configuration: configuration)
            defer { try? check.close() }
            // The row counts read the file about once; a full read-back reads it once more.
            let bytes = FileSystem.size(temporaryPath)
            var resultSnapshot: DatabaseSnapshot?
            try ReadProgressPoller.observe(check, expectedBytes: bytes * (options.fullReadBack ? 2 : 1), totalBytes: bytes,
                                           options: options, phase: .verifying, span: 0.8...0.94) {
                let snapshot = try DatabaseSnapshot.capture(check, comparingContent: true)
                if let difference = sourceSnapshot.difference(from: snapshot) {
                    throw DatabaseFileError.verificationFailed(detail: difference)
                }
                if options.fullReadBack { try DatabaseFile.checkIntegrity(check) }
                resultSnapshot = snapshot
            }
            guard let resultSnapshot else { throw DatabaseFileError.cancelled }
            verification = try DatabaseFile.verificationReport(check, path: temporaryPath, snapshot: resultSnapshot)
            if let checkKey {
                schema = SchemaCopy.Pending(copy: try SchemaCopy.capture(check, counting: false, rowCounts: resultSnapshot.rowCounts),
                                            key: checkKey, cipher: target.cipher)
            }
        } catch let error as DatabaseError where CorruptionWatch.isDamage(error) {
            throw DatabaseFileError.verificationFailed(detail: "reading the written file back: \(error.message ?? error.description)")
        }
        try syncing.value()
        return (verification, schema)
    }

    /// Moves the verified file into place; returns the backup path, if any, and what was done
    /// with side files (`sideFiles`, those cleared before, or those beside a new output's name).
    ///
    /// - Throws: ``DurableReplacement/Unsynced`` when the result took the name but the
    ///   directory sync failed; any other error leaves the output's name as it was (a backup
    ///   link made for it is removed again).
    private func replace(_ outputPath: String, with temporaryPath: String,
                         sideFiles: DatabaseSideFiles.Cleared) throws -> (backup: String?, sideFiles: DatabaseSideFiles.Cleared) {
        switch destination {
        case .file(_, let overwrite):
            return (nil, try OutputDestination.publish(temporaryPath, as: outputPath, overwrite: overwrite))
        case .inPlace(let backup, _):
            let source = FileSystem.identity(sourcePath)
            if let backup {
                guard try FileSystem.link(sourcePath, to: backup) else { throw DatabaseFileError.backupExists(path: backup) }
            }
            do {
                // The backup's name must survive a power cut as surely as the result's.
                if let backup, FileSystem.directory(of: backup) != FileSystem.directory(of: sourcePath) {
                    try FileSystem.syncDirectory(of: backup)
                }
                try DurableReplacement.rename(temporaryPath, over: sourcePath)
            } catch {
                if let backup, DurableReplacement.holds(sourcePath, identity: source) { FileSystem.removeIfPresent(backup) }
                throw error
            }
            return (backup, sideFiles)
        }
    }

    /// The error of a conversion whose result took the output's name but whose directory sync
    /// failed: it says what the name holds now and what a power cut could bring back.
    private func notDurable(_ outputPath: String, failure: String) -> NotDurableError {
        let now = target.key == nil
            ? "'\(outputPath)' holds the verified, decrypted result: PLAINTEXT"
            : "'\(outputPath)' holds the verified, encrypted result; it opens with the new key"
        let previous: String
        switch destination {
        case .inPlace: previous = source.key == nil ? "the plaintext original" : "the original, which opens with the old key"
        case .file(_, let overwrite): previous = overwrite ? "the file '\(outputPath)' held before" : "a missing '\(outputPath)'"
        }
        return NotDurableError(path: outputPath, failure: failure, nowOnDisk: now, previousState: previous,
                               nextStep: "Check the disk (`dmesg`) and run `sync` once it is healthy; `cipherstore verify` tells which key opens the file.")
    }

    private func sourceBytes() -> Int64 {
        FileSystem.size(sourcePath) + FileSystem.size(sourcePath + "-wal")
    }

    private func checkCancelled() throws {
        if options.cancellation?.isCancelled == true { throw DatabaseFileError.cancelled }
    }

    private func report(_ phase: DatabaseFileProgress.Phase, written: Int64) {
        guard let progress = options.progress else { return }
        let fraction: Double
        switch phase {
        case .copying: fraction = 0
        case .verifying: fraction = 0.8
        case .replacing: fraction = 0.95
        case .done: fraction = 1
        }
        progress(DatabaseFileProgress(phase: phase, bytesWritten: written, bytesTotal: sourceBytes(), fractionCompleted: fraction))
    }
}
