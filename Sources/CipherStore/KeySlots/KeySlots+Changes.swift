extension KeySlots {
    /// Adds a passphrase slot, authorised by a passphrase (or recovery key) that opens an
    /// existing one. The database is not touched. A passphrase that already opens a slot is
    /// refused (checking costs a derivation per passphrase slot).
    ///
    /// - Parameters:
    ///   - path: the database.
    ///   - existing: opens an existing slot.
    ///   - new: the passphrase to add.
    ///   - label: a name for the slot.
    ///   - kdf: how the new passphrase is stretched.
    /// - Returns: the new slot.
    /// - Throws: ``CipherStoreError/wrongKey(path:)``, ``KeySlotError`` (``KeySlotError/passphraseAlreadyInSlot(path:slot:)``…).
    @discardableResult
    public static func addPassphrase(path: String, existing: Passphrase, new: Passphrase, label: String = "passphrase",
                                     kdf: KeySlotKDF = .default) throws -> KeySlotInfo {
        try validate(label: label)
        let derivation = try kdf.resolve()
        return try modify(path) { state in
            let newKey = BackgroundSlotKey(secret: new.bytes, derivation: derivation)
            defer { newKey.finish() }
            let opened = try state.unlock(existing)
            // A second slot for the same passphrase would only slow down every open.
            if let slot = try state.passphraseSlots(openedBy: new).first {
                throw KeySlotError.passphraseAlreadyInSlot(path: state.slotPath, slot: slot.id)
            }
            return try add(to: state, dataKey: opened.dataKey, kind: .passphrase, key: try newKey.key(for: derivation), label: label) { id in
                .init(nowOnDisk: "the slot file with the new passphrase's slot \(id): it opens the database, as every earlier passphrase does",
                      previousState: "the slot file without that slot")
            }
        }
    }

    /// Adds a slot for a new random recovery key, authorised by a passphrase that opens an
    /// existing slot. Show ``NewRecoveryKey/text`` to the user once; it is not stored.
    ///
    /// - Throws: ``CipherStoreError/wrongKey(path:)``, ``KeySlotError``.
    public static func addRecoveryKey(path: String, existing: Passphrase, label: String = "recovery key") throws -> NewRecoveryKey {
        try validate(label: label)
        return try modify(path) { state in
            let opened = try state.unlock(existing)
            let (secret, text) = RecoveryKey.generate()
            let key = try secret.withUnsafeBytes {
                try SlotSealer.newKey(secret: $0, derivation: KeyDerivation(algorithm: .hkdfSHA256, parameters: (0, 0, 0)))
            }
            let slot = try add(to: state, dataKey: opened.dataKey, kind: .recoveryKey, key: key, label: label) { id in
                .init(nowOnDisk: "the slot file with a new recovery-key slot \(id); the recovery key is not shown, since the change is not confirmed",
                      previousState: "the slot file without that slot",
                      nextStep: "Nothing is lost. Once the disk is healthy, remove slot \(id) (`cipherstore keys remove --slot \(id)`) and add a recovery key again.")
            }
            return NewRecoveryKey(slot: slot, text: text)
        }
    }

    /// Removes a slot, authorised by the passphrase of a slot that stays. Never removes the
    /// last slot. The database is not touched; old copies of the slot file still hold the slot
    /// (see <doc:KeySlotsDesign>).
    ///
    /// - Throws: ``KeySlotError/noSuchSlot(path:slot:)``, ``KeySlotError/lastSlot(path:slot:)``,
    ///   ``KeySlotError/removalNeedsAnotherSlot(path:slot:)``, ``CipherStoreError/wrongKey(path:)``.
    public static func removeSlot(path: String, id: Int, remaining: Passphrase) throws {
        try modify(path) { state in
            guard state.file.slots.contains(where: { $0.id == id }) else {
                throw KeySlotError.noSuchSlot(path: state.slotPath, slot: id)
            }
            guard state.file.slots(forDatabaseSalt: state.databaseSalt).contains(where: { $0.id != id }) else {
                throw KeySlotError.lastSlot(path: state.slotPath, slot: id)
            }
            do {
                _ = try state.unlock(remaining, excluding: id)
            } catch CipherStoreError.wrongKey {
                if (try? state.unlock(remaining)) != nil { throw KeySlotError.removalNeedsAnotherSlot(path: state.slotPath, slot: id) }
                throw CipherStoreError.wrongKey(path: path)
            }
            var file = state.file
            file.slots.removeAll { $0.id == id }
            try state.replaceSlotFile(with: file, change: .init(
                nowOnDisk: "the slot file without slot \(id)", previousState: "the slot file with slot \(id), which still opens the database"))
        }
    }

    /// Changes a passphrase: the data key is wrapped under the new passphrase in a new slot that
    /// takes the old slot's place, in one atomic replacement of the slot file; the new file is
    /// read back from disk and the new slot opened before it takes the name. Every other slot the old passphrase opens is
    /// removed too, and every other slot the new one opens (a change interrupted by a crash
    /// leaves both slots; running it again leaves one). The database is not touched,
    /// so it takes the same time whatever its size: a key derivation per passphrase slot to
    /// find the old passphrase's slots, and one for the new passphrase, run on another thread
    /// meanwhile (with one passphrase slot, a change waits for about one derivation).
    ///
    /// Given a recovery key as `old` (a forgotten passphrase), the recovery key is kept and the
    /// new passphrase gets a slot of its own, labelled "passphrase"; nothing is removed (remove
    /// the forgotten passphrase's slot with ``removeSlot(path:id:remaining:)-7cjlg``).
    ///
    /// - Parameters:
    ///   - path: the database.
    ///   - old: opens the slot to change.
    ///   - new: the new passphrase.
    ///   - kdf: how the new passphrase is stretched; `nil` keeps the old slot's parameters.
    /// - Returns: the new slot (with a new number, and the old slot's label).
    /// - Throws: ``CipherStoreError/wrongKey(path:)``, ``KeySlotError``.
    @discardableResult
    public static func changePassphrase(path: String, from old: Passphrase, to new: Passphrase, kdf: KeySlotKDF? = nil) throws -> KeySlotInfo {
        let given = try kdf?.resolve()
        return try modify(path) { state in
            // The new key is derived while the old passphrase's slot is found, with the
            // parameters given or, most likely kept, those of the database's first passphrase
            // slot (usually its only one).
            let likely = given ?? state.file.slots(forDatabaseSalt: state.databaseSalt).first { $0.kind == .passphrase }?.derivation
            let newKey = likely.map { BackgroundSlotKey(secret: new.bytes, derivation: $0) }
            defer { newKey?.finish() }
            let opened = try state.unlock(old)
            let derivation = opened.slot.kind == .recoveryKey ? try given ?? KeySlotKDF.default.resolve() : given ?? opened.slot.derivation
            let key = try newKey?.key(for: derivation)
                ?? new.bytes.withUnsafeBytes { try SlotSealer.newKey(secret: $0, derivation: derivation) }
            if opened.slot.kind == .recoveryKey {
                return try add(to: state, dataKey: opened.dataKey, kind: .passphrase, key: key, label: "passphrase") { id in
                    .init(nowOnDisk: "the slot file with the new passphrase's slot \(id) beside the recovery key's: both open the database",
                          previousState: "the slot file without the new passphrase's slot")
                }
            }
            // The old slot goes, with any other slot the old passphrase opens and any other the
            // new one opens (left by an interrupted change of an earlier version, or added
            // meanwhile), so that the old passphrase opens none and the new one one. The slot
            // just opened is known: only the others need derivations (none for a database with
            // one passphrase).
            var stale: Set<Int> = [opened.slot.id]
            stale.formUnion(try state.passphraseSlots(openedBy: old, skipping: opened.slot.id).map(\.id))
            stale.formUnion(try state.passphraseSlots(openedBy: new, skipping: opened.slot.id).map(\.id))
            // One write: the new slot takes the old one's place in the file (so it is tried as
            // early as the old one was), checked on disk before it takes the name. A full file
            // changes as well as any, and the slots' key-derivation work does not add up.
            var file = state.file
            let slot = try SlotSealer.seal(opened.dataKey, into: file, id: file.nextSlotID, kind: opened.slot.kind, key: key,
                                           databaseSalt: state.databaseSalt, label: opened.slot.label)
            let place = file.slots.prefix { $0.id != opened.slot.id }.filter { !stale.contains($0.id) }.count
            file.slots.removeAll { stale.contains($0.id) }
            file.slots.insert(slot, at: place)
            try state.replaceSlotFile(with: file, change: .init(
                nowOnDisk: "the slot file in which the new passphrase's slot \(slot.id) replaced the old passphrase's: the new passphrase opens the database, the old one no longer does",
                previousState: "the previous slot file, which the old passphrase opens",
                nextStep: "Keep the old passphrase until the disk is healthy and synced (`dmesg`, then `sync`); `cipherstore keys list` shows the slots.")) { written in
                try SlotSealer.checkReadBack(written, database: path, slotID: slot.id, wrappingKey: key.wrappingKey, dataKey: opened.dataKey)
            }
            return KeySlotInfo(slot, currentSalt: state.databaseSalt)
        }
    }

    // MARK: Helpers

    /// Runs `body` on the database's current slot state, holding the slot file's lock.
    @discardableResult
    static func modify<T>(_ path: String, _ body: (SlotState) throws -> T) throws -> T {
        let slotPath = slotFileTarget(forDatabase: path)
        return try KeySlotStore.withExclusiveLock(slotPath, database: path) { lock in
            var state = try SlotState.load(database: path)
            state.lock = lock
            return try body(state)
        }
    }

    /// Appends a slot wrapping `dataKey` under `key` and writes the file, the new slot checked
    /// on disk before it takes the name. `change` describes the file written, for a
    /// ``NotDurableError``.
    private static func add(to state: SlotState, dataKey: SecureBytes, kind: KeySlotFile.Slot.Kind,
                            key: SlotSealer.NewSlotKey, label: String, change: (Int) -> SlotState.Change) throws -> KeySlotInfo {
        var file = state.file
        guard file.slots.count < KeySlotFile.maximumSlots else {
            throw KeySlotError.tooManySlots(path: state.slotPath, maximum: KeySlotFile.maximumSlots)
        }
        let slot = try SlotSealer.seal(dataKey, into: file, id: file.nextSlotID, kind: kind, key: key,
                                       databaseSalt: state.databaseSalt, label: label)
        file.slots.append(slot)
        try state.replaceSlotFile(with: file, change: change(slot.id)) { written in
            try SlotSealer.checkReadBack(written, database: state.databasePath, slotID: slot.id, wrappingKey: key.wrappingKey, dataKey: dataKey)
        }
        return KeySlotInfo(slot, currentSalt: state.databaseSalt)
    }
}
