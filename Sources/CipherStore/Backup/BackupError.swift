/// Why a backup or a restore did not happen (or, for ``restoredWithOldSlotFile(path:slotFile:backupSlotFile:reason:)``,
/// did not finish). The other failures are ``DatabaseFileError`` (output exists, verification,
/// cancellation, I/O), ``CipherStoreError`` (wrong key) and ``NotDurableError``.
public enum BackupError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A backup of an encrypted database was asked for without a key: it would be plaintext.
    case plaintextRefused
    /// A key was given for the backup of a plaintext database.
    case sourceNotEncrypted(path: String)
    /// SQLite's backup could not copy the pages into the new file.
    case copyFailed(path: String, reason: String)
    /// The slot file beside the database no longer holds slots for the database backed up (its
    /// data key was rotated while the backup ran).
    case slotFileChanged(slotFile: String)
    /// The database to restore over does not open with the key, so it cannot be held against
    /// other writers while it is replaced.
    case targetUnreadable(path: String, detail: String)
    /// The database to restore over is damaged: its key opens it, but SQLite stops reading
    /// it, so it cannot be held against other writers while it is replaced.
    case targetDamaged(path: String, detail: String)
    /// A rollback journal and a write-ahead log, both SQLite's, lie beside the database to
    /// restore over: SQLite would have to roll back the one while the other is open, and no
    /// file tells which holds its last commits.
    case journalAndLogBeside(path: String)
    /// The database was restored, but the slot file that opens it could not be put beside it:
    /// the slot file there still belongs to the database it replaced.
    case restoredWithOldSlotFile(path: String, slotFile: String, backupSlotFile: String, reason: String)

    public var description: String { message { $0.swiftSpelling } }

    /// The description, with each way out it offers (a ``Remedy``) spelled by `spelling`; a
    /// remedy spelled `nil` is not offered, and the message leaves it out.
    public func message(spelling: (Remedy) -> String?) -> String {
        let nothing = "Nothing was written."
        switch self {
        case .plaintextRefused:
            return "A backup of an encrypted database is encrypted: give the key the copy should have (the database's own key keeps it). \(nothing)" + (spelling(.plaintextCopy).map { " For a plaintext copy, \($0)." } ?? "")
        case .sourceNotEncrypted(let path):
            return "'\(path)' is not encrypted, and SQLCipher copies pages only between two encrypted or two plaintext databases. \(nothing) Back it up without a key, or encrypt it first (`cipherstore encrypt`)."
        case .copyFailed(let path, let reason):
            return "Copying the database's pages into '\(path)' failed: \(reason). \(nothing) The database was not changed. Check free space and permissions, then retry."
        case .slotFileChanged(let slotFile):
            return "The slot file '\(slotFile)' no longer opens the database that was being backed up: its data key was rotated meanwhile. \(nothing) Take the backup again."
        case .targetUnreadable(let path, let detail):
            let otherKey = spelling(.currentKey).map { " If another key opens it, \($0)." } ?? ""
            let replace = spelling(.replaceUnreadable).map { " To replace it anyway, close every app that uses it, then \($0)." } ?? ""
            return "'\(path)' does not open with the key (\(detail)), so it cannot be locked against other writers while it is replaced. Nothing was changed.\(otherKey)\(replace)"
        case .targetDamaged(let path, let detail):
            let replace = spelling(.replaceUnreadable).map { " To replace it anyway, close every app that uses it, then \($0)." } ?? ""
            return "'\(path)' is damaged (\(detail)), so it cannot be locked against other writers while it is replaced. Nothing was changed.\(replace)"
        case .journalAndLogBeside(let path):
            return "Both a rollback journal '\(path)-journal' and a write-ahead log '\(path)-wal' lie beside '\(path)'; a database uses one or the other, so one of them belongs to another database or an earlier file of that name. Nothing was changed. Move the one that does not belong to it out of the folder (or both, when the database is to be replaced anyway), then retry."
        case .restoredWithOldSlotFile(let path, let slotFile, let backupSlotFile, let reason):
            return "'\(path)' now holds the restored database, but its slot file could not be written (\(reason)): '\(slotFile)' still belongs to the database it replaced, so its passphrases do not open it. Copy '\(backupSlotFile)' to '\(slotFile)', or run the restore again."
        }
    }
}
