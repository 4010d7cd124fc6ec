import CipherStore
import Dispatch
import Foundation
import TestSupport
import Synchronization
import Testing

/// Synchronous `read`/`write` return the block's value under the same rules as the `async`
/// ones, and the `async` ones never start a block for a cancelled task.
@Suite struct QueueReadWriteTests {
    let directory: TemporaryDirectory
    let queue: DatabaseQueue

    init() throws {
        directory = try TemporaryDirectory()
        queue = try DatabaseQueue(path: directory.path("db.sqlite"), key: .passphrase("k"))
        try queue.inDatabase { try $0.execute(sql: "CREATE TABLE t(n INTEGER)") }
    }

    func count() throws -> Int {
        try queue.read { db in try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") ?? -1 }
    }

    struct Refused: Error {}

    @Test func synchronousWriteReturnsItsValueAndCommits() throws {
        let id = try queue.write { db -> Int64 in
            #expect(db.isInTransaction)
            try db.execute(sql: "INSERT INTO t VALUES (7)")
            return db.lastInsertedRowID
        }
        #expect(id == 1)
        #expect(try count() == 1)
        let inTransaction = try queue.inDatabase { db in db.isInTransaction }
        #expect(!inTransaction)
    }

    @Test func synchronousWriteRollsBackWhenItsBlockThrows() throws {
        #expect(throws: Refused.self) {
            try queue.write { db in
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                throw Refused()
            }
        }
        #expect(try count() == 0)
    }

    @Test func synchronousReadAndWriteRefuseReentrancy() throws {
        let queue = self.queue
        #expect(throws: CipherStoreError.reentrantQueueAccess) {
            try queue.read { _ in try queue.write { _ in 1 } }
        }
        #expect(throws: CipherStoreError.reentrantQueueAccess) {
            try queue.write { _ in try queue.read { _ in 1 } }
        }
    }

    @Test func aTaskCancelledBeforeCallingGetsCancellationErrorAndTheBlockNeverRuns() async throws {
        let queue = self.queue
        let ran = Atomic<Int>(0)
        let task = Task {
            while !Task.isCancelled { await Task.yield() }
            _ = try await queue.write { db in
                ran.add(1, ordering: .relaxed)
                try db.execute(sql: "INSERT INTO t VALUES (1)")
            }
            _ = try await queue.read { _ in ran.add(1, ordering: .relaxed) }
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        let runs = ran.load(ordering: .relaxed)
        #expect(runs == 0)
        #expect(try count() == 0)
    }

    @Test func aTaskCancelledWhileWaitingForTheQueueNeverRunsItsBlock() async throws {
        let queue = self.queue
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        // Another thread holds the queue.
        DispatchQueue.global().async {
            try? queue.inDatabase { _ in
                entered.signal()
                release.wait()
            }
        }
        entered.wait()
        let ran = Atomic<Bool>(false)
        let task = Task {
            try await queue.write { db in
                ran.store(true, ordering: .relaxed)
                try db.execute(sql: "INSERT INTO t VALUES (1)")
            }
        }
        // Give the task time to queue its block behind the one holding the queue.
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        release.signal()
        await #expect(throws: CancellationError.self) { try await task.value }
        let didRun = ran.load(ordering: .relaxed)
        #expect(!didRun)
        #expect(try count() == 0)
        // The queue works on afterwards.
        try await queue.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        #expect(try count() == 1)
    }

    @Test func aBlockThatStartedStopsAtItsNextStatementWhenTheTaskIsCancelled() async throws {
        let queue = self.queue
        let started = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let task = Task {
            try await queue.write { db in
                started.signal()
                proceed.wait()
                try db.execute(sql: "INSERT INTO t VALUES (1)")
            }
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                started.wait()
                continuation.resume()
            }
        }
        task.cancel()
        proceed.signal()
        // The statement that the block starts after the cancellation is refused, and the
        // transaction rolled back.
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try count() == 0)
        try await queue.write { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        #expect(try count() == 1)
    }
}
