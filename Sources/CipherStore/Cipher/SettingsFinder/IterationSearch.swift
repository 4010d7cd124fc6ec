import CKeySearch
import Dispatch
import Foundation
import Synchronization

/// Tries every PBKDF2 iteration count from 1 to a limit against an encrypted first page.
///
/// PBKDF2's output for c iterations is U₁ ⊕ … ⊕ U_c, each U the HMAC of the one before: one
/// run to the limit passes the key of every smaller count. Each count's key is tested with one
/// AES block (in C, `CKeySearch`): bytes 72 to 79 of SQLite's header are reserved and always
/// zero, whatever the page size, reserve or HMAC, so a wrong key passes with a chance of
/// 2⁻⁶⁴; after a salt, a second block (the schema format number) keeps one damaged byte from
/// hiding the right key. There is one run per KDF hash and salt, spread over the cores. A key that
/// passes, and the key of every run at each count in `stops`, is handed to `visit` to be
/// checked in full, one call at a time.
struct IterationSearch {
    /// One PBKDF2 run: its hash and salt, where the first page's encryption starts (16 after
    /// the salt, 32 after a plaintext header), and a number of the caller's.
    struct Run {
        let kdf: CipherSettings.HashAlgorithm
        let salt: [UInt8]
        var headerSize = 16
        let tag: Int
    }

    /// A key handed to `visit`.
    struct Candidate {
        let run: Run
        let iterations: Int
        let key: SecureBytes
        /// Whether the key passed the AES block test (`false`: a count of `stops` only).
        let passedTest: Bool
    }

    /// What a search did: PBKDF2 runs started, and iteration counts tested (all runs together).
    struct Outcome {
        let derivations: Int
        let countsTried: Int
    }

    let passphrase: DatabaseKey
    let runs: [Run]
    /// The highest iteration count tried.
    let limit: Int
    /// Counts at which every run hands its key to `visit`, whether it passes or not.
    let stops: [Int]
    /// The first page as stored, at least 80 bytes.
    let page: [UInt8]

    /// Counts run in C between two looks at whether another run has finished the search.
    static let slice = 8192

    /// Runs the search until `visit` returns `true` (found), throws, or every run reaches the limit.
    func run(visit: (Candidate) throws -> Bool) throws -> Outcome {
        guard limit > 0, !runs.isEmpty, page.count >= 80 else { return Outcome(derivations: 0, countsTried: 0) }
        var chains: [OpaquePointer] = []
        defer { chains.forEach(cipherstore_kdf_chain_free) }
        try passphrase.withKeyBytes { password in
            for run in runs {
                let hash: cipherstore_kdf_hash
                switch run.kdf {
                case .sha1: hash = CIPHERSTORE_KDF_SHA1
                case .sha256: hash = CIPHERSTORE_KDF_SHA256
                case .sha512: hash = CIPHERSTORE_KDF_SHA512
                }
                guard let chain = cipherstore_kdf_chain_create(hash, password.baseAddress, password.count, run.salt, run.salt.count) else {
                    throw DatabaseError(resultCode: .SQLITE_NOMEM, message: "out of memory starting a key derivation")
                }
                chains.append(chain)
            }
        }
        KeyDerivation.derivationCounter?.value.add(runs.count, ordering: .relaxed)
        let workers = assignment(workerCount: ProcessInfo.processInfo.activeProcessorCount)
        try withoutActuallyEscaping(visit) { visit in
            let shared = Shared(chains: chains, visit: visit)
            DispatchQueue.concurrentPerform(iterations: workers.count) { worker in
                work(on: workers[worker], shared)
            }
            if let failure = shared.failure.withLock({ $0 }) { throw failure }
        }
        let counts = chains.map { Int(cipherstore_kdf_chain_count($0)) }
        return Outcome(derivations: runs.count, countsTried: counts.reduce(0, +))
    }

    /// The runs each worker takes turns at: the costliest (SHA-512 has no processor
    /// instructions) first, each to the least loaded of at most one worker per core.
    func assignment(workerCount: Int) -> [[Int]] {
        func cost(_ kdf: CipherSettings.HashAlgorithm) -> Double { kdf == .sha512 ? 3 : kdf == .sha1 ? 1.4 : 1 }
        let count = max(1, min(workerCount, runs.count))
        var workers = Array(repeating: [Int](), count: count)
        var load = Array(repeating: 0.0, count: count)
        for index in runs.indices.sorted(by: { cost(runs[$0].kdf) > cost(runs[$1].kdf) }) {
            let least = load.indices.min { load[$0] < load[$1] } ?? 0
            workers[least].append(index)
            load[least] += cost(runs[index].kdf)
        }
        return workers
    }

    /// One worker: its runs in turn, a slice each, so that they reach each count together.
    private func work(on indices: [Int], _ shared: Shared) {
        var active = indices
        while !active.isEmpty && !shared.finished.load(ordering: .relaxed) {
            for index in active {
                let count = Int(cipherstore_kdf_chain_count(shared.chains[index]))
                let target = min(count + Self.slice, stops.first { $0 > count } ?? limit, limit)
                advance(index, to: target, shared)
                if shared.finished.load(ordering: .relaxed) { return }
            }
            active.removeAll { Int(cipherstore_kdf_chain_count(shared.chains[$0])) >= limit }
        }
    }

    /// Runs one chain to `target`, handing over each key that passes, and the key at `target`
    /// when it is one of `stops`.
    private func advance(_ index: Int, to target: Int, _ shared: Shared) {
        let chain = shared.chains[index]
        page.withUnsafeBufferPointer { page in
            while true {
                let passed = cipherstore_kdf_chain_run(chain, UInt32(target), page.baseAddress, runs[index].headerSize) == 1
                let count = Int(cipherstore_kdf_chain_count(chain))
                if passed || (count == target && stops.contains(count)) {
                    let key = SecureBytes(count: 32) { cipherstore_kdf_chain_key(chain, $0.bindMemory(to: UInt8.self).baseAddress) }
                    shared.visit(Candidate(run: runs[index], iterations: count, key: key, passedTest: passed))
                }
                if count >= target || shared.finished.load(ordering: .relaxed) { return }
            }
        }
    }
}

/// What the workers of one search share. `@unchecked Sendable`: each chain is used by the one
/// worker it is assigned to; `visit` runs under `failure`'s lock, one worker at a time, while
/// the caller waits in `concurrentPerform`.
private final class Shared: @unchecked Sendable {
    let chains: [OpaquePointer]
    let finished = Atomic<Bool>(false)
    let failure = Mutex<(any Error)?>(nil)
    private let body: (IterationSearch.Candidate) throws -> Bool

    init(chains: [OpaquePointer], visit: @escaping (IterationSearch.Candidate) throws -> Bool) {
        self.chains = chains
        body = visit
    }

    func visit(_ candidate: IterationSearch.Candidate) {
        failure.withLock { failure in
            guard !finished.load(ordering: .relaxed) else { return }
            do {
                if try body(candidate) { finished.store(true, ordering: .relaxed) }
            } catch {
                failure = error
                finished.store(true, ordering: .relaxed)
            }
        }
    }
}
