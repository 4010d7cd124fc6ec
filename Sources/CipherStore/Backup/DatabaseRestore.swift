import Foundation

/// One restore: see ``DatabaseBackup/restore(backup:key:cipher:over:currentKey:replacingUnreadable:replacingOtherLinks:options:)``.
struct DatabaseRestore {
    let backupPath: String
    let key: DatabaseKey?
    let cipher: CipherSettings
    let databasePath: String
    let currentKey: DatabaseKey?
    let replacingUnreadable: Bool
    let replacingOtherLinks: Bool
    let options: DatabaseFileOptions

    func run() throws -> DatabaseFileReport {
        let started = Date()
        // The file that holds the data: a symbolic link keeps leading to the restored database.
        let target = FileSystem.isSymbolicLink(databasePath) ? FileSystem.resolvingLinks(databasePath) ?? databasePath : databasePath
        let backup = try DatabaseFile.openExisting(path: backupPath, key: key, cipher: cipher)
        defer { try? backup.close() }
        try options.prepare(backup)
        try options.applyPageCache(to: backup)
        _ = try DatabaseFile.reportingDamage(path: backupPath) { try DatabaseFile.checkIntegrity(backup, namingAppCollationsFor: backupPath) }
        // The copy reads each page once: its cache goes back to SQLite's default, so that the
        // restore holds one large cache (the copy's), not two.
        try backup.execute(sql: "PRAGMA cache_size = -2000")
        try backup.execute(sql: "PRAGMA shrink_memory")

        let exists = FileSystem.exists(target)
        if exists {
            try DatabaseFile.checkExistingDatabaseFile(target)
            if FileSystem.isSameFile(target, backupPath) { throw DatabaseFileError.outputIsSource(path: databasePath) }
            let links = FileSystem.linkCount(target)
            if links > 1 && !replacingOtherLinks {
                throw DatabaseFileError.sourceHasOtherNames(path: target, nameCount: links, namesFound: FileSystem.otherNamesInDirectory(of: target))
            }
            try FileSystem.checkOwnerCanBeKept(target)
        }
        // Before anything opens the target: SQLite would delete a file that only has the name.
        let setAside = try DatabaseSideFiles.setAsideForeign(beside: target)
        do {
            var report = try replace(target, exists: exists, backup: backup, started: started)
            report.unrecognizedSideFilesMovedAside = setAside.map(\.to)
            return report
        } catch {
            // Nothing was replaced: the files go back to their names.
            let replaced = error is NotDurableError || { if case BackupError.restoredWithOldSlotFile = error { true } else { false } }()
            if !replaced { for file in setAside { try? FileSystem.rename(file.to, to: file.from) } }
            throw error
        }
    }

    private func replace(_ target: String, exists: Bool, backup: Connection, started: Date) throws -> DatabaseFileReport {
        if exists, SideFileHeader.isHotJournal(target + "-journal"), FileSystem.exists(target + "-wal") {
            throw BackupError.journalAndLogBeside(path: target)
        }
        let restore = self
        // What lies beside an existing database is its own or stale: a journal the lock's
        // first read did not roll back, a log it did not checkpoint (a damaged database
        // replaced with `replacingUnreadable` is never read). Logs are moved aside, not removed.
        let write = try WholeFileWrite(
            output: target, named: databasePath, source: backupPath,
            publication: exists ? .replacing(keepingLogs: true, backup: nil) : .newName(overwrite: false),
            options: options, started: started,
            nowOnDisk: {
                let slotFile = try? restore.pairSlotFile(restoredSalt: DatabaseFileInfo.salt(of: target))
                return "'\(restore.databasePath)' holds the restored database" + (slotFile.map { ", and '\($0)' its slots" } ?? "")
            },
            nextStep: "Check the disk (`dmesg`) and run `sync` once it is healthy; `cipherstore verify` tells which key opens the file.")
        // Held from before the copy to after the rename: no writer commits into the old file.
        let lock = exists ? try lockTarget(target) : nil
        var replaced = false
        defer { lock?.release(restoring: !replaced) }

        let copier = OnlineBackup(source: backup, sourcePath: backupPath, outputPath: target, overwrite: true, key: key, options: options)
        let written: WholeFileWrite.Written<VerificationReport>
        do {
            written = try write.run(
                fill: { file in try backup.inReadOnlyTransaction { _ in try copier.copy(into: file) } },
                verify: copier.verify(_:in:))
        } catch let error as NotDurableError {
            replaced = true
            throw error
        }
        replaced = true
        var report = written.report(path: databasePath, verification: written.value)
        report.slotFilePath = try pairSlotFile(restoredSalt: DatabaseFileInfo.salt(of: target))
        return report
    }

