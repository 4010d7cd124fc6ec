import CipherStore
import Foundation
import Synchronization

// A child process for the pool's waiting test: 1,000 `async` reads at a pool of 2 readers, each
// holding its reader a little, while a thread samples this process's thread count. Run alone,
// so no other test's threads are counted. Prints "total T before B peak P".
// Usage: waiting-reads DIRECTORY

/// The threads of this process now.
func threadCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
}

/// Samples the thread count on a thread of its own until stopped; keeps the peak.
final class ThreadCountSampler: Sendable {
    private let highest: Atomic<Int>
    private let stopped = Atomic<Bool>(false)

    init(startingAt count: Int) {
        highest = Atomic(count)
    }

    var peak: Int { highest.load(ordering: .relaxed) }

    func run() {
        while !stopped.load(ordering: .relaxed) {
            highest.store(max(highest.load(ordering: .relaxed), threadCount()), ordering: .relaxed)
            usleep(500)
        }
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
    }
}

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: waiting-reads DIRECTORY\n".utf8))
    exit(64)
}

/// Runs the reads; returns the line to print.
func waitingReads(path: String) async throws -> String {
    let pool = try DatabasePool(path: path, key: .rawKey(hex: String(repeating: "7e", count: 32)), maximumReaderCount: 2)
    try await pool.write { try $0.executeScript("CREATE TABLE t(n); INSERT INTO t VALUES (1);") }
    let before = threadCount()
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
    try pool.close()
    return "total \(total) before \(before) peak \(sampler.peak)"
}

print(try await waitingReads(path: URL(fileURLWithPath: CommandLine.arguments[1]).appendingPathComponent("wait.db").path))
