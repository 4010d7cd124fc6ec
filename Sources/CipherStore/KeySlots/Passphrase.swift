/// A passphrase (or a recovery key) for a key slot, kept in a buffer wiped when it is released.
///
/// Used as the exact UTF-8 bytes given, like ``DatabaseKey/passphrase(_:)``: no Unicode
/// normalisation, no trimming.
///
/// ```swift
/// let key = try DatabaseKey.slots(passphrase: Passphrase("correct horse battery staple"), path: "app.db")
/// ```
///
/// A Swift `String` cannot be wiped by CipherStore; read secrets into a byte array and use
/// ``init(bytes:)`` where that matters. `description` never shows the passphrase.
public final class Passphrase: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let bytes: SecureBytes

    /// A passphrase, as its UTF-8 bytes.
    /// - Throws: ``CipherStoreError/invalidKey(reason:)`` when it is empty.
    public convenience init(_ passphrase: String) throws {
        var utf8 = Array(passphrase.utf8)
        defer { utf8.withUnsafeMutableBytes { SecureMemory.wipe($0) } }
        try self.init(bytes: utf8)
    }

    /// A passphrase given as bytes (usually UTF-8), for example read from a key file. The bytes
    /// are copied; wipe your own copy when done.
    /// - Throws: ``CipherStoreError/invalidKey(reason:)`` when it is empty.
    public init(bytes: some Collection<UInt8>) throws {
        guard !bytes.isEmpty else {
            throw CipherStoreError.invalidKey(reason: "the passphrase is empty. Choose a non-empty passphrase.")
        }
        self.bytes = SecureBytes(count: bytes.count) { $0.copyBytes(from: bytes) }
    }

    public var description: String { "Passphrase(redacted)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
