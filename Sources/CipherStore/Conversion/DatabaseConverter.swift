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
        if isInPlace {
            try checkInPlace()
            try FileSystem.checkOwnerCanBeKept(sourcePath)
        }
        let nowOnDisk = target.key == nil ? "'\(outputPath)' holds the verified, decrypted result: PLAINTEXT"
            : "'\(outputPath)' holds the verified, encrypted result; it opens with the new key"
        let write = try WholeFileWrite(
            output: outputPath, source: sourcePath, publication: publication, options: options, started: started,
            nowOnDisk: { nowOnDisk },
            previousState: isInPlace ? (source.key == nil ? "the plaintext original" : "the original, which opens with the old key") : nil,
            nextStep: "Check the disk (`dmesg`) and run `sync` once it is healthy; `cipherstore verify` tells which key opens the file.")

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
        let settled = converter
        let written: WholeFileWrite.Written<(VerificationReport, [String])>
        do {
            written = try write.run(
                fill: { file in try settled.export(into: file, journalMode: lock.wasWAL ? "wal" : nil) },
                verify: { exported, file in try settled.verifyWrittenFile(exported, in: file) })
        } catch let error as NotDurableError {
            replaced = true
            throw error
        }
        replaced = true
        let (verification, rowidsNotKept) = written.value
        return written.report(path: outputPath, verification: verification, rowidsNotKept: rowidsNotKept)
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

    /// Where the result goes: the new file, or the source itself.
    private var outputPath: String {
        if case .file(let path, _) = destination { return path }
        return sourcePath
    }

    private var publication: WholeFileWrite.Publication {
        switch destination {
        case .file(_, let overwrite): return .newName(overwrite: overwrite)
        case .inPlace(let backup, _): return .replacing(keepingLogs: false, backup: backup)
        }
    }

    /// Refuses, before anything is written, an in-place conversion that could not replace the
    /// source or keep its backup, or that would leave the old contents under another name.
    private func checkInPlace() throws {
        guard case .inPlace(let backup, let replacingOtherLinks) = destination else { return }
        let directory = FileSystem.directory(of: sourcePath)
        guard FileSystem.isWritableDirectory(directory) else {
            throw DatabaseFileError.sourceDirectoryNotWritable(path: directory)
        }
        let links = FileSystem.linkCount(sourcePath)
        if links > 1 && !replacingOtherLinks {
            throw DatabaseFileError.sourceHasOtherNames(path: sourcePath, nameCount: links,
                                                      namesFound: FileSystem.otherNamesInDirectory(of: sourcePath))
        }
        if let backup, FileSystem.exists(backup) { throw DatabaseFileError.backupExists(path: backup) }
    }

    /// - Parameter conversionIO: opens through the conversion VFS (batched writes to files
    ///   attached later, counted reads of the source).
    /// - Parameter readOnly: opens the source read-only.
    private func openSource(conversionIO: Bool = false, readOnly: Bool = false) throws -> Connection {
        var configuration = Configuration(cipher: source.cipher, readOnly: readOnly, busyTimeout: options.busyTimeout, foreignKeys: false)
        configuration.preparations = options.connectionPreparations
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

    /// What the fill step hands the verify step.
    struct Exported {
        /// What the result must match, read from the source.
        let sourceSnapshot: DatabaseSnapshot
        /// For a passphrase on SQLCipher 4, the key derived from it for the salt SQLCipher
        /// chose for the result (see ``verifyWrittenFile(_:in:)``).
        let derivedKey: DatabaseKey?
        /// The tables whose rowids could not be kept (see ``DatabaseExport``).
        let rowidsNotKept: [String]
    }

    /// Exports the source into the new file (the fill step of ``WholeFileWrite``).
    ///
    /// The integrity check runs on the exporting connection, before it lets go of the result:
    /// the pages it wrote are still in its cache (up to ``DatabaseFileOptions/pageCacheBytes``),
    /// so they are checked without being decrypted again; spilled pages are read back.
    /// Independent steps overlap on a second core: the source's row counts, and the stretching
    /// of a passphrase for the verifying connection, with the export.
    private func export(into file: WholeFileWrite.Context, journalMode: String?) throws -> Exported {
        let exporter = try openSource(conversionIO: true)
        defer { try? exporter.close() }
        let converter = self
        let sourceCapture = BackgroundWork { try converter.captureSource() }
        defer { sourceCapture.wait() }
        let (derivedTargetKey, rowidsNotKept) = try export(exporter, into: file)
        defer { derivedTargetKey?.wait() }
        let sourceSnapshot = try sourceCapture.value()
        try finishAndCheck(exporter, like: sourceSnapshot, journalMode: journalMode)
        file.report(.verifying, fraction: DatabaseFileProgress.ConversionShare.checked, written: FileSystem.size(file.temporaryPath), total: sourceBytes())
        // A failed stretching only costs the verifying connection one of its own.
        let derivedKey = (try? derivedTargetKey?.value()) ?? nil
        return Exported(sourceSnapshot: sourceSnapshot, derivedKey: derivedKey, rowidsNotKept: rowidsNotKept)
    }

    /// Attaches `temporaryPath` to `exporter` with the target key and settings and copies the
    /// source into it with ``DatabaseExport``, reporting progress.
    ///
    /// - Returns: for a passphrase on SQLCipher 4 (which reports the salt it chose for the
    ///   result), the key derived from it for that salt, computed on another thread during
    ///   the copy, for the verifying connection; and the tables whose rowids could not be kept.
    private func export(_ exporter: Connection, into file: WholeFileWrite.Context) throws -> (BackgroundWork<DatabaseKey?>?, [String]) {
        let temporaryPath = file.temporaryPath
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
        // Pages that fit are written once, in order, at the commit.
        try options.applyPageCache(to: exporter, schema: schema)

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
        } catch let error as DatabaseError where [Self.uniqueConstraintFailed, Self.primaryKeyConstraintFailed].contains(error.resultCode) {
            throw DatabaseFileError.keysNotUnique(path: sourcePath, detail: error.message ?? error.description)
        } catch let error as DatabaseError where error.missingCollationName != nil {
            // An index or key under the app's own collation, which the copy must build in its order.
            throw DatabaseFileError.missingCollation(path: sourcePath, collation: error.missingCollationName ?? "")
        } catch let error as DatabaseError {
            // A full disk or a failed write comes back as a generic error.
            throw DatabaseFileError.io(operation: "writing the converted database", path: temporaryPath,
                                     reason: error.message ?? error.description)
        }
        try file.checkCancelled()
        file.report(.verifying, fraction: DatabaseFileProgress.ConversionShare.copied, written: FileSystem.size(temporaryPath), total: sourceBytes())
        return (derivedKey, rowidsNotKept)
    }

    /// Sets what `sqlcipher_export` leaves at its defaults, runs the integrity check on the
    /// pages the exporter still holds, sets the journal mode and detaches the result.
    private func finishAndCheck(_ exporter: Connection, like sourceSnapshot: DatabaseSnapshot, journalMode: String?) throws {
        let schema = Self.targetSchema
        try exporter.execute(sql: "PRAGMA \(schema).user_version = \(sourceSnapshot.userVersion)")
        try exporter.execute(sql: "PRAGMA \(schema).application_id = \(sourceSnapshot.applicationID)")
        // Before the journal mode changes: entering WAL mode could drop the cached pages.
        do {
            try DatabaseFile.checkIntegrity(exporter, schema: schema)
        } catch DatabaseFileError.verificationFailed(let detail) where detail.contains("non-unique entry in index") {
            // Index entries copied from the source's index, unique there, equal here.
            throw DatabaseFileError.keysNotUnique(path: sourcePath, detail: detail)
        }
        if let journalMode { try exporter.execute(sql: "PRAGMA \(schema).journal_mode = \(journalMode)") }
        try exporter.execute(sql: "DETACH DATABASE \(schema)")
    }

    /// Opens the written file on a fresh connection with the target key and compares it with
    /// the source (the verify step of ``WholeFileWrite``), and with
    /// ``DatabaseFileOptions/fullReadBack`` runs the integrity check again on the file.
    ///
    /// With a derived key (a passphrase stretched here, for the salt SQLCipher chose), the
    /// connection opens with that key first: it opens only if it is the very key SQLCipher
    /// derived from the passphrase when it wrote the file (the first page's HMAC), so the
    /// passphrase opens the file too, and the open costs no second stretching. If it does not
    /// open, the passphrase is used.
    /// - Returns: the verification and the tables whose rowids could not be kept, and the
    ///   result's schema copy.
    private func verifyWrittenFile(_ exported: Exported, in file: WholeFileWrite.Context)
        throws -> ((VerificationReport, [String]), SchemaCopy.Pending?) {
        let temporaryPath = file.temporaryPath
        let sourceSnapshot = exported.sourceSnapshot
        let expectedKind: DatabaseFileInfo.Kind = target.key == nil ? .plaintext : .encrypted
        let writtenKind = DatabaseFileInfo.inspect(path: temporaryPath).kind
        guard writtenKind == expectedKind else {
            throw DatabaseFileError.verificationFailed(detail: "the result is \(writtenKind.rawValue), expected \(expectedKind.rawValue)")
        }
        let verification: VerificationReport
        var schema: SchemaCopy.Pending?
        do {
            var configuration = Configuration(cipher: target.key == nil ? .libraryDefaults : target.cipher, foreignKeys: false)
            configuration.preparations = options.connectionPreparations
            // Through the counting VFS: the reads below are the verification's progress.
            configuration.vfsName = try ConversionIO.vfsName()
            var checkKey = target.key
            // A large file gets a second reader (below): a passphrase is stretched once, here, for
            // both, when SQLCipher did not report the result's salt (SQLCipher 3) to do it earlier.
            let bytes = FileSystem.size(temporaryPath)
            let derivedKey = exported.derivedKey ?? target.key.flatMap { key in
                key.kind == .passphrase && bytes >= DatabaseSnapshot.secondReaderMinimumBytes
                    ? (try? SharedKeyDerivation.rawKeyWithSalt(for: key, path: temporaryPath, cipher: target.cipher)) ?? nil : nil
            }
            let check = try derivedKey.flatMap { key in
                (try? Connection(path: temporaryPath, key: key, configuration: configuration)).map { checkKey = key; return $0 }
            } ?? Connection(path: temporaryPath, key: target.key, configuration: configuration)
            defer { try? check.close() }
            // The row counts read the file about once; a full read-back reads it once more.
            var resultSnapshot: DatabaseSnapshot?
            let (readerKey, readerConfiguration) = (checkKey, configuration)
            try ReadProgressPoller.observe(check, expectedBytes: bytes * (options.fullReadBack ? 2 : 1), totalBytes: bytes,
                                           options: options, phase: .verifying,
                                           span: DatabaseFileProgress.ConversionShare.checked...DatabaseFileProgress.ConversionShare.compared) { otherReads in
                // A large file's tables are read in halves, the upper ones on a second connection
                // (the file is this conversion's own): its reads count toward the progress too.
                let secondReader: DatabaseSnapshot.SecondReader = { body in
                    let reader = try Connection(path: temporaryPath, key: readerKey, configuration: readerConfiguration)
                    defer { try? reader.close() }
                    try otherReads.map { try $0.counting(reader) { try body(reader) } } ?? body(reader)
                }
                let snapshot = try DatabaseSnapshot.capture(check, comparingContent: true,
                                                            upperHalves: bytes >= DatabaseSnapshot.secondReaderMinimumBytes ? secondReader : nil)
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
        return ((verification, exported.rowidsNotKept), schema)
    }

    /// `SQLITE_CONSTRAINT_UNIQUE` and `SQLITE_CONSTRAINT_PRIMARYKEY`: keys that are not unique.
    private static let uniqueConstraintFailed = ResultCode(rawValue: 19 | (8 << 8))
    private static let primaryKeyConstraintFailed = ResultCode(rawValue: 19 | (6 << 8))

    private func sourceBytes() -> Int64 {
        FileSystem.size(sourcePath) + FileSystem.size(sourcePath + "-wal")
    }
}
