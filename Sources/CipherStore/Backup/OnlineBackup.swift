import CSQLCipher
import Foundation

/// One backup: the pages of a source connection's snapshot copied with SQLite's backup API
/// into a new encrypted file, verified, synced and given its name.
///
/// The source connection is in a read transaction for the whole copy, so the copy holds
/// exactly one committed state: in WAL mode other connections keep committing meanwhile; in
/// rollback-journal mode they cannot commit until the backup ends (the read lock is held).
/// The backup API decrypts each page with the source's key and encrypts it with the copy's,
/// so the copy keeps the source's page size and cipher settings; SQLCipher allows it only
/// between two encrypted (or two plaintext) databases.
struct OnlineBackup {
    /// Connected to the source, inside a read transaction that lasts the whole backup.
    let source: Connection
    /// The source's file, when it has one: never the output, and the slot file beside it is
    /// copied along when the copy has the same data key (see ``copySlotFile(to:copySalt:)``).
    let sourcePath: String?
    let outputPath: String
    let overwrite: Bool
    let key: DatabaseKey?
    let options: DatabaseFileOptions

    func run() throws -> DatabaseFileReport {
        let backup = self
        let write = try WholeFileWrite(
            output: outputPath, source: sourcePath,
            publication: .newNameWithSlotFile(overwrite: overwrite, writeSlotFile: { temporaryPath in
                try backup.copySlotFile(to: backup.outputPath, copySalt: DatabaseFileInfo.salt(of: temporaryPath))
            }),
            options: options, started: Date(), nowOnDisk: { "'\(backup.outputPath)' holds the verified backup" },
            nextStep: "Check the disk (`dmesg`) and run `sync` once it is healthy, or take the backup again.")
        let written = try write.run(fill: copy(into:), verify: verify(_:in:))
        return written.report(path: outputPath, verification: written.value)
    }

    /// What the copy must match, and what its check needs.
    struct Copied {
        /// The source's state, read inside the same transaction as the pages.
        let snapshot: DatabaseSnapshot
        /// The copy's cipher settings.
        let cipher: CipherSettings
        /// The collations the copy's integrity check replaced by stand-ins.
        let placeholderCollations: [String]
        /// The functions the copy's integrity check lacked (see ``DatabaseFile/checkIntegrity(_:schema:namingAppCollationsFor:)``).
        let functionsNotChecked: [String]
        /// The source as messages name it.
        let sourceName: String
    }

    /// Copies the source's snapshot into the new file and checks the pages it wrote (the fill
    /// step of ``WholeFileWrite``); ``verify(_:in:)`` then compares it with the snapshot.
    func copy(into file: WholeFileWrite.Context) throws -> Copied {
        if source.isEncrypted && key == nil { throw BackupError.plaintextRefused }
        if !source.isEncrypted && key != nil { throw BackupError.sourceNotEncrypted(path: source.location.displayName) }
        let inUse = try CipherSettings.inUse(by: source, encrypted: source.isEncrypted)
        // A plaintext copy is opened without cipher settings (its page size comes with the pages).
        var cipher = source.isEncrypted ? inUse : .libraryDefaults
        if (cipher.plaintextHeaderSize ?? 0) > 0 { cipher.salt = try CipherSettings.salt(in: source) }
        let sourceName = sourcePath ?? source.location.displayName
        // Read inside the same transaction as the pages: what the copy must match.
        let snapshot = try DatabaseFile.reportingDamage(path: sourceName) { try DatabaseSnapshot.capture(source, comparingContent: true) }
        let (standIns, notChecked) = try copyPages(into: file, cipher: cipher, pageSize: inUse.pageSize ?? 4096, sourceName: sourceName)
        file.report(.verifying, fraction: 0.8, written: FileSystem.size(file.temporaryPath))
        return Copied(snapshot: snapshot, cipher: cipher, placeholderCollations: standIns, functionsNotChecked: notChecked, sourceName: sourceName)
    }

    /// Copies every page of the source's snapshot into `temporaryPath`, a few MiB per step,
    /// checking for cancellation between steps.
    /// - Returns: the collations the copy's integrity check replaced by stand-ins, and the
    ///   functions it lacked (see ``DatabaseFile/checkIntegrity(_:schema:namingAppCollationsFor:)``).
    private func copyPages(into file: WholeFileWrite.Context, cipher: CipherSettings, pageSize sourcePageSize: Int,
                           sourceName: String) throws -> (standIns: [String], functionsNotChecked: [String]) {
        let temporaryPath = file.temporaryPath
        let destination = try openCopy(temporaryPath, cipher: cipher)
        defer { try? destination.close() }
        // A temporary file, synced once before it takes its name: no journal, no syncs.
        try destination.execute(sql: "PRAGMA journal_mode = OFF")
        try destination.execute(sql: "PRAGMA synchronous = OFF")
        let pageSize = max(sourcePageSize, 512)
        let pagesPerStep = Int32(max(64, (4 << 20) / pageSize))
        guard let backup = sqlite3_backup_init(try destination.handle.pointer, "main", try source.handle.pointer, "main") else {
            let error = destination.handle.error(sqlite3_errcode(try destination.handle.pointer), sql: nil)
            throw BackupError.copyFailed(path: temporaryPath, reason: error.message ?? error.description)
        }
        var code: Int32 = SQLITE_OK
        while true {
            code = sqlite3_backup_step(backup, pagesPerStep)
            guard code == SQLITE_OK else { break }
            let total = Int64(sqlite3_backup_pagecount(backup))
            let done = total - Int64(sqlite3_backup_remaining(backup))
            file.report(.copying, fraction: total > 0 ? 0.8 * Double(done) / Double(total) : 0,
                        written: done * Int64(pageSize), total: total * Int64(pageSize))
            if file.isCancelled { break }
        }
        let finished = sqlite3_backup_finish(backup)
        try file.checkCancelled()
        guard code == SQLITE_DONE, finished == SQLITE_OK else {
            let error = destination.handle.error(code == SQLITE_DONE ? finished : code, sql: nil)
            // A page of the source that does not read is the source's damage, not the copy's.
            if CorruptionWatch.isDamage(error) {
                throw DatabaseFileError.damaged(path: sourceName, detail: "SQLite stopped reading it: \(error.message ?? error.description)")
            }
            throw BackupError.copyFailed(path: temporaryPath, reason: error.message ?? error.description)
        }
        // The pages the copy still holds in its cache are checked without reading them again.
        // The copy holds the source's pages: what its check finds, the source has.
        let notChecked = try DatabaseFile.checkIntegrity(destination, namingAppCollationsFor: sourceName)
        return (destination.placeholderCollations, notChecked)
    }

