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
            return try add(to: state, dataKey: opened.dataKey, kind: .passphrase, key: try newKey.key(for: derivation), label: label)
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
            let slot = try add(to: state, dataKey: opened.dataKey, kind: .recoveryKey, key: key, label: label)
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
            try state.replaceSlotFile(with: file)
        }
    }

    /// Changes a passphrase: the data key is wrapped under the new passphrase in a new slot,
    /// which is written, read back from disk and opened, and only then is the old slot removed;
    /// the new slot takes its place in the file. Every other slot the old passphrase opens is
    /// removed too, and every other slot the new one opens (a change interrupted by a crash
    /// leaves both slots; running it again leaves one). The database is not touched,
    /// so it takes the same time whatever its size: a key derivation per passphrase slot to
    /// find the old passphrase's slots, and one for the new passphrase, run on another thread
    /// meanwhile (with one passphrase slot, a change waits for about one derivation).
    ///
    /// Given a recovery key as `old` (a forgotten passphrase), the recovery key is kept and the
    /// new passphrase gets a slot of its own, labelled "passphrase"; nothing is removed (remove
    /// the forgotten passphrase's slot with ``removeSlot(path:id:remaining:)``).
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
                return try add(to: state, dataKey: opened.dataKey, kind: .passphrase, key: key, label: "passphrase")
            }
            let added = try add(to: state, dataKey: opened.dataKey, kind: opened.slot.kind, key: key, label: opened.slot.label)
            // The new slot is on disk and opens: now the old one can go, with any other slot
            // the old passphrase opens and any other the new one opens (both left by an
            // interrupted change), so that the old passphrase opens none and the new one one.
            // The slot just opened is known: only the others need derivations (none for a
            // database with one passphrase).
            var stale: Set<Int> = [opened.slot.id]
            stale.formUnion(try state.passphraseSlots(openedBy: old, skipping: opened.slot.id).map(\.id))
            stale.formUnion(try state.passphraseSlots(openedBy: new, skipping: opened.slot.id).map(\.id))
            var file = try KeySlotStore.read(state.slotPath, database: path)
            guard let newSlot = file.slots.first(where: { $0.id == added.id }) else { throw KeySlotError.readBackFailed(path: path) }
            // The new slot takes the old one's place, so it is tried as early as the old one was.
            let place = file.slots.prefix { $0.id != opened.slot.id }.filter { !stale.contains($0.id) && $0.id != added.id }.count
            file.slots.removeAll { stale.contains($0.id) || $0.id == added.id }
            file.slots.insert(newSlot, at: place)
            try state.replaceSlotFile(with: file)
            return added
        }
    }

    // MARK: Helpers

    /// Runs `body` on the database's current slot state, holding the slot file's lock.
    @discardableResult
    static func modify<T>(_ path: String, _ body: (SlotState) throws -> T) throws -> T {
        let slotPath = slotFilePath(forDatabase: path)
        return try KeySlotStore.withExclusiveLock(slotPath, database: path) { lock in
            var state = try SlotState.load(database: path)
            state.lock = lock
            return try body(state)
        }
    }

    /// Appends a slot wrapping `dataKey` under `key`, writes the file and checks the slot read
    /// back from disk.
    private static func add(to state: SlotState, dataKey: SecureBytes, kind: KeySlotFile.Slot.Kind,
                            key: SlotSealer.NewSlotKey, label: String) throws -> KeySlotInfo {
        var file = state.file
        guard file.slots.count < KeySlotFile.maximumSlots else {
            throw KeySlotError.tooManySlots(path: state.slotPath, maximum: KeySlotFile.maximumSlots)
        }
        let slot = try SlotSealer.seal(dataKey, into: file, id: file.nextSlotID, kind: kind, key: key,
                                       databaseSalt: state.databaseSalt, label: label)
        file.slots.append(slot)
        try state.replaceSlotFile(with: file)
        try SlotSealer.checkReadBack(state.slotPath, database: state.databasePath, slotID: slot.id, wrappingKey: key.wrappingKey, dataKey: dataKey)
        return KeySlotInfo(slot, currentSalt: state.databaseSalt)
    }
}
