import Foundation

/// Finds the cipher settings an encrypted file was made with, given its key: the answer to
/// "file is not a database" after an upgrade, a port or a change of library.
///
/// It tries the settings of any file SQLCipher 1 to 4 writes — page sizes from 512 to 65536,
/// every PBKDF2 iteration count from 1 to 1,000,000 (and any given above that), PBKDF2 with
/// SHA-1, SHA-256 or SHA-512, HMAC on or off with each of those hashes, SQLCipher 2.0's HMAC
/// variants (big-endian page numbers, the 0x00 salt mask), a 32-byte plaintext header when a
/// salt is given — against the file's first page, with its own code rather than SQLite: so a
/// SQLCipher 4 file is recognised even when the linked SQLCipher is 3.4.1.
///
/// A passphrase is stretched once per KDF hash: PBKDF2's key for c iterations is the XOR of
/// the first c blocks of one chain, so one run to 1,000,000 passes every smaller count's key,
/// and each is tested with an AES block or two of the first page (the header's reserved bytes
/// decrypt to zero; one damaged byte does not hide the right key). The three runs share the
/// processor's cores: about a second for the whole range in a release build with SHA and AES
/// instructions (x86-64 with SHA-NI and AES-NI; elsewhere portable C, several times slower). A
/// key that passes is checked with every page size and HMAC choice, and the settings found are
/// opened with the linked SQLCipher. A raw key needs no stretching. See <doc:FindingCipherSettings>.
///
/// ```swift
/// if let found = try CipherSettingsFinder.find(path: "app.db", key: key) {
///     let queue = try DatabaseQueue(path: "app.db", key: key, configuration: Configuration(cipher: found.settings))
/// }
/// ```
public enum CipherSettingsFinder {
    /// Settings that open a file with a given key.
    public struct Found: Sendable, Equatable {
        /// Every setting the file was made with (none left `nil`, but ``CipherSettings/salt``,
        /// which is set only for a file with a plaintext header, and SQLCipher 2.0's HMAC
        /// variants, set only for a file that has them).
        public let settings: CipherSettings
        /// Whether the linked SQLCipher opened the file with them.
        public let opensWithLinkedSQLCipher: Bool
        /// Whether the linked SQLCipher can read files with these settings at all (SQLCipher 3
        /// has no SHA-256 or SHA-512 and no plaintext header). When it can and yet the file did
        /// not open, the first page is intact but the file is damaged further on.
        public let linkedSQLCipherSupportsThem: Bool
        /// How many passphrase stretchings (PBKDF2 runs) the search started: one per KDF hash
        /// (and salt) for the counts up to the limit, whichever count it stopped at, plus one per
        /// count above the limit that was tried.
        public let keyDerivations: Int
        /// How many candidates were tried: each iteration count of each PBKDF2 run (one test
        /// covers every page size and HMAC choice), and each combination of page size and HMAC
        /// checked in full.
        public let candidatesTried: Int
        /// Whether these settings were found on page 2 because page 1 opens with none: the
        /// key and settings are right, and page 1 is damaged (a repair reads the rest).
        public var firstPageDamaged = false
        /// Whether these settings were found with the salt the database's schema copy keeps
        /// because the file's first 16 bytes (its salt) open nothing: they are damaged.
        public var saltFromSchemaCopy = false
    }

    /// The page sizes SQLCipher allows, most common first.
    static let pageSizes = [4096, 1024, 2048, 8192, 512, 16384, 32768, 65536]
    /// KDF iteration counts of SQLCipher's defaults: 4.x, 3.x, 1.x and 2.x.
    static let defaultIterations = [256_000, 64_000, 4_000]
    /// The highest PBKDF2 iteration count ``find(path:key:kdfIterations:salt:maxKDFIterations:)``
    /// searches by default: every count from 1 to this one is tried.
    public static let defaultMaxKDFIterations = 1_000_000

    /// A KDF and page HMAC as one version of SQLCipher pairs them.
    struct Family: Equatable {
        let kdf: CipherSettings.HashAlgorithm
        let hmac: CipherSettings.HashAlgorithm?
    }

