/// How SQLCipher encrypts a database: page size, key derivation and per-page HMAC.
///
/// Settings are applied to each connection right after keying, and must match the ones the
/// file was created with. Every requested setting is read back after it is applied: SQLCipher
/// 3.4.1 silently ignores settings it does not know (for example the SQLCipher 4 algorithm
/// pragmas), so a setting that does not read back throws
/// ``CipherStoreError/unsupportedCipherSetting(setting:sqlcipherVersion:)`` instead of being
/// trusted.
///
/// ```swift
/// var settings = CipherSettings.sqlcipher3
/// settings.pageSize = 4096
/// let queue = try DatabaseQueue(path: "app.db", key: key,
///                               configuration: Configuration(cipher: settings))
/// ```
///
/// See <https://www.zetetic.net/sqlcipher/sqlcipher-api/>.
public struct CipherSettings: Sendable, Hashable {
    /// Hash algorithms named by SQLCipher 4's `cipher_kdf_algorithm` / `cipher_hmac_algorithm`.
    public enum HashAlgorithm: String, Sendable, Hashable {
        case sha1 = "HMAC_SHA1"
        case sha256 = "HMAC_SHA256"
        case sha512 = "HMAC_SHA512"

        /// The name SQLCipher 4's `cipher_kdf_algorithm` gives the KDF with this hash: `PBKDF2_HMAC_SHA512`.
        public var kdfName: String { "PBKDF2_" + rawValue }
    }

    /// The byte order of the page number in each page's HMAC (`cipher_hmac_pgno`).
    public enum PageNumberByteOrder: String, Sendable, Hashable {
        /// SQLCipher's default since 2.0.2 on every processor (`le`).
        case littleEndian = "le"
        /// As SQLCipher 2.0.0 to 2.0.6 wrote it on big-endian processors (`be`).
        case bigEndian = "be"
    }

    /// Page size in bytes (`cipher_page_size`): a power of two from 512 to 65536. `nil` keeps the library default.
    public var pageSize: Int?
    /// PBKDF2 iterations for passphrases (`kdf_iter`). `nil` keeps the library default.
    public var kdfIterations: Int?
    /// Whether each page carries an HMAC (`cipher_use_hmac`). `nil` keeps the library default.
    public var useHMAC: Bool?
    /// The KDF's hash (`cipher_kdf_algorithm`, SQLCipher 4 only; SHA-1 is SQLCipher 3's fixed choice).
    public var kdfAlgorithm: HashAlgorithm?
    /// The page HMAC's hash (`cipher_hmac_algorithm`, SQLCipher 4 only; SHA-1 is SQLCipher 3's fixed choice).
    public var hmacAlgorithm: HashAlgorithm?
    /// Bytes of the header left in plaintext (`cipher_plaintext_header_size`, SQLCipher 4 only). 0 is SQLCipher 3's behaviour.
    ///
    /// With a plaintext header (32 bytes is the usual choice: iOS then recognises a WAL
    /// database in a shared container and does not kill the app on suspend), the file no longer
    /// holds the KDF salt where SQLCipher reads it: keep the salt with the key and give it as
    /// ``salt`` to reopen the file. A new file's salt is read with ``salt(in:schema:)``; a conversion
    /// reports it in ``VerificationReport/plaintextHeaderSalt``.
    public var plaintextHeaderSize: Int?
    /// The 16-byte KDF salt (`cipher_salt`, SQLCipher 4 only). `nil` reads it from the file (or
    /// makes a random one for a new file), which a file with a plaintext header cannot do: give
    /// it here. Not secret, but needed: without it the key looks wrong.
    public var salt: [UInt8]?

    // The three settings below are for files of SQLCipher 2.0 (and files made with its
    // deprecated pragmas); the settings finder reports them when a file needs them.

