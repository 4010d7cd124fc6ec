import Crypto

extension KeySlots {
    /// Replaces the data key, after a passphrase or the data key itself may have leaked: the
    /// database is rewritten under a new data key (and salt) with the verified, atomic rewrite of
    /// ``DatabaseFile/changeKey(path:oldKey:oldCipher:newKey:newCipher:to:options:)-1h48f``, and
    /// the slots opened by `passphrases` are wrapped anew. Every other slot is dropped: old
    /// copies of the slot file, and the passphrases not given, open nothing afterwards.
    ///
    /// Crash-safe in this order: the new slots, bound to the new salt, are added beside the old
    /// ones and read back; the database is rewritten (one atomic rename); the old slots are
    /// removed. Each slot names the database salt it opens, so whatever moment a crash hits,
    /// the database and the slot file still match and every given passphrase opens it.
    ///
    /// - Parameters:
    ///   - path: the slot database.
    ///   - passphrases: the passphrases (and recovery keys, as text) to keep; each must open a slot.
    ///   - cipher: the database's cipher settings, kept by the rewrite (SQLCipher 2.0's HMAC
    ///     variants excepted: see ``CipherSettings/forWriting``).
    ///   - options: progress, cancellation, busy timeout.
    /// - Returns: the slots after the rotation.
    /// - Throws: ``CipherStoreError/wrongKey(path:)`` when a passphrase opens no slot,
    ///   ``KeySlotError/nothingToKeep`` for an empty list,
    ///   ``KeySlotError``, ``DatabaseFileError``, ``DatabaseError``. On failure the database still
    ///   opens with its old data key and every old slot.
    @discardableResult
    public static func rotateDataKey(path: String, keeping passphrases: [Passphrase], cipher: CipherSettings = .libraryDefaults,
                                     options: DatabaseFileOptions = DatabaseFileOptions()) throws -> [KeySlotInfo] {
        guard !passphrases.isEmpty else {
            throw KeySlotError.nothingToKeep
        }
        return try modify(path) { state in
            var kept: [(slot: KeySlotFile.Slot, secret: SecureBytes)] = []
            for passphrase in passphrases {
                let opened = try state.slots(openedBy: passphrase)
                guard !opened.isEmpty else { throw CipherStoreError.wrongKey(path: path) }
                kept += opened.filter { candidate in !kept.contains { $0.slot.id == candidate.slot.id } }
            }
            let current = state.file.slots(forDatabaseSalt: state.databaseSalt).count
            guard current + kept.count <= KeySlotFile.maximumSlots else {
                throw KeySlotError.noRoomForRotation(path: state.slotPath, slots: current, kept: kept.count, maximum: KeySlotFile.maximumSlots)
            }
            let oldKey = try state.unlock(passphrases[0]).dataKey
            let newKey = SecureBytes(count: 32) { buffer in
                SymmetricKey(size: .bits256).withUnsafeBytes { buffer.copyMemory(from: $0) }
            }
            let newSalt = SecureRandom.bytes(16)

            // 1. The new slots beside the old ones; slots of any other salt (an earlier,
            //    interrupted rotation) go.
            var file = state.file
            file.slots.removeAll { $0.databaseSalt != state.databaseSalt }
            var added: [(id: Int, wrappingKey: SymmetricKey)] = []
            for (slot, secret) in kept {
                let key = try secret.withUnsafeBytes { try SlotSealer.newKey(secret: $0, derivation: slot.derivation) }
                let sealed = try SlotSealer.seal(newKey, into: file, id: file.nextSlotID, kind: slot.kind, key: key,
                                                 databaseSalt: newSalt, label: slot.label)
                file.slots.append(sealed)
                added.append((sealed.id, key.wrappingKey))
            }
            try state.replaceSlotFile(with: file, change: .init(
                nowOnDisk: "the slot file with new slots, for a data key not in use yet, beside the old ones; the database is unchanged and opens with every old passphrase",
                previousState: "the previous slot file, which opens the database the same way",
                nextStep: "Nothing is lost. Check the disk (`dmesg`), then run `cipherstore keys rotate` again.")) { written in
                for (id, wrappingKey) in added {
                    try SlotSealer.checkReadBack(written, database: path, slotID: id, wrappingKey: wrappingKey, dataKey: newKey)
                }
            }

            // 2. The database, under the new data key and salt.
            do {
                let old = try oldKey.withUnsafeBytes { try DatabaseKey.rawKey($0, salt: state.databaseSalt) }
                let new = try newKey.withUnsafeBytes { try DatabaseKey.rawKey($0, salt: newSalt) }
                try DatabaseFile.changeKey(path: path, oldKey: old, oldCipher: cipher, newKey: new, newCipher: cipher.forWriting,
                                                  to: .inPlace(), options: options)
            } catch {
                // Read from the disk which database has the name. The rewrite, whose durability
                // is not confirmed: the slot file keeps both sets, so that whichever database a
                // power cut leaves opens with the passphrases kept.
                if DatabaseFileInfo.salt(of: path) == newSalt {
                    throw NotDurableError(
                        path: path, failure: (error as? NotDurableError)?.failure ?? "\(error)",
                        nowOnDisk: "the database, rewritten under the new data key; its slot file '\(state.slotPath)' holds the new slots of the passphrases kept, and still the old slots",
                        previousState: "the database under the old data key, which the old slots still open",
                        nextStep: "Nothing is lost. Check the disk (`dmesg`) and run `sync` once it is healthy, then run `cipherstore keys rotate` again: it removes the old slots.")
                }
                // The database kept its old key: the new slots would open nothing.
                file.slots.removeAll { $0.databaseSalt == newSalt }
                try? state.replaceSlotFile(with: file, change: .init(nowOnDisk: "the slot file as before the rotation", previousState: "the slot file with unused new slots"))
                throw error
            }

            // 3. The old slots go. The rotation itself is done: a failure now leaves them in the
            //    file, opening nothing, and says so.
            file.slots.removeAll { $0.databaseSalt != newSalt }
            do {
                try state.replaceSlotFile(with: file, change: .init(
                    nowOnDisk: "the database under the new data key, and a slot file with the new slots of the passphrases kept only",
                    previousState: "the slot file that also holds the old slots (they open only the old database, which is gone)"))
            } catch let error as NotDurableError {
                throw error
            } catch {
                throw KeySlotError.rotationLeftOldSlots(path: state.slotPath, database: path, reason: "\(error)")
            }
            return file.slots.map { KeySlotInfo($0, currentSalt: newSalt) }
        }
    }
}
