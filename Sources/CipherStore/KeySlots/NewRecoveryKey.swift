/// A recovery key just added: its slot, and the key as text to show the user once.
///
/// The text is 40 characters in eight groups of five (`ABCDE-FGHIJ-…`) with a checksum; it
/// opens the database like a passphrase (`Passphrase(text)`), with or without the dashes, in any
/// case. CipherStore keeps no copy: whoever does not write it down loses it.
public struct NewRecoveryKey: Sendable, CustomStringConvertible {
    /// The slot that holds it.
    public let slot: KeySlotInfo
    /// The recovery key, to be written down.
    public let text: String

    public var description: String { "NewRecoveryKey(slot \(slot.id), redacted)" }
}