    /// SQLCipher 4 (SHA-512), 3 and 2 (SHA-1), 1 or HMAC off (SHA-1, no HMAC), then SHA-256 and
    /// every other pairing SQLCipher 4's two pragmas allow (each hash for the KDF, each or none
    /// for the HMAC): the KDF's changed alone, SQLCipher 4's HMAC kept, first.
    static let families = [
        Family(kdf: .sha512, hmac: .sha512), Family(kdf: .sha1, hmac: .sha1), Family(kdf: .sha1, hmac: nil),
        Family(kdf: .sha256, hmac: .sha256), Family(kdf: .sha256, hmac: .sha512), Family(kdf: .sha1, hmac: .sha512),
        Family(kdf: .sha512, hmac: nil), Family(kdf: .sha256, hmac: nil),
        Family(kdf: .sha512, hmac: .sha1), Family(kdf: .sha512, hmac: .sha256),
        Family(kdf: .sha1, hmac: .sha256), Family(kdf: .sha256, hmac: .sha1),
    ]

    /// Tries the settings SQLCipher writes with `key` and returns the first that opens the
    /// file, or `nil` when none does (the key is wrong, or the file is damaged).
    ///
    /// - Parameters:
    ///   - path: the encrypted database.
    ///   - key: its key (a passphrase or a raw key).
    ///   - kdfIterations: iteration counts to try besides every count up to `maxKDFIterations`
    ///     (those above it are stretched one by one, first).
    ///   - salt: for a file with a plaintext header, the 16-byte salt kept with the key; the
    ///     file is then also tried with a 32-byte plaintext header.
    ///   - maxKDFIterations: the highest iteration count of the search (every count from 1 up);
    ///     0 tries the defaults of every SQLCipher version and `kdfIterations` only.
    /// When page 1 opens with nothing, page 2 is tried with each key checked in full (one that
    /// passes the search's block test, and those of the defaults and the counts given), with
    /// HMAC, which tells a right key: settings found there come with ``Found/firstPageDamaged``.
    ///
    /// - Throws: ``DatabaseFileError/sourceMissing(path:)`` and the other errors of a file that
    ///   is not there or not regular, ``CipherStoreError/notEncrypted(path:)`` for a plaintext
    ///   SQLite file, ``DatabaseFileError/damaged(path:detail:)`` for a file shorter than the
    ///   smallest page, or one that is not a whole number of pages and opens with nothing.
    public static func find(path: String, key: DatabaseKey, kdfIterations: [Int] = [], salt: [UInt8]? = nil,
                            maxKDFIterations: Int = defaultMaxKDFIterations) throws -> Found? {
        guard (0...Int(Int32.max)).contains(maxKDFIterations) else {
            throw CipherStoreError.invalidConfiguration(reason: "the highest KDF iteration count to search must be from 0 to 2,147,483,647, got \(maxKDFIterations).")
        }
        try DatabaseFile.checkExistingDatabaseFile(path)
        let info = DatabaseFileInfo.inspect(path: path)
        if info.kind == .plaintext { throw CipherStoreError.notEncrypted(path: path) }
        let smallest = pageSizes.min() ?? 512
        guard info.size >= Int64(smallest) else {
            throw DatabaseFileError.damaged(path: path, detail: "it is \(info.size) bytes, shorter than the smallest page SQLCipher writes (\(smallest) bytes): it was cut short")
        }
        let firstPages = try readFirstBytes(path, count: 2 * (pageSizes.max() ?? 65536))
        var found = try find(firstPage: firstPages, hasPlaintextHeader: info.hasPlaintextHeader, key: key, kdfIterations: kdfIterations,
                             maxKDFIterations: maxKDFIterations, salt: salt, path: path)
        // The salt is kept in the schema copy too: with it, damaged first bytes are told from a wrong key.
        if found == nil, !info.hasPlaintextHeader, let kept = SchemaCopy.storedSalt(forDatabase: path), kept != Array(firstPages.prefix(16)) {
            found = try find(firstPage: kept + firstPages.dropFirst(16), hasPlaintextHeader: false, key: key, kdfIterations: kdfIterations,
                             maxKDFIterations: maxKDFIterations, salt: nil, path: nil)
            found?.saltFromSchemaCopy = true
        }
        if found == nil, info.size % Int64(smallest) != 0 {
            throw DatabaseFileError.damaged(path: path, detail: "it is \(info.size) bytes, not a whole number of pages, and no setting opens its first page with this key: it was cut short (or the key is wrong as well)")
        }
        return found
    }

