import Foundation

/// Finds the cipher settings an encrypted file was made with, given its key: the answer to
/// "file is not a database" after an upgrade, a port or a change of library.
///
/// It tries the plausible settings — the defaults of SQLCipher 1 to 4, page sizes from 512 to
/// 65536, 4,000, 64,000 and 256,000 KDF iterations (and any given), HMAC on or off with SHA-1,
/// SHA-256 or SHA-512, a 32-byte plaintext header when a salt is given — against the file's
/// first page, with swift-crypto (`PageCipher`), not SQLite: so a SQLCipher 4 file is
/// recognised even when the linked SQLCipher is 3.4.1. A passphrase is stretched at most once
/// per distinct KDF (hash, iterations), in order of likelihood; each stretched key is then tried
/// with every page size and HMAC choice, in microseconds. A raw key needs no stretching.
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
        /// which is set only for a file with a plaintext header).
        public let settings: CipherSettings
        /// Whether the linked SQLCipher opened the file with them.
        public let opensWithLinkedSQLCipher: Bool
        /// Whether the linked SQLCipher can read files with these settings at all (SQLCipher 3
        /// has no SHA-256 or SHA-512 and no plaintext header). When it can and yet the file did
        /// not open, the first page is intact but the file is damaged further on.
        public let linkedSQLCipherSupportsThem: Bool
        /// How many passphrase stretchings (PBKDF2 runs of the file's KDF) the search ran.
        public let keyDerivations: Int
        /// How many combinations of settings were tried.
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

    /// A KDF and page HMAC as one version of SQLCipher pairs them.
    struct Family: Equatable {
        let kdf: CipherSettings.HashAlgorithm
        let hmac: CipherSettings.HashAlgorithm?
    }

    /// SQLCipher 4 (SHA-512), 3 and 2 (SHA-1), 1 or HMAC off (SHA-1, no HMAC), then SHA-256 and
    /// the other combinations SQLCipher 4's pragmas allow.
    static let families = [
        Family(kdf: .sha512, hmac: .sha512), Family(kdf: .sha1, hmac: .sha1), Family(kdf: .sha1, hmac: nil),
        Family(kdf: .sha256, hmac: .sha256), Family(kdf: .sha512, hmac: nil), Family(kdf: .sha256, hmac: nil),
        Family(kdf: .sha512, hmac: .sha1), Family(kdf: .sha512, hmac: .sha256), Family(kdf: .sha1, hmac: .sha512),
    ]

    /// Tries the plausible settings with `key` and returns the first that opens the file, or
    /// `nil` when none does (the key is wrong, or the file is damaged).
    ///
    /// - Parameters:
    ///   - path: the encrypted database.
    ///   - key: its key (a passphrase or a raw key).
    ///   - kdfIterations: iteration counts to try besides the defaults of every SQLCipher version.
    ///   - salt: for a file with a plaintext header, the 16-byte salt kept with the key; the
    ///     file is then also tried with a 32-byte plaintext header.
    /// When page 1 opens with nothing, page 2 is tried with the same candidates (those with an
    /// HMAC, which tells a right key): settings found there come with
    /// ``Found/firstPageDamaged``.
    ///
    /// - Throws: ``DatabaseFileError/sourceMissing(path:)`` and the other errors of a file that
    ///   is not there or not regular, ``CipherStoreError/notEncrypted(path:)`` for a plaintext
    ///   SQLite file, ``DatabaseFileError/damaged(path:detail:)`` for a file shorter than the
    ///   smallest page, or one that is not a whole number of pages and opens with nothing.
    public static func find(path: String, key: DatabaseKey, kdfIterations: [Int] = [], salt: [UInt8]? = nil) throws -> Found? {
        try DatabaseFile.checkExistingDatabaseFile(path)
        let info = DatabaseFileInfo.inspect(path: path)
        if info.kind == .plaintext { throw CipherStoreError.notEncrypted(path: path) }
        let smallest = pageSizes.min() ?? 512
        guard info.size >= Int64(smallest) else {
            throw DatabaseFileError.damaged(path: path, detail: "it is \(info.size) bytes, shorter than the smallest page SQLCipher writes (\(smallest) bytes): it was cut short")
        }
        let firstPages = try readFirstBytes(path, count: 2 * (pageSizes.max() ?? 65536))
        var found = try find(firstPage: firstPages, hasPlaintextHeader: info.hasPlaintextHeader, key: key, kdfIterations: kdfIterations,
                             salt: salt, path: path)
        // The salt is kept in the schema copy too: with it, damaged first bytes are told from a wrong key.
        if found == nil, !info.hasPlaintextHeader, let kept = SchemaCopy.storedSalt(forDatabase: path), kept != Array(firstPages.prefix(16)) {
            found = try find(firstPage: kept + firstPages.dropFirst(16), hasPlaintextHeader: false, key: key, kdfIterations: kdfIterations,
                             salt: nil, path: nil)
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
        try find(firstPage: firstPage, hasPlaintextHeader: false, key: key, kdfIterations: [], salt: nil, path: nil)
    }

    /// - Parameter path: the file, opened with the settings found; `nil` to leave that out.
    private static func find(firstPage: [UInt8], hasPlaintextHeader: Bool, key: DatabaseKey, kdfIterations: [Int],
                             salt: [UInt8]?, path: String?) throws -> Found? {
        var layouts: [(headerSize: Int, salt: [UInt8])] = []
        if firstPage.count >= 16 && !hasPlaintextHeader { layouts.append((16, Array(firstPage[0..<16]))) }
        if let salt, salt.count == 16 { layouts.append((32, salt)) }

        let keys = try StretchedKeys(key: key, iterations: orderedIterations(extra: kdfIterations), given: kdfIterations)
        var tried = 0
        // The page and HMAC keys of a KDF hash, iteration count and salt serve every family
        // that shares them: derived once.
        var cipherKeyCache: [String: PageCipher.Keys] = [:]
        // The first candidate that opens page 2, in case none opens page 1.
        var onSecondPage: Found?
        for layout in layouts {
            for (family, iterations) in keys.searchOrder(families: orderedFamilies()) {
                guard let pageKey = try keys.pageKey(kdf: family.kdf, iterations: iterations, salt: layout.salt) else { continue }
                let cacheKey = "\(family.kdf.rawValue)/\(key.kind == .passphrase ? iterations : 0)/\(layout.headerSize)"
                let cipherKeys = try cipherKeyCache[cacheKey] ?? pageKey.withUnsafeBytes {
                    try PageCipher.Keys(key: $0, salt: layout.salt, kdfAlgorithm: family.kdf)
                }
                cipherKeyCache[cacheKey] = cipherKeys
                for pageSize in pageSizes where firstPage.count >= pageSize {
                    tried += 1
                    let cipher = PageCipher(keys: cipherKeys, pageSize: pageSize, hmac: family.hmac, headerSize: layout.headerSize)
                    var settings = CipherSettings(pageSize: pageSize, kdfIterations: iterations, useHMAC: family.hmac != nil,
                                                  kdfAlgorithm: family.kdf, hmacAlgorithm: family.hmac ?? family.kdf,
                                                  plaintextHeaderSize: layout.headerSize == 16 ? 0 : layout.headerSize)
                    if layout.headerSize != 16 { settings.salt = layout.salt }
                    guard try matchesFirstPage(firstPage.prefix(pageSize), cipher: cipher) else {
                        if onSecondPage == nil, family.hmac != nil, firstPage.count >= 2 * pageSize,
                           cipher.authenticates(firstPage[pageSize..<(2 * pageSize)], number: 2) {
                            onSecondPage = Found(settings: settings, opensWithLinkedSQLCipher: false,
                                                 linkedSQLCipherSupportsThem: supportedByLinkedSQLCipher(settings),
                                                 keyDerivations: 0, candidatesTried: 0, firstPageDamaged: true)
                        }
                        continue
                    }
                    let opens = try path.map { path in
                        try pageKey.withUnsafeBytes { bytes in
                            opensWithLinkedSQLCipher(path, key: try DatabaseKey.rawKey(bytes, salt: layout.salt), settings: settings)
                        }
                    } ?? false
                    return Found(settings: settings, opensWithLinkedSQLCipher: opens,
                                 linkedSQLCipherSupportsThem: supportedByLinkedSQLCipher(settings),
                                 keyDerivations: keys.derivations, candidatesTried: tried)
                }
            }
        }
        guard let onSecondPage else { return nil }
        return Found(settings: onSecondPage.settings, opensWithLinkedSQLCipher: false,
                     linkedSQLCipherSupportsThem: onSecondPage.linkedSQLCipherSupportsThem,
                     keyDerivations: keys.derivations, candidatesTried: tried, firstPageDamaged: true)
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

    /// The header fields first (one AES block), then, where the layout has one, the HMAC.
    private static func matchesFirstPage(_ page: ArraySlice<UInt8>, cipher: PageCipher) throws -> Bool {
        guard try cipher.firstPageHeaderMatches(page) else { return false }
        return cipher.hmac == nil || cipher.authenticates(page, number: 1)
    }

    /// SQLCipher 3 knows PBKDF2-HMAC-SHA1 and HMAC-SHA1 only, and no plaintext header.
    static func supportedByLinkedSQLCipher(_ settings: CipherSettings) -> Bool {
        SQLCipherLibrary.sqlcipherMajorVersion >= 4
            || (settings.kdfAlgorithm == .sha1 && (settings.useHMAC == false || settings.hmacAlgorithm == .sha1)
                && (settings.plaintextHeaderSize ?? 0) == 0)
    }

    private static func opensWithLinkedSQLCipher(_ path: String, key: DatabaseKey, settings: CipherSettings) -> Bool {
        guard let db = try? Connection(path: path, key: key, configuration: Configuration(cipher: settings, readOnly: true)) else {
            return false
        }
        try? db.close()
        return true
    }

    private static func readFirstBytes(_ path: String, count: Int) throws -> [UInt8] {
        guard let file = FileHandle(forReadingAtPath: path) else { throw FileSystem.ioError("read", path) }
        defer { try? file.close() }
        return [UInt8](try file.read(upToCount: count) ?? Data())
    }
}

/// The page keys of one search: a raw key as given, or a passphrase stretched once per KDF
/// (hash, iterations) and salt, when first needed.
private final class StretchedKeys {
    private let key: DatabaseKey
    private let iterations: [Int]
    private let given: [Int]
    private var cache: [String: SecureBytes] = [:]
    private(set) var derivations = 0

    /// - Parameter given: iteration counts the caller named, tried before the defaults.
    init(key: DatabaseKey, iterations: [Int], given: [Int]) throws {
        self.key = key
        self.iterations = iterations
        self.given = given
    }

    /// Each family with each iteration count; for a raw key, iterations do not matter (one each).
    func searchOrder(families: [CipherSettingsFinder.Family]) -> [(CipherSettingsFinder.Family, Int)] {
        guard key.kind == .passphrase else {
            let usual = SQLCipherLibrary.sqlcipherMajorVersion >= 4 ? 256_000 : 64_000
            return families.map { ($0, $0.kdf == .sha512 ? 256_000 : usual) }
        }
        // The counts the caller named first, then the usual pairs (SQLCipher 4's SHA-512 with
        // 256,000, SHA-1 with 64,000 and 4,000), then every other pair.
        var order: [(CipherSettingsFinder.Family, Int)] = []
        for count in iterations {
            for family in families { order.append((family, count)) }
        }
        let usual: (CipherSettingsFinder.Family, Int) -> Bool = { family, count in
            (family.kdf == .sha512 && count == 256_000) || (family.kdf == .sha1 && (count == 64_000 || count == 4_000))
        }
        let named = order.filter { given.contains($0.1) }
        let rest = order.filter { !given.contains($0.1) }
        return named + rest.filter { usual($0.0, $0.1) } + rest.filter { !usual($0.0, $0.1) }
    }

    /// The page key for this KDF and salt: the raw key itself, or the passphrase stretched
    /// (once); `nil` for a raw key that comes with another salt than the file's.
    func pageKey(kdf: CipherSettings.HashAlgorithm, iterations: Int, salt: [UInt8]) throws -> SecureBytes? {
        switch key.kind {
        case .rawKey, .rawKeyWithSalt:
            let (raw, keySalt) = try key.rawKeyBytes()
            if let keySalt, keySalt != salt { return nil }
            return raw
        case .passphrase:
            let name = "\(kdf.rawValue)/\(iterations)/\(salt)"
            if let cached = cache[name] { return cached }
            let settings = CipherSettings(kdfIterations: iterations, kdfAlgorithm: kdf)
            guard let derived = try SharedKeyDerivation.rawKeyWithSalt(for: key, salt: salt, cipher: settings) else { return nil }
            derivations += 1
            KeyDerivation.derivationCounter?.value.add(1, ordering: .relaxed)
            let (raw, _) = try derived.rawKeyBytes()
            cache[name] = raw
            return raw
        }
    }
}