    /// The byte order of the page number in each page's HMAC (`cipher_hmac_pgno`, deprecated).
    /// `nil` keeps SQLCipher's little-endian order; ``PageNumberByteOrder/bigEndian`` reads files
    /// that SQLCipher 2.0.0 to 2.0.6 wrote on big-endian processors.
    public var hmacPageNumberByteOrder: PageNumberByteOrder?
    /// The byte every salt byte is XORed with to derive the HMAC key (`cipher_hmac_salt_mask`,
    /// deprecated). `nil` keeps SQLCipher's 0x3a; SQLCipher 2.0.0, the first release with HMAC,
    /// used 0x00 (and ``hmacKDFIterations`` equal to ``kdfIterations``).
    ///
    /// SQLCipher keeps this mask for the whole process, so CipherStore never sets it: it derives
    /// the page key itself and keys the connection with it and a salt that gives SQLCipher's
    /// 0x3a the HMAC salt wanted. A write to page 1 would store that salt in the file, so
    /// another mask opens a file read-only only (`Configuration(readOnly: true)`), without a
    /// plaintext header; copy the file to today's format to write to it.
    public var hmacSaltMask: UInt8?
    /// PBKDF2 iterations that derive the HMAC key from the page key (`fast_kdf_iter`,
    /// deprecated). `nil` keeps SQLCipher's 2.
    public var hmacKDFIterations: Int?

    /// Creates settings; every `nil` keeps the linked library's default.
    public init(pageSize: Int? = nil, kdfIterations: Int? = nil, useHMAC: Bool? = nil,
                kdfAlgorithm: HashAlgorithm? = nil, hmacAlgorithm: HashAlgorithm? = nil,
                plaintextHeaderSize: Int? = nil, salt: [UInt8]? = nil,
                hmacPageNumberByteOrder: PageNumberByteOrder? = nil, hmacSaltMask: UInt8? = nil, hmacKDFIterations: Int? = nil) {
        self.pageSize = pageSize
        self.kdfIterations = kdfIterations
        self.useHMAC = useHMAC
        self.kdfAlgorithm = kdfAlgorithm
        self.hmacAlgorithm = hmacAlgorithm
        self.plaintextHeaderSize = plaintextHeaderSize
        self.salt = salt
        self.hmacPageNumberByteOrder = hmacPageNumberByteOrder
        self.hmacSaltMask = hmacSaltMask
        self.hmacKDFIterations = hmacKDFIterations
    }

    /// Whatever the linked SQLCipher does by default.
    public static let libraryDefaults = CipherSettings()

    /// SQLCipher 3's defaults: 1024-byte pages, 64,000 PBKDF2-HMAC-SHA1 iterations, HMAC-SHA1 pages.
    public static let sqlcipher3 = CipherSettings(
        pageSize: 1024, kdfIterations: 64_000, useHMAC: true,
        kdfAlgorithm: .sha1, hmacAlgorithm: .sha1, plaintextHeaderSize: 0)

    /// SQLCipher 4's defaults: 4096-byte pages, 256,000 PBKDF2-HMAC-SHA512 iterations,
    /// HMAC-SHA512 pages. Needs SQLCipher 4: SQLCipher 3.4.1 throws for the algorithms.
    public static let sqlcipher4 = CipherSettings(
        pageSize: 4096, kdfIterations: 256_000, useHMAC: true,
        kdfAlgorithm: .sha512, hmacAlgorithm: .sha512, plaintextHeaderSize: 0)

    /// The linked SQLCipher's own defaults, every setting given: ``sqlcipher4`` or ``sqlcipher3``.
    /// The one place that says which presets the linked library uses.
    public static var linkedDefaults: CipherSettings {
        SQLCipherLibrary.sqlcipherMajorVersion >= 4 ? .sqlcipher4 : .sqlcipher3
    }

