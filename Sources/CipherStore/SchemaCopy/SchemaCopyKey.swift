import Crypto
import Foundation

/// The key a database's schema copy (see ``SchemaCopy``) is sealed with: HKDF-SHA256 of the
/// database's page key (the 32 bytes SQLCipher encrypts pages with: a raw key as given, a
/// passphrase as PBKDF2 stretched it) and its salt.
///
/// Whoever can decrypt the database's pages can open its schema copy, and nobody else: the
/// copy adds no way to test a passphrase that is cheaper than the database itself.
struct SchemaCopyKey: Sendable {
    let key: SymmetricKey
    /// The salt of the database the copy belongs to.
    let salt: [UInt8]

    private static let info = Array("CipherStore schema copy v1".utf8)

    init(pageKey: UnsafeRawBufferPointer, salt: [UInt8]) {
        self.salt = salt
        key = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: pageKey), salt: salt, info: Self.info, outputByteCount: 32)
    }

    /// The sealing key for the database at `path` opened with `key`, or `nil` when there is
    /// none to make: no key (plaintext), or a plaintext header and no salt known.
    ///
    /// A raw key costs nothing; a passphrase is stretched once, as SQLCipher stretches it
    /// (give the pool's or conversion's derived key instead when there is one). With `db`, a
    /// connection open on the file, the salt is read through that connection's handle: a
    /// second descriptor closed would drop the locks the process holds on the file.
    static func forDatabase(at path: String, key: DatabaseKey?, cipher: CipherSettings, openOn db: Connection? = nil) throws -> SchemaCopyKey? {
        guard var key else { return nil }
        if key.kind == .passphrase {
            guard let derived = try SharedKeyDerivation.rawKeyWithSalt(for: key, salt: fileSalt(path, cipher: cipher, db: db) ?? [], cipher: cipher) else {
                return nil
            }
            key = derived
        }
        let (pageKey, keySalt) = try key.rawKeyBytes()
        guard let salt = keySalt ?? fileSalt(path, cipher: cipher, db: db) else { return nil }
        return pageKey.withUnsafeBytes { SchemaCopyKey(pageKey: $0, salt: salt) }
    }

    /// The salt SQLCipher reads: the file's first 16 bytes, or the settings' with a plaintext header.
    private static func fileSalt(_ path: String, cipher: CipherSettings, db: Connection?) -> [UInt8]? {
        if (cipher.plaintextHeaderSize ?? 0) > 0 { return cipher.salt }
        if let db { return db.mainFileSalt() }
        return DatabaseFileInfo.salt(of: path)
    }
}
