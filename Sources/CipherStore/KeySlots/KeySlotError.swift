/// Why a key-slot operation did not happen. In every case the slot file and the database are
/// left as they were.
///
/// A wrong passphrase is not one of these: it throws ``CipherStoreError/wrongKey(path:)``, as
/// for any other key. Descriptions never include key material.
public enum KeySlotError: Error, Sendable, CustomStringConvertible, Equatable {
    /// There is no slot file where the database's slot file belongs.
    case slotFileMissing(expectedAt: String, database: String)
    /// The file does not start like a key-slot file.
    case notASlotFile(path: String)
    /// The file was written by a newer CipherStore, in a format this one does not know.
    case unsupportedVersion(path: String, version: Int)
    /// The file is cut short, has bytes appended, or a bit changed.
    case damaged(path: String, detail: String)
    /// No slot of the file belongs to the database beside it (another database's slot file).
    case belongsToAnotherDatabase(slotFile: String, database: String)
    /// A slot asks for KDF parameters beyond the caps (memory or time), refused before running it.
    case kdfParametersOutOfRange(path: String, slot: Int, detail: String)
    /// Text with the form of a recovery key whose checksum does not match: a typo.
    case recoveryKeyMistyped
    /// The slot to remove is the last one: the database could not be opened any more.
    case lastSlot(path: String, slot: Int)
    /// No slot has this number.
    case noSuchSlot(path: String, slot: Int)
    /// The passphrase that authorises a removal opens only the slot being removed.
    case removalNeedsAnotherSlot(path: String, slot: Int)
    /// Making a slot database, but a slot file is already where it would go.
    case slotFileExists(path: String)
    /// Making a slot database at a path with no database, but a slot file is there: left by
    /// an interrupted run.
    case leftoverSlotFile(path: String, database: String)
    /// The file already holds the maximum number of slots.
    case tooManySlots(path: String, maximum: Int)
    /// The passphrase to add already opens a slot.
    case passphraseAlreadyInSlot(path: String, slot: Int)
    /// A label that is too long or has control characters.
    case invalidLabel(reason: String)
    /// KDF settings that cannot be used to make a slot.
    case invalidKDF(reason: String)
    /// A data-key rotation was asked to keep no passphrase.
    case nothingToKeep
    /// The slot file just written did not read back as written; the previous one is kept.
    case readBackFailed(path: String)
    /// The change would write a slot file that CipherStore refuses to read (too many slots,
    /// too much key-derivation work in all): refused before anything was written.
    case changeWouldBeUnreadable(path: String, detail: String)
    /// A data-key rotation needs room for one new slot per kept secret beside the current slots
    /// while the database is rewritten: refused before anything was written.
    case noRoomForRotation(path: String, slots: Int, kept: Int, maximum: Int)
    /// The data key was rotated — the database is rewritten, and the kept secrets open it — but
    /// removing the old slots from the slot file failed: they stay in it, opening nothing.
    case rotationLeftOldSlots(path: String, database: String, reason: String)