    /// The search on the first bytes of a file, without the file: for the fuzz target of the
    /// page reader, which runs it thousands of times a second. Settings found are not opened.
    @_spi(Fuzzing)
    public static func find(firstPage: [UInt8], key: DatabaseKey) throws -> Found? {
        try find(firstPage: firstPage, hasPlaintextHeader: false, key: key, kdfIterations: [], maxKDFIterations: 0, salt: nil, path: nil)
    }

    /// - Parameter path: the file, opened with the settings found; `nil` to leave that out.
    private static func find(firstPage: [UInt8], hasPlaintextHeader: Bool, key: DatabaseKey, kdfIterations: [Int],
                             maxKDFIterations: Int, salt: [UInt8]?, path: String?) throws -> Found? {
        var layouts: [SettingsSearch.Layout] = []
        if firstPage.count >= 16 && !hasPlaintextHeader { layouts.append(.init(headerSize: 16, salt: Array(firstPage[0..<16]))) }
        if let salt, salt.count == 16 { layouts.append(.init(headerSize: 32, salt: salt)) }
        var search = SettingsSearch(firstPage: firstPage, layouts: layouts, path: path)
        guard key.kind == .passphrase else { return try search.withRawKey(key) ?? search.damagedFirstPage() }
        let counts = orderedIterations(extra: kdfIterations)
        // Counts above the search's limit (given, or defaults above a lowered limit) first, one
        // derivation each; then every count up to the limit.
        return try search.stretchingOneByOne(key, counts: counts.filter { $0 > maxKDFIterations }, given: kdfIterations)
            ?? search.searchingEveryCount(key, upTo: maxKDFIterations, stops: counts.filter { $0 <= maxKDFIterations })
            ?? search.damagedFirstPage()
    }

    /// Each KDF hash with the page HMACs it goes with, in the order of ``orderedFamilies()``.
    static func kdfOrder() -> [(kdf: CipherSettings.HashAlgorithm, hmacChoices: [CipherSettings.HashAlgorithm?])] {
        var order: [(kdf: CipherSettings.HashAlgorithm, hmacChoices: [CipherSettings.HashAlgorithm?])] = []
        for family in orderedFamilies() where !order.contains(where: { $0.kdf == family.kdf }) {
            order.append((family.kdf, hmacChoices(for: family.kdf)))
        }
        return order
    }

    /// The page HMACs that go with a KDF hash, most likely first.
    static func hmacChoices(for kdf: CipherSettings.HashAlgorithm) -> [CipherSettings.HashAlgorithm?] {
        orderedFamilies().filter { $0.kdf == kdf }.map(\.hmac)
    }

    /// The linked SQLCipher's defaults first.
    static func orderedFamilies() -> [Family] {
        SQLCipherLibrary.sqlcipherMajorVersion >= 4 ? families : [families[1], families[2], families[0]] + families[3...]
    }

    static func orderedIterations(extra: [Int]) -> [Int] {
        let defaults = SQLCipherLibrary.sqlcipherMajorVersion >= 4 ? defaultIterations : [64_000, 256_000, 4_000]
        var ordered: [Int] = []
        for iterations in extra + defaults where iterations > 0 && !ordered.contains(iterations) { ordered.append(iterations) }
        return ordered
    }

    /// SQLCipher 3 knows PBKDF2-HMAC-SHA1 and HMAC-SHA1 only, and no plaintext header.
    static func supportedByLinkedSQLCipher(_ settings: CipherSettings) -> Bool {
        SQLCipherLibrary.sqlcipherMajorVersion >= 4
            || (settings.kdfAlgorithm == .sha1 && (settings.useHMAC == false || settings.hmacAlgorithm == .sha1)
                && (settings.plaintextHeaderSize ?? 0) == 0)
    }

    /// Opened as `verify` opens a file: it leaves no `-wal` or `-shm` behind (see
    /// ``DatabaseFile/openForReading(path:key:cipher:)``).
    static func opensWithLinkedSQLCipher(_ path: String, key: DatabaseKey, settings: CipherSettings) -> Bool {
        guard let db = try? DatabaseFile.openForReading(path: path, key: key, cipher: settings) else {
            return false
        }
        try? db.close()
        return true
    }

    private static func readFirstBytes(_ path: String, count: Int) throws -> [UInt8] {
        guard let bytes = LockKeepingRead.prefix(of: path, count: count) else { throw FileSystem.ioError("read", path) }
        return bytes
    }
}
