import CipherStore
import Foundation
import Synchronization

/// How the commands that open a database (`verify`, `query`, `decrypt`, `rekey`'s source) open
/// a slot database: automatically. When `<database>.keys` exists and the key given is a
/// passphrase, the passphrase (or recovery key) unlocks a slot — one key derivation — and the
/// data key opens the database; a passphrase could not open such a database otherwise, as it
/// is encrypted with a raw key. With `--raw-key`, the key is used as given: the 96 hexadecimal
/// digits of `keys export-raw-key` open the database without its slot file.
enum SlotDatabase {
    /// The paragraph of `--help` that says so.
    static let help = """
        A slot database (made by `keys init` or `encrypt --key-slots`, with its slot file \
        DATABASE.keys beside it) opens with any of its passphrases or its recovery key, given \
        like any key: the slot file is used automatically. --raw-key with the 96 hexadecimal \
        digits of `keys export-raw-key` opens it without the slot file.
        """

    static func hasSlotFile(_ database: String) -> Bool {
        FileManager.default.fileExists(atPath: KeySlots.slotFilePath(forDatabase: database))
    }

    /// Whether the database uses its slot file: one is there and it is not a stale one of
    /// another database (left by an interrupted `keys init`, or copied from elsewhere).
    static func usesSlotFile(_ database: String) -> Bool {
        guard hasSlotFile(database) else { return false }
        if case .failure(KeySlotError.belongsToAnotherDatabase) = Result(catching: { try KeySlots.list(path: database) }) { return false }
        return true
    }

    /// Refuses a database without a slot file before any key is asked for.
    static func requireSlotFile(_ database: String) throws {
        guard hasSlotFile(database) else { throw missingSlotFile(database) }
    }

    /// A missing slot file, in words for both cases it can be: lost, or never made.
    static func missingSlotFile(_ database: String) -> CLIError {
        let error = KeySlotError.slotFileMissing(expectedAt: KeySlots.slotFilePath(forDatabase: database), database: database)
        return CLIError(exitCode: ExitCodes.ioFailure,
                        message: error.description + " If '\(database)' does not use key slots yet, make it a slot database with `cipherstore keys init`.",
                        kind: "slotFileMissing")
    }

    /// A database whose slot the passphrase opened in this run, with the data key: when the
    /// database then does not open, the key is right and its cipher settings are what differ.
    struct UnlockedSlot: Sendable {
        let database: String
        let dataKey: DatabaseKey
        /// The command names the database's settings `--old-…` (rekey, keys rotate).
        let oldOptions: Bool
    }

    /// Records that a passphrase opened a slot of `database` (see ``settingsMessage(for:)``).
    static func recordUnlocked(_ database: String, dataKey: DatabaseKey, oldOptions: Bool) {
        unlocked.withLock { $0 = UnlockedSlot(database: database, dataKey: dataKey, oldOptions: oldOptions) }
    }

    static let unlocked = Mutex<UnlockedSlot?>(nil)

    /// What to say instead of "wrong key" for a database whose slot opened: the settings that
    /// open it with the data key, found by the settings finder (a raw key: no key derivation).
    static func settingsMessage(for path: String) -> String? {
        guard let slot = unlocked.withLock({ $0 }), slot.database == path else { return nil }
        let slotFile = KeySlots.slotFilePath(forDatabase: path)
        let found = try? CipherSettingsFinder.find(path: path, key: slot.dataKey)
        guard let found else {
            return "The passphrase opened a slot of '\(slotFile)', but its data key does not open '\(path)' with any cipher settings SQLCipher has: its first page is damaged, or the slot file belongs to an older copy of the database. The file was not changed. Restore the database from a backup, or salvage it with `cipherstore repair`."
        }
        // rekey and keys rotate name the database's own settings --old-page-size, …
        let options = CipherStoreCommand.Settings.options(for: found.settings)
            .map { options in slot.oldOptions ? CipherStoreCommand.Settings.sourceOptions(options) : options }
        let how = options.map { $0.isEmpty ? "the linked SQLCipher's defaults" : $0.joined(separator: " ") }
            ?? "settings no option expresses (see `cipherstore settings '\(path)'`)"
        return "The passphrase is right (it opened a slot of '\(slotFile)'), but '\(path)' was made with other cipher settings than the ones given: it opens with \(how). The file was not changed. Retry with those options."
    }

    /// The key that opens `database`, read from `source`.
    static func openingKey(for database: String, from source: KeyReader.Source) throws -> DatabaseKey {
        try KeyReader.read(source, as: keyMaker(for: database))
    }

    /// Makes the key that opens `database` from the bytes read: through its slot file when it
    /// has one and they are a passphrase, else as ``KeyReader/key(from:_:)`` does.
    ///
    /// With `damagedSalt` (a repair), a passphrase that opens a slot bound to another salt than
    /// the database's first 16 bytes gives the data key with the slot's salt: the salt in the
    /// file may be what is damaged.
    static func keyMaker(for database: String, damagedSalt: Bool = false) -> (ArraySlice<UInt8>, KeyReader.Source) throws -> DatabaseKey {
        { bytes, source in
            guard !source.raw, hasSlotFile(database) else { return try KeyReader.key(from: bytes, source) }
            do {
                let dataKey = try KeySlots.unlock(path: database, passphrase: KeyReader.passphrase(from: bytes, source))
                recordUnlocked(database, dataKey: dataKey, oldOptions: source.optionPrefix.hasPrefix("--old"))
                return dataKey
            } catch let error as KeySlotError {
                // A stale slot file (left by an interrupted `keys init`, or copied with another
                // database): the database may still be a plain passphrase database. If the
                // key opens it as one, say so; otherwise the slot file is the problem to report.
                guard case .belongsToAnotherDatabase(let slotFile, _) = error else { throw error }
                let key = try KeyReader.key(from: bytes, source)
                let opened = Result { try DatabaseFile.openForReading(path: database, key: key) }
                guard case .success(let db) = opened else {
                    guard damagedSalt, let slotKey = try? KeySlots.unlockIgnoringDatabaseSalt(path: database, passphrase: KeyReader.passphrase(from: bytes, source)) else {
                        // The database is not the slot file's, and the key does not open it as
                        // a plain SQLCipher key either. A passphrase that opens none of the slot
                        // file's slots is not that file's: for the user, a wrong key. One that
                        // opens one is right for a slot file of another database: that is the
                        // problem to report.
                        if case .failure(CipherStoreError.wrongKey) = opened,
                           (try? KeySlots.unlockIgnoringDatabaseSalt(path: database, passphrase: KeyReader.passphrase(from: bytes, source))) == nil {
                            warn("the slot file '\(slotFile)' does not belong to '\(database)' (it is stale: left by an interrupted `keys init`, or copied from another database), so the key was tried as a plain SQLCipher key.")
                            throw CipherStoreError.wrongKey(path: database)
                        }
                        throw error
                    }
                    warn("the first 16 bytes of '\(database)' (its salt) are not the salt its slot file '\(slotFile)' was made for: they may be damaged. The passphrase opened a slot; reading the pages with the salt that slot records.")
                    return slotKey
                }
                try? db.close()
                warn("the slot file '\(slotFile)' does not belong to '\(database)' (it is stale: left by an interrupted `keys init`, or copied from another database); the key opened the database as a plain SQLCipher key. Move the stale slot file away.")
                return key
            }
        }
    }
}
