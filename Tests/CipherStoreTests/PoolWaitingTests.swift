@testable import CipherStore
import Dispatch
import Foundation
import TestSupport
import Synchronization
import Testing

/// A read that waits for a reader and is cancelled gives its place back (the thread count while
/// reads wait is measured in a process of its own: `PoolThreadCountTests`).
@Suite(.serialized) struct PoolWaitingTests {
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

/// A flag set once, from any thread.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set() { value.store(true, ordering: .relaxed) }
}
