import Crypto
import CryptoExtras
import Foundation
import Synchronization

/// One slot's key derivation as stored in the slot file: algorithm and three parameters.
struct KeyDerivation: Sendable, Equatable {
    enum Algorithm: UInt8, Sendable {
        case scrypt = 1
        case pbkdf2SHA256 = 2
        /// For recovery keys, which carry full entropy and need no stretching.
        case hkdfSHA256 = 3
    }

    let algorithm: Algorithm
    /// scrypt: log2 N, r, p. PBKDF2: iterations, 0, 0. HKDF: 0, 0, 0.
    let parameters: (Int, Int, Int)

    static let maximumScryptMemory = 1 << 30
    static let maximumScryptWork = 1 << 28
    static let maximumPBKDF2Iterations = 50_000_000
    /// The most stretching work all slots of one file may ask for, in units of one slot at
    /// the caps (see ``shareOfMaximumWork``).
    static let maximumWorkPerFile = 2.0
    static let hkdfInfo = Array("CipherStore key slot recovery key v1".utf8)

    /// Counts stretching derivations (scrypt, PBKDF2 — the slots', the settings finder's, and
    /// SQLCipher's own each time a connection is keyed with a passphrase) for whoever binds one
    /// with `$derivationCounter.withValue` — tests, which count their own work only, whatever
    /// runs beside them. A derivation run on another thread for the caller
    /// (``BackgroundSlotKey``) counts for the caller.
    final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    @TaskLocal static var derivationCounter: Counter?

    static func == (a: KeyDerivation, b: KeyDerivation) -> Bool {
        a.algorithm == b.algorithm && a.parameters == b.parameters
    }

    /// What makes the parameters unusable — out of range or beyond the memory and time caps —
    /// or `nil`. Checked before any derivation runs.
    func problem() -> String? {
        let (p1, p2, p3) = parameters
        switch algorithm {
        case .scrypt:
            guard (1...30).contains(p1) else { return "scrypt log2 N is \(p1), outside 1...30" }
            guard (1...64).contains(p2), (1...64).contains(p3) else { return "scrypt r = \(p2), p = \(p3), outside 1...64" }
            let n = 1 << p1
            if n.multipliedReportingOverflow(by: 128 * p2 * p3).partialValue > Self.maximumScryptMemory || p1 > 23 {
                return "scrypt N = 2^\(p1), r = \(p2), p = \(p3) needs more than 1 GiB of memory"
            }
            if n * p2 * p3 > Self.maximumScryptWork { return "scrypt N·r·p is above 2^28" }
            // scrypt's own rule (RFC 7914): N < 2^(128·r/8).
            if p1 >= 16 * p2 { return "scrypt N = 2^\(p1) needs r of at least \(p1 / 16 + 1) (N must be below 2^(16·r))" }
        case .pbkdf2SHA256:
            guard (1...Self.maximumPBKDF2Iterations).contains(p1), p2 == 0, p3 == 0 else {
                return "PBKDF2 with \(p1) iterations, outside 1...\(Self.maximumPBKDF2Iterations)"
            }
        case .hkdfSHA256:
            guard parameters == (0, 0, 0) else { return "HKDF takes no parameters" }
        }
        return nil
    }

    /// This derivation's work as a share of one at the caps: 1.0 for scrypt at the memory cap
    /// (N·r·p = 2^23, 1 GiB) or PBKDF2 with 50,000,000 iterations, which take about as long;
    /// 0 for HKDF.
    var shareOfMaximumWork: Double {
        let (p1, p2, p3) = parameters
        switch algorithm {
        case .scrypt: return Double(1 << min(p1, 30)) * Double(p2 * p3) / Double(Self.maximumScryptMemory / 128)
        case .pbkdf2SHA256: return Double(p1) / Double(Self.maximumPBKDF2Iterations)
        case .hkdfSHA256: return 0
        }
    }

    /// Derives the 256-bit wrapping key from `secret` and the slot's salt.
    /// - Throws: ``KeySlotError/invalidKDF(reason:)`` for parameters beyond the caps, or that
    ///   the crypto library refuses.
    func deriveKey(from secret: UnsafeRawBufferPointer, salt: [UInt8]) throws -> SymmetricKey {
        if let problem = problem() { throw KeySlotError.invalidKDF(reason: problem) }
        let (p1, p2, p3) = parameters
        switch algorithm {
        case .scrypt:
            Self.derivationCounter?.value.add(1, ordering: .relaxed)
            do {
                return try KDF.Scrypt.deriveKey(from: secret, salt: salt, outputByteCount: 32, rounds: 1 << p1, blockSize: p2, parallelism: p3)
            } catch {
                throw KeySlotError.invalidKDF(reason: "the crypto library refused scrypt with N = 2^\(p1), r = \(p2), p = \(p3). The slot file is damaged or was not written by CipherStore: restore it from a backup")
            }
        case .pbkdf2SHA256:
            Self.derivationCounter?.value.add(1, ordering: .relaxed)
            // The unchecked variant: the iteration count is ours to choose (and capped above).
            do {
                return try KDF.Insecure.PBKDF2.deriveKey(from: secret, salt: salt, using: .sha256, outputByteCount: 32, unsafeUncheckedRounds: p1)
            } catch {
                throw KeySlotError.invalidKDF(reason: "the crypto library refused PBKDF2 with \(p1) iterations. The slot file is damaged or was not written by CipherStore: restore it from a backup")
            }
        case .hkdfSHA256:
            return HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: secret), salt: salt, info: Self.hkdfInfo, outputByteCount: 32)
        }
    }

    /// scrypt, r = 8, p = 1, with the N (2^11 to 2^20) whose derivation takes about `target`.
    static func calibratedScrypt(target: Double) throws -> KeyDerivation {
        let probeLog2N = 12
        let probe = KeyDerivation(algorithm: .scrypt, parameters: (probeLog2N, 8, 1))
        let seconds = try measure(probe)
        let log2N = probeLog2N + Int((log2(target / seconds)).rounded())
        return KeyDerivation(algorithm: .scrypt, parameters: (min(max(log2N, 11), 20), 8, 1))
    }

    /// PBKDF2-HMAC-SHA256 with the iterations (at least 100,000) that take about `target`.
    static func calibratedPBKDF2(target: Double) throws -> KeyDerivation {
        let probeIterations = 20_000
        let seconds = try measure(KeyDerivation(algorithm: .pbkdf2SHA256, parameters: (probeIterations, 0, 0)))
        let iterations = Double(probeIterations) * target / seconds
        let rounded = min(max(Int(iterations / 1000) * 1000, 100_000), maximumPBKDF2Iterations)
        return KeyDerivation(algorithm: .pbkdf2SHA256, parameters: (rounded, 0, 0))
    }

    /// Seconds one derivation takes (the faster of two runs, so a stray pause does not count).
    private static func measure(_ derivation: KeyDerivation) throws -> Double {
        let secret = Array("calibration".utf8)
        let salt = [UInt8](repeating: 0, count: 32)
        var best = Double.infinity
        for _ in 0..<2 {
            let clock = ContinuousClock()
            let start = clock.now
            _ = try secret.withUnsafeBytes { try derivation.deriveKey(from: $0, salt: salt) }
            let (seconds, attoseconds) = (clock.now - start).components
            best = min(best, Double(seconds) + Double(attoseconds) / 1e18)
        }
        return max(best, 1e-6)
    }
}
