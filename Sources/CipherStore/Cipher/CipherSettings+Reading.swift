extension CipherSettings {
    /// The settings that opened the main database of `db`, read back from SQLCipher: page size,
    /// and for an encrypted database KDF iterations and HMAC use; with SQLCipher 4 also the KDF
    /// and HMAC algorithms and the plaintext header size.
    ///
    /// ```swift
    /// let db = try Connection(path: "app.db", key: key)
    /// let settings = try CipherSettings.inUse(by: db)  // pageSize 4096, kdfIterations 256000…
    /// ```
    public static func inUse(by db: Connection) throws -> CipherSettings {
        try inUse(by: db, encrypted: db.isEncrypted)
    }

    /// The settings one database of an open connection actually uses, read back from
    /// SQLCipher: page size, and for an encrypted database KDF iterations and HMAC use (with
    /// SQLCipher 4, also the algorithms and the plaintext header size).
    ///
    /// - Parameter encrypted: whether that database is keyed; a plaintext one has a page size only.
    static func inUse(by db: Connection, schema: String = "main", encrypted: Bool) throws -> CipherSettings {
        let prefix = "PRAGMA " + Connection.quoteIdentifier(schema) + "."
        // SQLCipher answers its own pragmas with text ("4096"); SQLite's with integers.
        func integer(_ pragma: String) throws -> Int? {
            switch try db.fetchOne(sql: prefix + pragma)?[0] {
            case .integer(let value)?: return Int(value)
            case .text(let text)?: return Int(text)
            default: return nil
            }
        }
        guard encrypted else {
            return CipherSettings(pageSize: try integer("page_size"))
        }
        var settings = CipherSettings(
            pageSize: try integer("cipher_page_size"),
            kdfIterations: try integer("kdf_iter"),
            useHMAC: try integer("cipher_use_hmac").map { $0 != 0 })
        if SQLCipherLibrary.sqlcipherMajorVersion >= 4 {
            settings.kdfAlgorithm = try db.fetchScalar(String.self, sql: prefix + "cipher_kdf_algorithm")
                .flatMap { HashAlgorithm(rawValue: $0.hasPrefix("PBKDF2_") ? String($0.dropFirst(7)) : $0) }
            settings.hmacAlgorithm = try db.fetchScalar(String.self, sql: prefix + "cipher_hmac_algorithm").flatMap(HashAlgorithm.init(rawValue:))
            settings.plaintextHeaderSize = try integer("cipher_plaintext_header_size")
        }
        return settings
    }

    /// The 16-byte KDF salt of a database of `db` (`PRAGMA cipher_salt`), by default its main
    /// one: what a file with a plaintext header must be reopened with (``salt``). `nil` when
    /// that database is not encrypted or the linked SQLCipher is 3.x, which cannot report it.
    public static func salt(in db: Connection, schema: String = "main") throws -> [UInt8]? {
        guard schema != "main" || db.isEncrypted, SQLCipherLibrary.sqlcipherMajorVersion >= 4,
              let hex = try db.fetchScalar(String.self, sql: "PRAGMA " + Connection.quoteIdentifier(schema) + ".cipher_salt"),
              hex.utf8.count == 32 else { return nil }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }

    /// These settings, with each one left `nil` taken from `other`.
    func filling(from other: CipherSettings) -> CipherSettings {
        CipherSettings(
            pageSize: pageSize ?? other.pageSize, kdfIterations: kdfIterations ?? other.kdfIterations,
            useHMAC: useHMAC ?? other.useHMAC, kdfAlgorithm: kdfAlgorithm ?? other.kdfAlgorithm,
            hmacAlgorithm: hmacAlgorithm ?? other.hmacAlgorithm,
            plaintextHeaderSize: plaintextHeaderSize ?? other.plaintextHeaderSize, salt: salt ?? other.salt,
            hmacPageNumberByteOrder: hmacPageNumberByteOrder ?? other.hmacPageNumberByteOrder,
            hmacSaltMask: hmacSaltMask ?? other.hmacSaltMask, hmacKDFIterations: hmacKDFIterations ?? other.hmacKDFIterations)
    }
}
