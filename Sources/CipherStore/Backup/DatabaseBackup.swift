/// Backups of a database file while it is in use, and restores from them.
///
/// A backup is a copy of one committed state — never a mix of two transactions — taken while
/// other connections and processes keep writing, encrypted with the database's own key (or
/// another one), verified (integrity check, and schema and row counts against the state
/// copied), synced, and given its name atomically. Apps back up through their queue or pool
/// with `backup(to:key:overwrite:options:)` of ``DatabaseReader``; this type works from a path, as
/// `cipherstore backup` and `cipherstore restore` do.
///
/// ```swift
/// let key = try DatabaseKey.passphrase("s3cret passphrase")
/// try DatabaseBackup.backup(path: "app.db", key: key, to: "app-2026-11-25.db")
/// try DatabaseBackup.restore(backup: "app-2026-11-25.db", key: key, over: "app.db")
/// ```
///
/// - A database in WAL mode keeps accepting commits during the backup; in a rollback-journal
///   mode the backup holds a read lock, so writers wait (up to their busy timeout) until it ends.
/// - The copy keeps the source's page size and cipher settings: SQLCipher copies pages only
///   between databases with the same ones. A passphrase gets a new salt in the copy.
/// - A slot database backed up with its own data key (``DatabaseKey/slots(passphrase:path:)-6o46u``)
///   keeps its salt, and its slot file is copied beside the backup: the pair opens together,
///   with the passphrases the database had when it was backed up.
/// - Never a plaintext byte on disk: the backup of an encrypted database without a key is
///   refused (``BackupError/plaintextRefused``); decrypt with ``DatabaseFile`` when a
///   plaintext copy is really wanted.
public enum DatabaseBackup {
    /// Backs up the database at `path` into a new file.
    ///
    /// - Parameters:
    ///   - path: the database.
    ///   - key: its key (`nil` for a plaintext database).
    ///   - cipher: the cipher settings it was made with.
    ///   - output: the backup's path.
    ///   - newKey: the backup's key; `nil` keeps the database's key.
    ///   - overwrite: replace an existing file at `output`.
    ///   - options: progress, cancellation, busy timeout, full read-back, and the app's
    ///     functions and collations (``DatabaseFileOptions/prepareDatabase(_:)``).
    /// - Throws: ``BackupError``, ``DatabaseFileError``, ``CipherStoreError`` (wrong key),
    ///   ``NotDurableError``. On failure no file is left at `output` (or the one there is kept).
    @discardableResult
    public static func backup(path: String, key: DatabaseKey?, cipher: CipherSettings = .libraryDefaults, to output: String,
                              newKey: DatabaseKey? = nil, overwrite: Bool = false,
                              options: DatabaseFileOptions = DatabaseFileOptions()) throws -> DatabaseFileReport {
        let db = try DatabaseFile.openExisting(path: path, key: key, cipher: cipher)
        defer { try? db.close() }
        try options.prepare(db)
        return try db.inReadOnlyTransaction { db in
            try OnlineBackup(source: db, sourcePath: path, outputPath: output, overwrite: overwrite,
                             key: newKey ?? key, options: options).run()
        }
    }

    /// Replaces the database at `path` with a backup, after verifying the backup.
    ///
    /// The backup is checked first (it opens with `key`, passes the integrity check); its
    /// pages are then copied beside the database, verified again, and renamed over it with the
    /// machinery of the in-place conversions: the database is locked against other writers, a
    /// WAL database is checkpointed and left, and a connection that still has the old file
    /// open cannot commit into it after the swap. A crash leaves the old database or the
    /// restored one, never neither. The restored database opens with `key`.
    ///
    /// A slot file beside the backup is put beside the restored database unless the slot file
    /// already there opens it (the same data key: the passphrases changed since the backup are
    /// kept then).
    ///
    /// A file beside the database named like its journal or log whose first bytes are not
    /// SQLite's is renamed aside before anything opens the database (SQLite would delete it),
    /// listed in ``DatabaseFileReport/unrecognizedSideFilesMovedAside``, and put back when
    /// the restore fails before replacing anything.
    ///
    /// - Parameters:
    ///   - backup: the backup file.
    ///   - key: its key, which the restored database keeps.
    ///   - cipher: the settings it was made with.
    ///   - path: the database to replace; created when missing.
    ///   - currentKey: the key the database opens with now, when not `key`.
    ///   - replacingUnreadable: replace a database that does not open with its key (page 1
    ///     damaged, or another key), without the lock that keeps other writers out: only when
    ///     no app has it open.
    ///   - replacingOtherLinks: replace this name of a database that has other names (hard
    ///     links), which keep the old contents.
    ///   - options: progress, cancellation, busy timeout, full read-back, and the app's
    ///     functions and collations (``DatabaseFileOptions/prepareDatabase(_:)``).
    /// - Throws: ``BackupError/targetUnreadable(path:detail:)``, ``BackupError/targetDamaged(path:detail:)``,
    ///   ``BackupError/journalAndLogBeside(path:)``, ``DatabaseFileError``,
    ///   ``CipherStoreError`` (the backup's key is wrong), ``NotDurableError``.
    @discardableResult
    public static func restore(backup: String, key: DatabaseKey?, cipher: CipherSettings = .libraryDefaults, over path: String,
                               currentKey: DatabaseKey? = nil, replacingUnreadable: Bool = false, replacingOtherLinks: Bool = false,
                               options: DatabaseFileOptions = DatabaseFileOptions()) throws -> DatabaseFileReport {
        try DatabaseRestore(backupPath: backup, key: key, cipher: cipher, databasePath: path, currentKey: currentKey ?? key,
                            replacingUnreadable: replacingUnreadable, replacingOtherLinks: replacingOtherLinks, options: options).run()
    }
}
