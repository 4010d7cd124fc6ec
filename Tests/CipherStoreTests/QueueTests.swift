import CipherStore
import Foundation
import TestSupport
import Testing

@Suite struct QueueTests {
    let directory: TemporaryDirectory
    let queue: DatabaseQueue

    init() throws {
        directory = try TemporaryDirectory()
        queue = try DatabaseQueue(path: directory.path("db.sqlite"), key: .passphrase("k"))
        try queue.inDatabase { try $0.execute(sql: "CREATE TABLE t(task INTEGER, n INTEGER)") }
    }

    @Test func sixteenTasksTimesFiveHundredWritesAllLand() async throws {
        let queue = self.queue
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<16 {
                group.addTask {
                    for n in 0..<500 {
                        try await queue.write { db in
                            try db.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [task, n])
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let count = try await queue.read { db in try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") }
        #expect(count == 8000)
        let distinct = try await queue.inDatabase { db in try db.fetchScalar(Int.self, sql: "SELECT count(DISTINCT task * 1000 + n) FROM t") }
        #expect(distinct == 8000)
    }

    @Test func threadsUsingTheSynchronousAPIAreSerialized() throws {
        let queue = self.queue
        DispatchQueue.concurrentPerform(iterations: 8) { task in
            for n in 0..<100 {
                try? queue.inTransaction { db in
                    try db.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [task, n])
                    return .commit
                }
            }
        }
        #expect(try queue.inDatabase { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") } == 800)
    }

    @Test func reentrantUseIsAnErrorNotADeadlock() throws {
        let queue = self.queue
        var inner: (any Error)?
        try queue.inDatabase { _ in
            do { try queue.inDatabase { _ in } } catch { inner = error }
        }
        #expect((inner as? CipherStoreError) == .reentrantQueueAccess)
        #expect(throws: CipherStoreError.reentrantQueueAccess) {
            try queue.inTransaction { _ in
                try queue.inTransaction { _ in .commit }
                return .commit
            }
        }
    }

    @Test func asyncWriteRollsBackOnThrow() async throws {
        await #expect(throws: Failure.self) {
            try await queue.write { db in
                try db.execute(sql: "INSERT INTO t VALUES (1, 1)")
                throw Failure()
            }
        }
        try await queue.transaction { db in
            try db.execute(sql: "INSERT INTO t VALUES (2, 2)")
            return .rollback
        }
        #expect(try await queue.read { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") } == 0)
    }

    @Test func asyncCallsDoNotBlockTheCallersThread() async throws {
        // While a long write holds the queue, the calling task's executor keeps running.
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let queue = self.queue
        let write = Task {
            try await queue.write { db in
                started.signal()
                release.wait()
                try db.execute(sql: "INSERT INTO t VALUES (0, 0)")
            }
        }
        started.wait()
        let pending = Task { try await queue.read { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") } }
        // Reaching this line while the queue is busy shows the await did not block us.
        release.signal()
        try await write.value
        #expect(try await pending.value == 1)
    }

    @Test func busyTimeoutIsConfigurable() throws {
        let path = directory.path("db.sqlite")
        let other = try DatabaseQueue(path: path, key: .passphrase("k"), configuration: Configuration(busyTimeout: 0))
        try queue.inDatabase { db in
            try db.beginTransaction(.exclusive)
            do {
                try other.inDatabase { try $0.execute(sql: "INSERT INTO t VALUES (1, 1)") }
                Issue.record("wrote through another connection's exclusive lock")
            } catch ResultCode.SQLITE_BUSY {
                // the other connection failed at once
            }
            try db.rollback()
        }
        try other.inDatabase { try $0.execute(sql: "INSERT INTO t VALUES (1, 1)") }
    }
}