    /// Checks values that no SQLCipher accepts, before anything touches a file.
    func validate() throws {
        if let pageSize, !(512...65536).contains(pageSize) || pageSize & (pageSize - 1) != 0 {
            throw CipherStoreError.invalidConfiguration(reason: "cipher page size \(pageSize) is not a power of two from 512 to 65536.")
        }
        // SQLCipher keeps the count in a C int: a larger one would not read back, which would
        // look like an unsupported setting rather than the value out of range it is.
        if let kdfIterations, !(1...Int(Int32.max)).contains(kdfIterations) {
            throw CipherStoreError.invalidConfiguration(reason: "KDF iterations must be from 1 to 2,147,483,647, got \(kdfIterations).")
        }
        if let plaintextHeaderSize, plaintextHeaderSize < 0 || plaintextHeaderSize % 16 != 0 {
            // SQLCipher 4 wants whole AES blocks; it would log the refusal and leave the setting broken.
            throw CipherStoreError.invalidConfiguration(reason: "plaintext header size \(plaintextHeaderSize) is not a multiple of 16 bytes (0, 16, 32…); 32 is the usual choice.")
        }
        if let salt, salt.count != 16 {
            throw CipherStoreError.invalidConfiguration(reason: "a salt must be 16 bytes (32 hexadecimal digits), got \(salt.count).")
        }
        if let hmacKDFIterations, !(1...Int(Int32.max)).contains(hmacKDFIterations) {
            throw CipherStoreError.invalidConfiguration(reason: "HMAC KDF iterations must be from 1 to 2,147,483,647, got \(hmacKDFIterations).")
        }
        if hasOwnSaltMask, (plaintextHeaderSize ?? 0) > 0 {
            throw CipherStoreError.invalidConfiguration(reason: "an HMAC salt mask other than 0x3a cannot go with a plaintext header (no SQLCipher version wrote such files). Drop one of the two settings.")
        }
    }

    /// The pragmas to run, each with the value it must read back as.
    ///
    /// Values are integers or fixed names checked above, never user text, so building the SQL
    /// from them is safe.
    var pragmas: [(name: String, value: String)] {
        var result: [(String, String)] = []
        if let pageSize { result.append(("cipher_page_size", String(pageSize))) }
        if let kdfIterations { result.append(("kdf_iter", String(kdfIterations))) }
        if let useHMAC { result.append(("cipher_use_hmac", useHMAC ? "1" : "0")) }
        if let kdfAlgorithm { result.append(("cipher_kdf_algorithm", kdfAlgorithm.kdfName)) }
        if let hmacAlgorithm { result.append(("cipher_hmac_algorithm", hmacAlgorithm.rawValue)) }
        if let plaintextHeaderSize { result.append(("cipher_plaintext_header_size", String(plaintextHeaderSize))) }
        // Set as x'…' and read back as bare hex (see Connection.applyCipherSettings).
        if let salt { result.append(("cipher_salt", Self.hex(salt))) }
        if let hmacPageNumberByteOrder { result.append(("cipher_hmac_pgno", hmacPageNumberByteOrder.rawValue)) }
        if let hmacKDFIterations { result.append(("fast_kdf_iter", String(hmacKDFIterations))) }
        // hmacSaltMask is no pragma here: SQLCipher would change it for every connection of the
        // process (see CipherSettings+SaltMask.swift).
        return result
    }

    /// These settings as a new file is written with them: SQLCipher 2.0's HMAC variants
    /// (``hmacPageNumberByteOrder``, ``hmacSaltMask``, ``hmacKDFIterations``) describe how an
    /// old file is read, and are dropped, so a copy of such a file has SQLCipher's current HMAC.
    ///
    /// ```swift
    /// let old = CipherSettings(kdfIterations: 4000, hmacSaltMask: 0x00, hmacKDFIterations: 4000)
    /// try DatabaseFile.changeKey(path: "old.db", oldKey: key, oldCipher: old,
    ///                            newKey: key, newCipher: old.forWriting, to: .file("today.db"))
    /// ```
    public var forWriting: CipherSettings {
        var settings = self
        settings.hmacPageNumberByteOrder = nil
        settings.hmacSaltMask = nil
        settings.hmacKDFIterations = nil
        return settings
    }

    /// Whether the HMAC salt mask differs from SQLCipher's 0x3a.
    var hasOwnSaltMask: Bool {
        hmacSaltMask.map { $0 != PageCipher.defaultHMACSaltMask } ?? false
    }

    /// Lowercase hexadecimal digits, as `PRAGMA cipher_salt` reads.
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }

    /// SQLCipher 3 cannot set these, but its fixed behaviour is the value asked for.
    func isBuiltInBehaviour(pragma: String, value: String, sqlcipherMajorVersion: Int) -> Bool {
        guard sqlcipherMajorVersion < 4 else { return false }
        switch pragma {
        case "cipher_kdf_algorithm": return value == HashAlgorithm.sha1.kdfName
        case "cipher_hmac_algorithm": return value == HashAlgorithm.sha1.rawValue
        case "cipher_plaintext_header_size": return value == "0"
        default: return false
        }
    }
}
