/// A passphrase stretched once per KDF (hash, iterations) and salt, when first needed: the
/// settings finder's counts above the iteration search's limit.
final class StretchedKeys {
    private let passphrase: DatabaseKey
    private var cache: [String: SecureBytes] = [:]
    private(set) var derivations = 0

    init(passphrase: DatabaseKey) {
        self.passphrase = passphrase
    }

    /// Each count with each KDF hash: the counts the caller named first, then the usual pairs
    /// (SQLCipher 4's SHA-512 with 256,000, SHA-1 with 64,000 and 4,000), then every other pair.
    static func order(counts: [Int], given: [Int], kdfs: [CipherSettings.HashAlgorithm]) -> [(CipherSettings.HashAlgorithm, Int)] {
        let all = counts.flatMap { count in kdfs.map { ($0, count) } }
        let usual: ((CipherSettings.HashAlgorithm, Int)) -> Bool = { pair in
            (pair.0 == .sha512 && pair.1 == 256_000) || (pair.0 == .sha1 && (pair.1 == 64_000 || pair.1 == 4_000))
        }
        let named = all.filter { given.contains($0.1) }
        let rest = all.filter { !given.contains($0.1) }
        return named + rest.filter(usual) + rest.filter { !usual($0) }
    }

    /// The page key for this KDF and salt: the passphrase stretched (once).
    func pageKey(kdf: CipherSettings.HashAlgorithm, iterations: Int, salt: [UInt8]) throws -> SecureBytes {
        let name = "\(kdf.rawValue)/\(iterations)/\(salt)"
        if let cached = cache[name] { return cached }
        let settings = CipherSettings(kdfIterations: iterations, kdfAlgorithm: kdf)
        guard let derived = try SharedKeyDerivation.rawKeyWithSalt(for: passphrase, salt: salt, cipher: settings) else {
            throw CipherStoreError.invalidKey(reason: "a salt must be 16 bytes to stretch a passphrase with it.")
        }
        derivations += 1
        KeyDerivation.derivationCounter?.value.add(1, ordering: .relaxed)
        let (raw, _) = try derived.rawKeyBytes()
        cache[name] = raw
        return raw
    }
}
