import CryptoExtras
import Foundation

/// Stretches a passphrase once for every connection of a pool.
///
/// SQLCipher derives a page key from a passphrase with PBKDF2 over the file's salt (its first
/// 16 bytes), each time a connection is keyed: tens or hundreds of milliseconds per
/// connection. Given the derived key and the salt instead (the `x'<key><salt>'` form, see
/// ``DatabaseKey/Kind/rawKeyWithSalt``), it skips the derivation. So a pool runs PBKDF2 once,
/// with the settings SQLCipher would use, and keys all its connections with the result. For
/// a new file the salt is chosen here, and SQLCipher writes it into the first page; the file
/// still opens with the passphrase anywhere.
///
/// The settings are the configuration's (`kdfIterations`, `kdfAlgorithm`) or the linked
/// SQLCipher's defaults. Whether the derived key is right is not assumed: the writer opens
/// with it, and SQLCipher checks it against the first page's HMAC; when it does not open, the
/// pool falls back to the passphrase for every connection.
enum SharedKeyDerivation {
    /// The derived key with its salt, or `nil` when this derivation does not apply (a
    /// plaintext header, a file too short to hold a salt, a plaintext SQLite file).
    static func rawKeyWithSalt(for passphrase: DatabaseKey, path: String, cipher: CipherSettings) throws -> DatabaseKey? {
        guard passphrase.kind == .passphrase, (cipher.plaintextHeaderSize ?? 0) == 0 else { return nil }
        guard let salt = try salt(path: path) else { return nil }
        return try rawKeyWithSalt(for: passphrase, salt: salt, cipher: cipher)
    }

    /// The key SQLCipher would derive from `passphrase` for a file with this salt, with the
    /// salt; `nil` for a key that is not a passphrase or settings with a plaintext header.
    static func rawKeyWithSalt(for passphrase: DatabaseKey, salt: [UInt8], cipher: CipherSettings) throws -> DatabaseKey? {
        guard passphrase.kind == .passphrase, (cipher.plaintextHeaderSize ?? 0) == 0, salt.count == 16 else { return nil }
        let settings = cipher.filling(from: .linkedDefaults)
        let iterations = settings.kdfIterations ?? CipherSettings.linkedDefaults.kdfIterations ?? 0
        let hash: KDF.Insecure.PBKDF2.HashFunction
        switch settings.kdfAlgorithm ?? .sha1 {
        case .sha1: hash = .insecureSHA1
        case .sha256: hash = .sha256
        case .sha512: hash = .sha512
        }
        let derived = try passphrase.withKeyBytes { bytes in
            try KDF.Insecure.PBKDF2.deriveKey(from: bytes, salt: salt, using: hash, outputByteCount: 32,
                                              unsafeUncheckedRounds: iterations)
        }
        return try derived.withUnsafeBytes { try DatabaseKey.rawKey($0, salt: salt) }
    }

    /// The file's salt, or a new random one when the file is empty or missing.
    private static func salt(path: String) throws -> [UInt8]? {
        guard FileSystem.size(path) > 0 else { return SecureRandom.bytes(16) }
        return DatabaseFileInfo.salt(of: path)
    }
}
