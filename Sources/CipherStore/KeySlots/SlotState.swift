import Foundation

/// A database and its slot file, read together: the database's salt, the parsed slot file,
/// and the slots that belong to the database.
struct SlotState {
    let databasePath: String
    let slotPath: String
    let databaseSalt: [UInt8]
    let file: KeySlotFile
    /// The slot file's lock, for a state loaded to be changed (see ``KeySlots/modify(_:_:)``).
    var lock: KeySlotStore.HeldLock?

    /// A slot that opened, and the data key it holds.
    struct Opened {
        let slot: KeySlotFile.Slot
        let dataKey: SecureBytes
    }

    /// Reads the database's salt and its slot file, and checks that they belong together.
    static func load(database path: String) throws -> SlotState {
        let info = DatabaseFileInfo.inspect(path: path)
        switch info.kind {
        case .missing: throw DatabaseFileError.sourceMissing(path: path)
        case .directory: throw DatabaseFileError.sourceIsDirectory(path: path)
        case .plaintext: throw CipherStoreError.notEncrypted(path: path)
        default: break
        }
        let slotPath = KeySlots.slotFileTarget(forDatabase: path)
        let file = try KeySlotStore.read(slotPath, database: path)
        guard let salt = DatabaseFileInfo.salt(of: path), !file.slots(forDatabaseSalt: salt).isEmpty else {
            throw KeySlotError.belongsToAnotherDatabase(slotFile: slotPath, database: path)
        }
        return SlotState(databasePath: path, slotPath: slotPath, databaseSalt: salt, file: file, lock: nil)
    }

    /// What a slot-file change leaves, in words: the ``NotDurableError`` of a change whose new
    /// file took the name but whose directory sync failed.
    struct Change {
        let nowOnDisk: String
        let previousState: String
        var nextStep = "Check the disk (`dmesg`) and run `sync` once it is healthy; `cipherstore keys list` shows the slots."
    }

    /// Replaces the slot file with `file`, keeping it locked and checking the bytes read back
    /// before they take the name (see ``KeySlotStore/replace(_:with:holding:verifying:)``).
    /// Only for a state loaded by ``KeySlots/modify(_:_:)``.
    ///
    /// - Throws: ``NotDurableError`` (described by `change`) when the new file took the name
    ///   but its directory sync failed; any other error leaves the slot file as it was.
    func replaceSlotFile(with file: KeySlotFile, change: Change, verifying check: (KeySlotFile) throws -> Void = { _ in }) throws {
        guard let lock else { preconditionFailure("the slot file is changed only under its lock") }
        do {
            try KeySlotStore.replace(slotPath, with: file, holding: lock, verifying: check)
        } catch let error as DurableReplacement.Unsynced {
            throw NotDurableError(path: slotPath, failure: error.failure, nowOnDisk: change.nowOnDisk,
                                  previousState: change.previousState, nextStep: change.nextStep)
        }
    }

    /// Opens the first slot of this database that `passphrase` opens, skipping `excluded`.
    /// Recovery-key slots are tried first, and only when the text has a recovery key's form
    /// (they cost no stretching); then each passphrase slot, one derivation each.
    ///
    /// - Throws: ``CipherStoreError/wrongKey(path:)``, or ``KeySlotError/recoveryKeyMistyped``
    ///   when nothing opened and the text has a recovery key's form with a wrong checksum.
    func unlock(_ passphrase: Passphrase, excluding excluded: Int? = nil) throws -> Opened {
        let candidates = file.slots(forDatabaseSalt: databaseSalt).filter { $0.id != excluded }
        let reading = passphrase.bytes.withUnsafeBytes { RecoveryKey.read($0) }
        if case .valid(let secret) = reading {
            for slot in candidates where slot.kind == .recoveryKey {
                if let opened = try secret.withUnsafeBytes({ try open(slot, secret: $0) }) { return opened }
            }
        }
        for slot in candidates where slot.kind == .passphrase {
            if let opened = try passphrase.bytes.withUnsafeBytes({ try open(slot, secret: $0) }) { return opened }
        }
        if case .mistyped = reading, candidates.contains(where: { $0.kind == .recoveryKey }) {
            throw KeySlotError.recoveryKeyMistyped
        }
        throw CipherStoreError.wrongKey(path: databasePath)
    }

    /// Every passphrase slot of this database that `passphrase` opens (a change interrupted
    /// by a crash can leave two), at one derivation per passphrase slot.
    func passphraseSlots(openedBy passphrase: Passphrase, skipping known: Int? = nil) throws -> [KeySlotFile.Slot] {
        try file.slots(forDatabaseSalt: databaseSalt).filter { slot in
            guard slot.kind == .passphrase, slot.id != known else { return false }
            return try passphrase.bytes.withUnsafeBytes { try open(slot, secret: $0) } != nil
        }
    }

    /// Every slot of this database that `passphrase` opens — passphrase slots, and recovery-key
    /// slots when it is a recovery key — each with the secret that opened it.
    func slots(openedBy passphrase: Passphrase) throws -> [(slot: KeySlotFile.Slot, secret: SecureBytes)] {
        var result: [(KeySlotFile.Slot, SecureBytes)] = []
        if case .valid(let secret) = passphrase.bytes.withUnsafeBytes({ RecoveryKey.read($0) }) {
            for slot in file.slots(forDatabaseSalt: databaseSalt) where slot.kind == .recoveryKey {
                if try secret.withUnsafeBytes({ try open(slot, secret: $0) }) != nil { result.append((slot, secret)) }
            }
        }
        for slot in try passphraseSlots(openedBy: passphrase) { result.append((slot, passphrase.bytes)) }
        return result
    }

    private func open(_ slot: KeySlotFile.Slot, secret: UnsafeRawBufferPointer) throws -> Opened? {
        let wrappingKey = try slot.derivation.deriveKey(from: secret, salt: slot.kdfSalt)
        return SlotSealer.open(slot, of: file, with: wrappingKey).map { Opened(slot: slot, dataKey: $0) }
    }
}
