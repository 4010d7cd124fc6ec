/// How a passphrase slot derives the key that wraps the data key.
///
/// ```swift
/// try KeySlots.addPassphrase(path: "app.db", existing: current, new: second,
///                            kdf: .scrypt(targetDuration: .milliseconds(500)))
/// ```
///
/// The calibrated choices measure this machine once when the slot is made and store the
/// resulting parameters in the slot; opening later runs exactly those parameters. Every choice
/// must stay within the caps an open checks (scrypt: 128·N·r·p ≤ 1 GiB and N·r·p ≤ 2²⁸;
/// PBKDF2: at most 50,000,000 iterations) and above a floor for new slots (scrypt:
/// N·r·p ≥ 2¹⁴, 2 MiB of memory; PBKDF2: at least 100,000 iterations).
public struct KeySlotKDF: Sendable, Hashable, CustomStringConvertible {
    enum Choice: Sendable, Hashable {
        case scrypt(log2N: Int, blockSize: Int, parallelism: Int)
        case scryptCalibrated(targetDuration: Duration)
        case pbkdf2SHA256(iterations: Int)
        case pbkdf2SHA256Calibrated(targetDuration: Duration)
    }

    let choice: Choice

    /// scrypt with r = 8, p = 1 and N calibrated to about 0.25 s: the default.
    public static let `default` = KeySlotKDF.scrypt(targetDuration: .milliseconds(250))

    /// scrypt (r = 8, p = 1) with N chosen so that one derivation takes about `targetDuration`
    /// here (N from 2¹¹ to 2²⁰, that is 2 MiB to 1 GiB of memory).
    public static func scrypt(targetDuration: Duration) -> KeySlotKDF {
        KeySlotKDF(choice: .scryptCalibrated(targetDuration: targetDuration))
    }

    /// scrypt with fixed parameters: N = 2^`log2N`, r = `blockSize`, p = `parallelism`.
    public static func scrypt(log2N: Int, blockSize: Int = 8, parallelism: Int = 1) -> KeySlotKDF {
        KeySlotKDF(choice: .scrypt(log2N: log2N, blockSize: blockSize, parallelism: parallelism))
    }

    /// PBKDF2-HMAC-SHA256 with the iterations chosen so that one derivation takes about
    /// `targetDuration` here (at least 100,000).
    public static func pbkdf2SHA256(targetDuration: Duration) -> KeySlotKDF {
        KeySlotKDF(choice: .pbkdf2SHA256Calibrated(targetDuration: targetDuration))
    }

    /// PBKDF2-HMAC-SHA256 with a fixed number of iterations.
    public static func pbkdf2SHA256(iterations: Int) -> KeySlotKDF {
        KeySlotKDF(choice: .pbkdf2SHA256(iterations: iterations))
    }

    public var description: String {
        switch choice {
        case .scrypt(let log2N, let r, let p): return "scrypt(N=2^\(log2N), r=\(r), p=\(p))"
        case .scryptCalibrated(let target): return "scrypt(calibrated to \(target))"
        case .pbkdf2SHA256(let iterations): return "PBKDF2-HMAC-SHA256(\(iterations) iterations)"
        case .pbkdf2SHA256Calibrated(let target): return "PBKDF2-HMAC-SHA256(calibrated to \(target))"
        }
    }

    /// The parameters to store in a new slot: measured here for the calibrated choices.
    /// - Throws: ``KeySlotError/invalidKDF(reason:)`` for parameters beyond the caps.
    func resolve() throws -> KeyDerivation {
        let derivation: KeyDerivation
        switch choice {
        case .scrypt(let log2N, let r, let p):
            derivation = KeyDerivation(algorithm: .scrypt, parameters: (log2N, r, p))
        case .pbkdf2SHA256(let iterations):
            derivation = KeyDerivation(algorithm: .pbkdf2SHA256, parameters: (iterations, 0, 0))
        case .scryptCalibrated(let target):
            derivation = try KeyDerivation.calibratedScrypt(target: try Self.seconds(target))
        case .pbkdf2SHA256Calibrated(let target):
            derivation = try KeyDerivation.calibratedPBKDF2(target: try Self.seconds(target))
        }
        if let problem = derivation.problem() ?? Self.belowFloor(derivation) {
            throw KeySlotError.invalidKDF(reason: problem + ". Choose parameters within the limits.")
        }
        return derivation
    }

    /// The least stretching a new passphrase slot gets: scrypt with N·r·p of at least 2^14
    /// (2 MiB of memory: N = 2^11 with r = 8, the smallest calibrated choice), PBKDF2 with at
    /// least 100,000 iterations. The default (scrypt calibrated to 0.25 s) is far above both.
    /// Slots already in a file are read whatever they ask for (within the caps); only new ones
    /// are held to this.
    static let minimumScryptWork = 1 << 14
    static let minimumPBKDF2Iterations = 100_000

    private static func belowFloor(_ derivation: KeyDerivation) -> String? {
        let (p1, p2, p3) = derivation.parameters
        switch derivation.algorithm {
        case .scrypt where (1 << p1) * p2 * p3 < minimumScryptWork:
            return "scrypt N = 2^\(p1), r = \(p2), p = \(p3) is too weak for a passphrase: N·r·p must be at least 2^14 (e.g. N = 2^11, r = 8)"
        case .pbkdf2SHA256 where p1 < minimumPBKDF2Iterations:
            return "PBKDF2 with \(p1) iterations is too weak for a passphrase: at least \(minimumPBKDF2Iterations) are needed"
        default:
            return nil
        }
    }

    private static func seconds(_ duration: Duration) throws -> Double {
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) + Double(attoseconds) / 1e18
        guard value > 0, value <= 60 else {
            throw KeySlotError.invalidKDF(reason: "the target duration must be more than 0 and at most 60 seconds, got \(duration).")
        }
        return value
    }
}
