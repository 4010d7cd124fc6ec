import Crypto

/// The contents of a key-slot file (format version 1, described in the KeySlots article):
/// a header, the slots, and a SHA-256 of everything before it.
struct KeySlotFile: Sendable {
    static let magic = Array("cipherstore-keys".utf8)
    static let formatVersion = 1
    static let maximumSlots = 32
    static let maximumLabelBytes = 200

    /// One slot: the data key wrapped under a key derived from one secret.
    struct Slot: Sendable {
        enum Kind: UInt8, Sendable {
            case passphrase = 1
            case recoveryKey = 2
        }

        var id: Int
        var kind: Kind
        var derivation: KeyDerivation
        var kdfSalt: [UInt8]
        /// The salt of the database this slot's data key opens (its file's first 16 bytes).
        var databaseSalt: [UInt8]
        var created: Int64
        var label: String
        var nonce: [UInt8]
        /// The data key encrypted with AES-256-GCM, then the tag.
        var sealedKey: [UInt8]

        /// Every field before the nonce, as stored: part of the slot's associated data.
        var authenticatedFields: [UInt8] {
            var writer = ByteWriter()
            writer.put(UInt32(id))
            writer.put(kind.rawValue)
            writer.put(derivation.algorithm.rawValue)
            writer.put(UInt32(derivation.parameters.0))
            writer.put(UInt32(derivation.parameters.1))
            writer.put(UInt32(derivation.parameters.2))
            writer.put(kdfSalt)
            writer.put(databaseSalt)
            writer.put(UInt64(bitPattern: created))
            let label = Array(label.utf8)
            writer.put(UInt16(label.count))
            writer.put(label)
            return writer.bytes
        }
    }

    var fileID: [UInt8]
    var slots: [Slot]

    /// The associated data of `slot`'s AES-GCM: magic, version, file id and the slot's fields.
    func associatedData(for slot: Slot) -> [UInt8] {
        var writer = ByteWriter()
        writer.put(Self.magic)
        writer.put(UInt16(Self.formatVersion))
        writer.put(fileID)
        writer.put(slot.authenticatedFields)
        return writer.bytes
    }

    /// The file's bytes.
    func serialized() -> [UInt8] {
        var writer = ByteWriter()
        writer.put(Self.magic)
        writer.put(UInt16(Self.formatVersion))
        writer.put(UInt16(slots.count))
        writer.put(fileID)
        for slot in slots {
            writer.put(slot.authenticatedFields)
            writer.put(slot.nonce)
            writer.put(slot.sealedKey)
        }
        writer.put(Self.checksum(writer.bytes))
        return writer.bytes
    }

    /// The trailing SHA-256 of a file whose other bytes are `body`.
    static func checksum(_ body: some Collection<UInt8>) -> [UInt8] {
        Array(SHA256.hash(data: Array(body)))
    }

    /// The number a new slot gets: one more than any slot's, so numbers are not reused. Past a
    /// slot numbered 2^32 − 1, the largest the format stores (only a crafted file has one), the
    /// lowest number no slot has.
    var nextSlotID: Int {
        let highest = slots.map(\.id).max() ?? 0
        if highest < Int(UInt32.max) { return highest + 1 }
        var id = 1
        while slots.contains(where: { $0.id == id }) { id += 1 }
        return id
    }

    /// The slots that open the database with this salt.
    func slots(forDatabaseSalt salt: [UInt8]) -> [Slot] {
        slots.filter { $0.databaseSalt == salt }
    }
}

/// Appends big-endian integers and bytes.
struct ByteWriter {
    var bytes: [UInt8] = []
    mutating func put(_ value: UInt8) { bytes.append(value) }
    mutating func put(_ value: UInt16) { bytes += [UInt8(value >> 8), UInt8(value & 0xFF)] }
    mutating func put(_ value: UInt32) { for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) } }
    mutating func put(_ value: UInt64) { for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) } }
    mutating func put(_ value: [UInt8]) { bytes += value }
}