    public var description: String {
        switch self {
        case .slotFileMissing(let expected, let database):
            return "The key-slot file of '\(database)' is missing: it was expected at '\(expected)'. Nothing was changed. Restore it from the backup made with the database (the two go together), or open the database with its raw data key."
        case .notASlotFile(let path):
            return "'\(path)' is not a CipherStore key-slot file. Nothing was changed. Check the path; restore the slot file from a backup."
        case .unsupportedVersion(let path, let version):
            return "'\(path)' is a key-slot file of format version \(version), which this CipherStore does not know (it reads version \(KeySlotFile.formatVersion)). Nothing was changed. Use a newer CipherStore."
        case .damaged(let path, let detail):
            return "The key-slot file '\(path)' is damaged: \(detail). Nothing was changed. Restore it from a backup; a recovery key does not help while its slot file is damaged."
        case .belongsToAnotherDatabase(let slotFile, let database):
            return "The key-slot file '\(slotFile)' belongs to another database than '\(database)' (its slots are bound to another database salt). Nothing was changed. Put the slot file that was made with this database beside it — restore both from the same backup."
        case .kdfParametersOutOfRange(let path, let slot, let detail):
            return "Slot \(slot) of '\(path)' asks for key-derivation parameters beyond the limits (\(detail)); it was not run. Nothing was changed. The file was damaged or tampered with: restore it from a backup."
        case .recoveryKeyMistyped:
            return "The recovery key has a typo: its checksum does not match. Nothing was changed. Check each group of characters and enter it again."
        case .lastSlot(let path, let slot):
            return "Slot \(slot) is the last slot of '\(path)'; without it the database could not be opened any more. Nothing was changed. Add another passphrase or a recovery key first."
        case .noSuchSlot(let path, let slot):
            return "'\(path)' has no slot \(slot). Nothing was changed. List the slots to see their numbers."
        case .removalNeedsAnotherSlot(let path, let slot):
            return "The passphrase given opens slot \(slot) of '\(path)', the one being removed. Nothing was changed. Authorise the removal with the passphrase of a slot that stays."
        case .slotFileExists(let path):
            return "'\(path)' already exists. Nothing was changed. If the database already uses key slots, that file is needed to open it: keep it, and add or change passphrases with `cipherstore keys add` or `keys change`. Only if it is left over from an interrupted attempt (the database still opens as before, without it) move it away and retry."
        case .leftoverSlotFile(let path, let database):
            return "'\(path)' is there but '\(database)' is not: the slot file is left over from an interrupted backup or conversion and opens nothing. Nothing was changed. Remove '\(path)' and run again."
        case .tooManySlots(let path, let maximum):
            return "'\(path)' already holds \(maximum) slots, the most a slot file can hold. Nothing was changed. Remove a slot first."
        case .passphraseAlreadyInSlot(let path, let slot):
            return "The new passphrase already opens slot \(slot) of '\(path)'. Nothing was changed. Choose another passphrase, or keep using that slot."
        case .invalidLabel(let reason):
            return "Invalid slot label: \(reason)"
        case .invalidKDF(let reason):
            return "Invalid key-derivation settings: \(reason)"
        case .nothingToKeep:
            return "No passphrase to keep was given: after rotating the data key, nothing would open the database. Nothing was changed. Give at least one passphrase (or recovery key) that opens a slot."
        case .changeWouldBeUnreadable(let path, let detail):
            return "This change would leave '\(path)' in a form CipherStore refuses to read (\(detail)), so it was refused. Nothing was changed. Remove a slot first (`cipherstore keys remove`); when adding or changing a passphrase, a faster key derivation for the new slot (--slot-kdf-ms) also helps."
        case .noRoomForRotation(let path, let slots, let kept, let maximum):
            return "Rotating the data key keeps the old slots beside the new ones until the database is rewritten, so that a crash leaves a pair that opens: '\(path)' has \(slots) slots, and \(kept) more would make more than \(maximum). Nothing was changed. Remove slots you no longer need first (`cipherstore keys remove`), then retry."
        case .rotationLeftOldSlots(let path, let database, let reason):
            return "The data key was rotated: '\(database)' was rewritten under the new data key, which the kept passphrases open. Removing the old slots from '\(path)' then failed (\(reason)): they stay in it but open nothing, since the database no longer has their data key. Back up '\(database)' and '\(path)' again, together (older backups hold the old data key), and once the disk is healthy run `cipherstore keys rotate` again, or remove the old slots with `cipherstore keys remove`."
        case .readBackFailed(let path):
            return "The key-slot file written for '\(path)' did not read back as written; the previous slot file was kept. Check the disk (free space, errors) and retry."
        }
    }

    /// What the parser found, without advice: for ``changeWouldBeUnreadable(path:detail:)``.
    var reason: String {
        switch self {
        case .damaged(_, let detail): return detail
        case .kdfParametersOutOfRange(_, let slot, let detail): return "slot \(slot): \(detail)"
        default: return description
        }
    }
}
