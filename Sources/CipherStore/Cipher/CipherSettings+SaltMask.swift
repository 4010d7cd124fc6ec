extension CipherSettings {
    /// The key to give SQLCipher for a file with its own HMAC salt mask (``hmacSaltMask``), or
    /// `key` itself for SQLCipher's 0x3a.
    ///
    /// SQLCipher derives the HMAC key over the salt XORed with a mask it keeps for the whole
    /// process (`PRAGMA cipher_hmac_salt_mask` would change it for every other connection, and
    /// a file written meanwhile would be unreadable with the default). Instead, the page key is
    /// derived here (or taken from a raw key) and given with the salt XORed with both masks:
    /// SQLCipher then XORs 0x3a back in and derives the HMAC key over `salt ^ mask`. The page
    /// key does not depend on that salt, but a write to page 1 would store it in the file: the
    /// connection must be read-only.
    ///
    /// - Parameters:
    ///   - path: the database file, whose first 16 bytes are the salt.
    ///   - readOnly: whether the connection opens the file read-only.
    /// - Throws: ``CipherStoreError/invalidConfiguration(reason:)`` for a connection that may
    ///   write, or a file with no salt to read.
    func keyApplyingSaltMask(_ key: DatabaseKey, path: String?, readOnly: Bool) throws -> DatabaseKey {
        guard let mask = hmacSaltMask, hasOwnSaltMask else { return key }
        guard readOnly else {
            throw CipherStoreError.invalidConfiguration(reason: "a file with an HMAC salt mask other than 0x3a (SQLCipher 2.0.0) opens read-only only: SQLCipher keeps the mask for the whole process. Open it with readOnly: true, and copy it to today's format to write to it.")
        }
        guard let path, let fileSalt = DatabaseFileInfo.salt(of: path) else {
            throw CipherStoreError.invalidConfiguration(reason: "an HMAC salt mask other than 0x3a needs an existing encrypted file, whose first 16 bytes are its salt.")
        }
        let pageKey: SecureBytes
        switch key.kind {
        case .rawKey, .rawKeyWithSalt:
            pageKey = try key.rawKeyBytes().key
        case .passphrase:
            guard let derived = try SharedKeyDerivation.rawKeyWithSalt(for: key, salt: fileSalt, cipher: self) else {
                throw CipherStoreError.invalidConfiguration(reason: "an HMAC salt mask other than 0x3a cannot go with a plaintext header.")
            }
            pageKey = try derived.rawKeyBytes().key
        }
        let givenSalt = key.kind == .rawKeyWithSalt ? try key.rawKeyBytes().salt : nil
        let salt = (givenSalt ?? fileSalt).map { $0 ^ mask ^ PageCipher.defaultHMACSaltMask }
        return try pageKey.withUnsafeBytes { try DatabaseKey.rawKey($0, salt: salt) }
    }
}