    /// Locks the database to replace as an in-place conversion locks its source.
    ///
    /// Whether it opens with its key is tried first on a connection that writes nothing (read
    /// only while a WAL file exists), so a refusal leaves its WAL and journal as they were.
    private func lockTarget(_ target: String) throws -> SourceLock? {
        do {
            try DatabaseFile.openForReading(path: target, key: currentKey, cipher: cipher).close()
        } catch let error where Self.isUnreadable(error) {
            guard replacingUnreadable else { throw unreadable(error) }
            return nil
        }
        do {
            return try SourceLock(path: target, forReplacement: true) { readOnly in
                try Connection(path: target, key: currentKey,
                               configuration: Configuration(cipher: cipher, readOnly: readOnly, busyTimeout: options.busyTimeout, foreignKeys: false))
            }
        } catch let error where Self.isUnreadable(error) {
            guard replacingUnreadable else { throw unreadable(error) }
            return nil
        }
    }

    /// Why the database to replace cannot be locked: damage SQLite met past a first page the
    /// key opened, or a file the key does not open.
    private func unreadable(_ error: Error) -> BackupError {
        switch error {
        case let error as DatabaseError where error.resultCode.primaryResultCode == .SQLITE_CORRUPT:
            return .targetDamaged(path: databasePath, detail: error.message ?? error.description)
        case CipherStoreError.notEncrypted:
            return .targetUnreadable(path: databasePath, detail: "it is not encrypted")
        case CipherStoreError.notADatabase(_, let detail):
            return .targetUnreadable(path: databasePath, detail: "it is not a database: \(detail)")
        case let error as DatabaseError:
            return .targetUnreadable(path: databasePath, detail: error.message ?? error.description)
        default:
            return .targetUnreadable(path: databasePath, detail: "a wrong key, other cipher settings, or a damaged first page")
        }
    }

    private static func isUnreadable(_ error: Error) -> Bool {
        switch error {
        case CipherStoreError.wrongKey, CipherStoreError.notADatabase, CipherStoreError.notEncrypted: return true
        case let error as DatabaseError: return [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode.primaryResultCode)
        default: return false
        }
    }

    /// Puts the backup's slot file beside the restored database, unless the slot file there
    /// already opens it (same salt, so same data key: its current passphrases are kept).
    ///
    /// Written after the database: a crash between the two leaves the backup's slot file
    /// where it was, and running the restore again finishes the job.
    /// - Returns: the slot file that opens the restored database, if there is one.
    private func pairSlotFile(restoredSalt: [UInt8]?) throws -> String? {
        guard let restoredSalt else { return nil }
        let slotPath = KeySlots.slotFileTarget(forDatabase: databasePath)
        if FileSystem.exists(slotPath), let current = try? KeySlotStore.read(slotPath, database: databasePath),
           !current.slots(forDatabaseSalt: restoredSalt).isEmpty {
            return slotPath
        }
        let backupSlots = KeySlots.slotFileTarget(forDatabase: backupPath)
        guard FileSystem.exists(backupSlots) else { return nil }
        let file = try KeySlotStore.read(backupSlots, database: backupPath)
        guard !file.slots(forDatabaseSalt: restoredSalt).isEmpty else { return nil }
        do {
            try KeySlotStore.write(file, to: slotPath, overwrite: true)
        } catch is DurableReplacement.Unsynced {
            // In place and in use; the database's own rename synced the same directory.
        } catch {
            throw BackupError.restoredWithOldSlotFile(path: databasePath, slotFile: slotPath, backupSlotFile: backupSlots, reason: "\(error)")
        }
        return slotPath
    }
}
