import Foundation

/// One slot of a key-slot file, as ``KeySlots/list(path:)`` shows it: no secrets.
public struct KeySlotInfo: Sendable, Hashable, CustomStringConvertible {
    /// What opens a slot.
    public enum Kind: String, Sendable, Hashable {
        /// A passphrase chosen by a person, stretched by scrypt or PBKDF2.
        case passphrase
        /// A random recovery key made by CipherStore.
        case recoveryKey = "recovery key"
    }

    /// The slot's number, unique in its file and never reused.
    public let id: Int
    public let kind: Kind
    /// A name given when the slot was made (may be empty).
    public let label: String
    /// The key derivation and its parameters, such as `scrypt(N=2^15, r=8, p=1)`.
    public let kdf: String
    /// When the slot was made (to the second).
    public let created: Date
    /// Whether the slot opens the database as it is now; `false` only for slots of another
    /// data key, left by an interrupted data-key rotation.
    public let opensCurrentDatabase: Bool

    init(_ slot: KeySlotFile.Slot, currentSalt: [UInt8]?) {
        id = slot.id
        kind = slot.kind == .passphrase ? .passphrase : .recoveryKey
        label = slot.label
        created = Date(timeIntervalSince1970: TimeInterval(slot.created))
        opensCurrentDatabase = currentSalt == slot.databaseSalt
        let (p1, p2, p3) = slot.derivation.parameters
        switch slot.derivation.algorithm {
        case .scrypt: kdf = "scrypt(N=2^\(p1), r=\(p2), p=\(p3))"
        case .pbkdf2SHA256: kdf = "PBKDF2-HMAC-SHA256(\(p1) iterations)"
        case .hkdfSHA256: kdf = "HKDF-SHA256"
        }
    }

    public var description: String {
        "slot \(id): \(kind.rawValue)\(label.isEmpty ? "" : " '\(label)'"), \(kdf), created \(created)"
    }
}