    /// Opens the copy with the source's functions and collations (those an app added: its
    /// indexes and constraints may use them) and those of the options' `prepareDatabase`, and
    /// stand-ins in binary order for collations none has, so that the copy can be checked
    /// whatever its schema names.
    private func openCopy(_ temporaryPath: String, cipher: CipherSettings) throws -> Connection {
        try Self.openCopy(temporaryPath, key: key, cipher: cipher, functions: source.addedFunctions,
                          collations: source.addedCollations, options: options, keepingPages: true)
    }

    /// ``openCopy(_:cipher:)`` with what it takes from the source given: callable on another
    /// thread. A second reader does not keep pages (it reads each once): SQLite's default cache.
    private static func openCopy(_ temporaryPath: String, key: DatabaseKey?, cipher: CipherSettings, functions: [DatabaseFunction],
                                 collations: [DatabaseCollation], options: DatabaseFileOptions, keepingPages: Bool) throws -> Connection {
        let copy = try Connection(path: temporaryPath, key: key, configuration: Configuration(cipher: cipher, foreignKeys: false))
        do {
            try copy.substituteMissingCollations()
            for function in functions { try copy.add(function: function) }
            for collation in collations { try copy.add(collation: collation) }
            try options.prepare(copy)
            // The copy's pages stay in memory for its integrity check, up to the cache's size.
            if keepingPages { try options.applyPageCache(to: copy) }
        } catch {
            try? copy.close()
            throw error
        }
        return copy
    }

    /// Opens the copy on a fresh connection with its key and compares it with the snapshot
    /// (the verify step of ``WholeFileWrite``).
    /// - Returns: the verification, and the copy's schema copy (`nil` for a plaintext copy).
    func verify(_ copied: Copied, in file: WholeFileWrite.Context) throws -> (VerificationReport, SchemaCopy.Pending?) {
        let (temporaryPath, cipher) = (file.temporaryPath, copied.cipher)
        do {
            // A large copy's tables are read in halves, the upper ones on a second connection. A
            // passphrase is then stretched once, here, for both: the derived key opens the copy
            // only if it is the one SQLCipher derived (the first page's HMAC), else the passphrase does.
            let (functions, collations, options) = (source.addedFunctions, source.addedCollations, options)
            let large = FileSystem.size(temporaryPath) >= DatabaseSnapshot.secondReaderMinimumBytes
            let derivedKey = large && key?.kind == .passphrase
                ? key.flatMap { (try? SharedKeyDerivation.rawKeyWithSalt(for: $0, path: temporaryPath, cipher: cipher)) ?? nil } : nil
            var readerKey = key
            let check = try derivedKey.flatMap { derived in
                (try? Self.openCopy(temporaryPath, key: derived, cipher: cipher, functions: functions, collations: collations,
                                    options: options, keepingPages: true)).map { readerKey = derived; return $0 }
            } ?? openCopy(temporaryPath, cipher: cipher)
            defer { try? check.close() }
            let secondReader: DatabaseSnapshot.SecondReader = { [readerKey] body in
                let reader = try Self.openCopy(temporaryPath, key: readerKey, cipher: cipher, functions: functions, collations: collations,
                                              options: options, keepingPages: false)
                defer { try? reader.close() }
                try body(reader)
            }
            let written = try DatabaseSnapshot.capture(check, comparingContent: true, upperHalves: large ? secondReader : nil)
            if let difference = copied.snapshot.difference(from: written) {
                throw DatabaseFileError.verificationFailed(detail: difference)
            }
            if options.fullReadBack { try DatabaseFile.checkIntegrity(check, namingAppCollationsFor: copied.sourceName) }
            let schemaCopy = try key.map {
                SchemaCopy.Pending(copy: try SchemaCopy.capture(check, counting: false, rowCounts: written.rowCounts), key: $0, cipher: cipher)
            }
            return (try DatabaseFile.verificationReport(check, path: temporaryPath, snapshot: written,
                                                        placeholderCollations: copied.placeholderCollations,
                                                        functionsNotChecked: copied.functionsNotChecked), schemaCopy)
        } catch let error as DatabaseError where CorruptionWatch.isDamage(error) {
            throw DatabaseFileError.verificationFailed(detail: "reading the backup back: \(error.message ?? error.description)")
        }
    }

    /// A slot database's copy made with its own data key has the source's salt (the key of
    /// ``DatabaseKey/slots(passphrase:path:)-6o46u`` carries it), so the source's slot file opens
    /// the copy too and is copied beside it; a copy under another key gets none.
    private func copySlotFile(to outputPath: String, copySalt: [UInt8]?) throws -> String? {
        guard let sourcePath, let copySalt else { return nil }
        return try KeySlotStore.copySlotFile(of: sourcePath, to: outputPath, salt: copySalt, overwrite: overwrite)
    }
}
