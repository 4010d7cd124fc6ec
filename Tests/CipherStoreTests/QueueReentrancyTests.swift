import CipherStore
import Foundation
import TestSupport
import Testing

/// Re-entry through a chain of queues throws instead of deadlocking in `DispatchQueue.sync`.
@Suite struct QueueReentrancyTests {
    let directory: TemporaryDirectory
    let a: DatabaseQueue
    let b: DatabaseQueue
    let c: DatabaseQueue

    init() throws {
        directory = try TemporaryDirectory()
        a = try DatabaseQueue(path: directory.path("a.sqlite"), key: .passphrase("k"))
        b = try DatabaseQueue(path: directory.path("b.sqlite"), key: .passphrase("k"))
        c = try DatabaseQueue(path: directory.path("c.sqlite"), key: .passphrase("k"))
    }

    @Test func aThroughBBackToAThrows() throws {
        let (a, b) = (self.a, self.b)
        var inner: (any Error)?
        var reachedB = false
        try a.inDatabase { _ in
            try b.inDatabase { _ in
                reachedB = true
                do { try a.inDatabase { _ in } } catch { inner = error }
            }
        }
        #expect(reachedB)
        #expect((inner as? CipherStoreError) == .reentrantQueueAccess)
    }

    @Test func aThroughBAndCBackToAThrows() throws {
        let (a, b, c) = (self.a, self.b, self.c)
        #expect(throws: CipherStoreError.reentrantQueueAccess) {
            try a.inDatabase { _ in
                try b.inTransaction { _ in
                    try c.inDatabase { _ in try a.inDatabase { _ in } }
                    return .commit
                }
            }
        }
        // Every queue is usable afterwards.
        for queue in [a, b, c] { #expect(try queue.inDatabase { $0.isInTransaction } == false) }
    }

    @Test func aChainWithoutACycleWorks() throws {
        let (a, b, c) = (self.a, self.b, self.c)
        let total = try a.inDatabase { dbA in
            try b.inDatabase { dbB in
                try c.inDatabase { dbC in
                    try [dbA, dbB, dbC].map { try $0.fetchScalar(Int.self, sql: "SELECT 1") ?? 0 }.reduce(0, +)
                }
            }
        }
        #expect(total == 3)
        // Sequential use of the same queues after a chain is not re-entry.
        try a.inDatabase { _ in try b.inDatabase { _ in } }
        try b.inDatabase { _ in try a.inDatabase { _ in } }
    }

    @Test func asyncBlocksCheckTheChainToo() async throws {
        let (a, b) = (self.a, self.b)
        let value = try await a.read { _ in try b.inDatabase { try $0.fetchScalar(Int.self, sql: "SELECT 42") } }
        #expect(value == 42)
        await #expect(throws: CipherStoreError.reentrantQueueAccess) {
            try await a.read { _ in try b.inDatabase { _ in try a.inDatabase { _ in } } }
        }
        try await a.write { db in
            try db.execute(sql: "CREATE TABLE t(x)")
            #expect(throws: CipherStoreError.reentrantQueueAccess) { try a.inDatabase { _ in } }
        }
    }

    @Test func aTaskStartedInsideABlockMayUseTheQueueLater() async throws {
        let a = self.a
        let task = try await a.inDatabase { _ in
            // The task does not run inside the block: it waits for the queue, it does not re-enter.
            Task { try await a.inDatabase { try $0.fetchScalar(Int.self, sql: "SELECT 7") } }
        }
        #expect(try await task.value == 7)
    }
}
