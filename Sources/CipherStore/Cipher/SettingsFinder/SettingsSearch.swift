/// One search of the settings finder on the first bytes of a file: its layouts (where the
/// encryption starts, which salt), the check of each, and the work done so far.
struct SettingsSearch {
    /// Bytes before the encrypted part of page 1 (16: the salt; 32: a plaintext header) and
    /// the salt the key was derived with.
    struct Layout {
        let headerSize: Int
        let salt: [UInt8]
    }

    typealias Found = CipherSettingsFinder.Found

    let firstPage: [UInt8]
    let layouts: [Layout]
    /// The file, opened with the settings found; `nil` to leave that out.
    let path: String?
    private var checks: [FirstPageCheck]
    private var derivations = 0
    private var countsTried = 0

    init(firstPage: [UInt8], layouts: [Layout], path: String?) {
        self.firstPage = firstPage
        self.layouts = layouts
        self.path = path
        checks = layouts.map { FirstPageCheck(firstPage: firstPage, headerSize: $0.headerSize, salt: $0.salt) }
    }

    /// A raw key needs no stretching; the iteration count reported is the usual one.
    mutating func withRawKey(_ key: DatabaseKey) throws -> Found? {
        let (raw, keySalt) = try key.rawKeyBytes()
        for index in layouts.indices where keySalt == nil || keySalt == layouts[index].salt {
            for (kdf, hmacChoices) in CipherSettingsFinder.kdfOrder() {
                let usual = kdf == .sha512 || SQLCipherLibrary.sqlcipherMajorVersion >= 4 ? 256_000 : 64_000
                if let settings = try checks[index].settings(pageKey: raw, kdf: kdf, iterations: usual, hmacChoices: hmacChoices, derived: false) {
                    return try found(settings, pageKey: raw, layout: index)
                }
            }
        }
        return nil
    }

    /// A passphrase stretched once per count and KDF hash, the counts the caller named first.
    mutating func stretchingOneByOne(_ passphrase: DatabaseKey, counts: [Int], given: [Int]) throws -> Found? {
        let stretched = StretchedKeys(passphrase: passphrase)
        let before = derivations
        defer { derivations = before + stretched.derivations }
        let order = StretchedKeys.order(counts: counts, given: given, kdfs: CipherSettingsFinder.kdfOrder().map(\.kdf))
        for index in layouts.indices {
            for (kdf, iterations) in order {
                let pageKey = try stretched.pageKey(kdf: kdf, iterations: iterations, salt: layouts[index].salt)
                if let settings = try checks[index].settings(pageKey: pageKey, kdf: kdf, iterations: iterations,
                                                             hmacChoices: CipherSettingsFinder.hmacChoices(for: kdf), derived: true) {
                    derivations = before + stretched.derivations
                    return try found(settings, pageKey: pageKey, layout: index)
                }
            }
        }
        return nil
    }

    /// Every count from 1 to `limit`: one PBKDF2 run per KDF hash and salt (``IterationSearch``).
    /// Each key that passes its AES block test, and the key at each of `stops` (the defaults
    /// and the counts given, which also tell a damaged page 1 by page 2), is checked in full.
    mutating func searchingEveryCount(_ passphrase: DatabaseKey, upTo limit: Int, stops: [Int]) throws -> Found? {
        let runs = layouts.indices.flatMap { index in
            [CipherSettings.HashAlgorithm.sha512, .sha1, .sha256].map {
                IterationSearch.Run(kdf: $0, salt: layouts[index].salt, headerSize: layouts[index].headerSize, tag: index)
            }
        }
        let search = IterationSearch(passphrase: passphrase, runs: runs, limit: limit, stops: stops.sorted(), page: Array(firstPage.prefix(80)))
        var result: (settings: CipherSettings, key: SecureBytes, layout: Int)?
        var checks = self.checks
        let outcome = try search.run { candidate in
            let index = candidate.run.tag
            guard let settings = try checks[index].settings(pageKey: candidate.key, kdf: candidate.run.kdf, iterations: candidate.iterations,
                                                            hmacChoices: CipherSettingsFinder.hmacChoices(for: candidate.run.kdf), derived: true) else {
                // Page 2 authenticated while page 1 matched nothing: the key is right, page 1 damaged.
                return checks[index].onSecondPage != nil
            }
            result = (settings, candidate.key, index)
            return true
        }
        self.checks = checks
        derivations += outcome.derivations
        countsTried += outcome.countsTried
        guard let result else { return nil }
        return try found(result.settings, pageKey: result.key, layout: result.layout)
    }

    /// Settings that authenticate page 2 when none opens page 1, or `nil`.
    func damagedFirstPage() -> Found? {
        guard let settings = checks.lazy.compactMap(\.onSecondPage).first else { return nil }
        return Found(settings: settings, opensWithLinkedSQLCipher: false,
                     linkedSQLCipherSupportsThem: CipherSettingsFinder.supportedByLinkedSQLCipher(settings),
                     keyDerivations: derivations, candidatesTried: candidatesTried, firstPageDamaged: true)
    }

    private var candidatesTried: Int { checks.reduce(countsTried) { $0 + $1.tried } }

    /// The settings found, opened with the linked SQLCipher when there is a file.
    private func found(_ settings: CipherSettings, pageKey: SecureBytes, layout: Int) throws -> Found {
        let opens = try path.map { path in
            try pageKey.withUnsafeBytes { bytes in
                CipherSettingsFinder.opensWithLinkedSQLCipher(path, key: try DatabaseKey.rawKey(bytes, salt: layouts[layout].salt), settings: settings)
            }
        } ?? false
        return Found(settings: settings, opensWithLinkedSQLCipher: opens,
                     linkedSQLCipherSupportsThem: CipherSettingsFinder.supportedByLinkedSQLCipher(settings),
                     keyDerivations: derivations, candidatesTried: candidatesTried)
    }
}
