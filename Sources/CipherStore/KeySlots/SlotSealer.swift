import Crypto
import Foundation

/// Wraps the data key into a slot (AES-256-GCM under the derived key, the slot's fields as
/// associated data) and unwraps it.
enum SlotSealer {
    /// The key that wraps the data key in a new slot: how it was derived, the slot's fresh KDF
    /// salt, and the derived key (kept to check the read-back without a second derivation).
    struct NewSlotKey: Sendable {
        let derivation: KeyDerivation
        let kdfSalt: [UInt8]
        let wrappingKey: SymmetricKey
    }

    /// Derives a new slot's wrapping key from `secret`, with a fresh random KDF salt.
    /// - Throws: ``KeySlotError/invalidKDF(reason:)``.
    static func newKey(secret: UnsafeRawBufferPointer, derivation: KeyDerivation) throws -> NewSlotKey {
        let kdfSalt = SecureRandom.bytes(32)
        return NewSlotKey(derivation: derivation, kdfSalt: kdfSalt, wrappingKey: try derivation.deriveKey(from: secret, salt: kdfSalt))
    }

    /// A new slot holding `dataKey`, wrapped under `key`.
    static func seal(_ dataKey: SecureBytes, into file: KeySlotFile, id: Int, kind: KeySlotFile.Slot.Kind,
                     key: NewSlotKey, databaseSalt: [UInt8], label: String) throws -> KeySlotFile.Slot {
        var slot = KeySlotFile.Slot(
            id: id, kind: kind, derivation: key.derivation, kdfSalt: key.kdfSalt, databaseSalt: databaseSalt,
            created: Int64(Date().timeIntervalSince1970), label: label, nonce: [], sealedKey: [])
        let nonce = AES.GCM.Nonce()
        let box = try dataKey.withUnsafeBytes {
            try AES.GCM.seal($0, using: key.wrappingKey, nonce: nonce, authenticating: file.associatedData(for: slot))
        }
        slot.nonce = Array(nonce)
        slot.sealedKey = Array(box.ciphertext) + Array(box.tag)
        return slot
    }

    /// The data key in `slot`, or `nil` when `wrappingKey` does not open it.
    static func open(_ slot: KeySlotFile.Slot, of file: KeySlotFile, with wrappingKey: SymmetricKey) -> SecureBytes? {
        guard let nonce = try? AES.GCM.Nonce(data: slot.nonce),
              let box = try? AES.GCM.SealedBox(nonce: nonce, ciphertext: slot.sealedKey[0..<32], tag: slot.sealedKey[32...]),
              var plain = try? AES.GCM.open(box, using: wrappingKey, authenticating: file.associatedData(for: slot)),
              plain.count == 32
        else { return nil }
        defer { plain.withUnsafeMutableBytes { SecureMemory.wipe($0) } }
        return SecureBytes(count: 32) { $0.copyBytes(from: plain) }
    }

    /// Opens the slot `slotID` of `file` (read back from disk) with its wrapping key: the bytes
    /// on disk, not the ones in memory, must give the data key.
    /// - Throws: ``KeySlotError/readBackFailed(path:)``.
    static func checkReadBack(_ file: KeySlotFile, database: String, slotID: Int, wrappingKey: SymmetricKey, dataKey: SecureBytes) throws {
        guard let slot = file.slots.first(where: { $0.id == slotID }),
              let opened = open(slot, of: file, with: wrappingKey),
              opened.withUnsafeBytes({ a in dataKey.withUnsafeBytes { b in a.elementsEqual(b) } })
        else { throw KeySlotError.readBackFailed(path: database) }
    }
}
