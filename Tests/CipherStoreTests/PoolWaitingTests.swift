@testable import CipherStore
import Dispatch
import Foundation
import TestSupport
import Synchronization
import Testing

/// Reads that wait for a reader wait as suspended tasks, not as blocked threads.
@Suite(.serialized) struct PoolWaitingTests {
    /// The threads of this process now.
    static func threadCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }

    /// 1,000 `async` reads at a pool of 2 readers, each holding its reader a little: the
    /// process's thread count stays bounded while they wait, and every read returns.
    @Test func aThousandWaitingReadsParkNoThreads() async throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.path("wait.db"), key: .rawKey(hex: String(repeating: "7e", count: 32)),
                                    maximumReaderCount: 2)
        try await pool.write { try $0.executeScript("CREATE TABLE t(n); INSERT INTO t VALUES (1);") }
        let before = Self.threadCount()
        let sampler = ThreadCountSampler(startingAt: before)
        Thread.detachNewThread { sampler.run() }
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<1_000 {
                group.addTask {
                    try await pool.read { db in
                        usleep(100)
                        return try db.fetchScalar(Int.self, sql: "SELECT n FROM t") ?? 0
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        sampler.stop()
        #expect(total == 1_000)
        // Two readers at work, the sampler, the cooperative pool: a few threads, not one per waiting read.
        let peak = sampler.peak
        #expect(peak - before <= 24, "threads: \(before) before, \(peak) at the peak")
        try pool.close()
    }

    /// A read cancelled while it waits for a reader does not run, and gives its permit back:
    /// later reads still get readers.
    @Test func aCancelledWaitingReadDoesNotRunAndKeepsNoPermit() async throws {
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.path("cancel.db"), key: .rawKey(hex: String(repeating: "7e", count: 32)),
                                    maximumReaderCount: 1)
        try await pool.write { try $0.execute(sql: "CREATE TABLE t(n)") }
        let release = DispatchSemaphore(value: 0)
        let holding = Task { try await pool.read { _ in release.wait() } }
        // Let the first read take the only reader before the second asks for it.
        while pool.readerCount == 0 { try await Task.sleep(for: .milliseconds(1)) }
        let ran = Flag()
        let waiting = Task { try await pool.read { _ in ran.set() } }
        waiting.cancel()
        release.signal()
        try await holding.value
        await #expect(throws: CancellationError.self) { try await waiting.value }
        let blockRan = ran.isSet
        #expect(!blockRan)
        for _ in 0..<3 { #expect(try await pool.read { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") } == 0) }
        try pool.close()
    }
}

/// Samples this process's thread count on a thread of its own until stopped; keeps the peak.
final class ThreadCountSampler: Sendable {
    private let highest: Atomic<Int>
    private let stopped = Atomic<Bool>(false)

    init(startingAt count: Int) {
        highest = Atomic(count)
    }

    var peak: Int { highest.load(ordering: .relaxed) }

    func run() {
        while !stopped.load(ordering: .relaxed) {
            highest.store(max(highest.load(ordering: .relaxed), PoolWaitingTests.threadCount()), ordering: .relaxed)
            usleep(500)
        }
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
    }
}

/// A flag set once, from any thread.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set() { value.store(true, ordering: .relaxed) }
}
