@testable import CipherStore
import Dispatch
import Foundation
import TestSupport
import Synchronization
import Testing

/// A pool reads in parallel on WAL, each read on one snapshot, with one key derivation.
@Suite struct PoolTests {
    let directory: TemporaryDirectory
    let path: String
    let pool: DatabasePool

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.path("db.sqlite")
        pool = try DatabasePool(path: path, key: .passphrase("pool passphrase"))
        try pool.write { try $0.execute(sql: "CREATE TABLE t(n INTEGER)") }
    }

    func count() throws -> Int {
        try pool.read { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") ?? -1 }
    }

    @Test func theDatabaseIsInWALModeAndOpensWithThePassphraseElsewhere() throws {
        #expect(try pool.writeWithoutTransaction { try $0.fetchScalar(String.self, sql: "PRAGMA journal_mode") } == "wal")
        try pool.write { try $0.execute(sql: "INSERT INTO t VALUES (1)") }
        try pool.close()
        // SQLCipher derives the key itself here: the pool's derived key and salt were right.
        let queue = try DatabaseQueue(path: path, key: .passphrase("pool passphrase"))
        #expect(try queue.read { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") } == 1)
        #expect(throws: CipherStoreError.wrongKey(path: path)) { try DatabasePool(path: path, key: .passphrase("wrong")) }
    }

    @Test func twoLongReadsOverlapInTime() async throws {
        // Each read waits, inside its block, for the other one to have started: only reads
        // that run at the same time get past this.
        let rendezvous = Rendezvous(count: 2)
        let pool = self.pool
        let first = Task { try await pool.read { _ in rendezvous.arriveAndWait() } }
        let second = Task { try await pool.read { _ in rendezvous.arriveAndWait() } }
        let (a, b) = try await (first.value, second.value)
        #expect(a && b)
        #expect(pool.readerCount == 2)
    }

    @Test func aReadSeesAllOrNoneOfATransactionAndDoesNotBlockTheWriter() throws {
        let pool = self.pool
        let committed = DispatchSemaphore(value: 0)
        let (before, during) = try pool.read { db -> (Int, Int) in
            let before = try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") ?? -1
            // The writer commits while this read is running.
            DispatchQueue.global().async {
                try? pool.write { db in
                    try db.execute(sql: "INSERT INTO t VALUES (1)")
                    try db.execute(sql: "INSERT INTO t VALUES (2)")
                }
                committed.signal()
            }
            #expect(committed.wait(timeout: .now() + 5) == .success, "the write waited for the read")
            let during = try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") ?? -1
            return (before, during)
        }
        #expect(before == 0)
        #expect(during == 0)
        #expect(try count() == 2)
    }

    @Test func aWriteInsideReadFailsClearly() throws {
        #expect(throws: CipherStoreError.writeInsideRead(sql: "INSERT INTO t VALUES (1)")) {
            try pool.read { try $0.execute(sql: "INSERT INTO t VALUES (1)") }
        }
        #expect(try count() == 0)
    }

    @Test func callingThePoolFromItsOwnBlocksThrowsInsteadOfDeadlocking() async throws {
        let pool = self.pool
        #expect(throws: CipherStoreError.reentrantQueueAccess) { try pool.read { _ in try pool.read { _ in 1 } } }
        #expect(throws: CipherStoreError.reentrantQueueAccess) { try pool.read { _ in try pool.write { _ in 1 } } }
        #expect(throws: CipherStoreError.reentrantQueueAccess) { try pool.write { _ in try pool.read { _ in 1 } } }
        #expect(throws: CipherStoreError.reentrantQueueAccess) { try pool.read { _ in try pool.barrierWrite { _ in 1 } } }
        #expect(throws: CipherStoreError.reentrantQueueAccess) { try pool.write { _ in try pool.close() } }
        await #expect(throws: CipherStoreError.reentrantQueueAccess) {
            try await pool.read { _ in try pool.writeWithoutTransaction { _ in 1 } }
        }
        #expect(try count() == 0)
    }

    // Synchronous tests: waiting on a semaphore must not hold a thread of the task pool.
    @Test func barrierWriteWaitsForRunningReadsAndRunsAlone() throws {
        let pool = self.pool
        let readStarted = DispatchSemaphore(value: 0)
        let readEnded = Atomic<Bool>(false)
        let readDone = DispatchGroup()
        DispatchQueue.global().async(group: readDone) {
            _ = try? pool.read { _ in
                readStarted.signal()
                usleep(300_000)
                readEnded.store(true, ordering: .releasing)
            }
        }
        readStarted.wait()
        let sawReadEnded = try pool.barrierWrite { db in
            try db.execute(sql: "VACUUM")
            return readEnded.load(ordering: .acquiring)
        }
        readDone.wait()
        #expect(sawReadEnded)
    }

    @Test func closeWaitsForRunningBlocksThenUseThrowsConnectionClosed() throws {
        let pool = self.pool
        let readStarted = DispatchSemaphore(value: 0)
        let readEnded = Atomic<Bool>(false)
        let readDone = DispatchGroup()
        let readValue = Mutex<Int?>(nil)
        DispatchQueue.global().async(group: readDone) {
            let value = try? pool.read { db in
                readStarted.signal()
                usleep(300_000)
                readEnded.store(true, ordering: .releasing)
                return try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM t")
            }
            readValue.withLock { $0 = value ?? nil }
        }
        readStarted.wait()
        try pool.close()
        let readHadEnded = readEnded.load(ordering: .acquiring)
        #expect(readHadEnded, "close returned before the running read ended")
        readDone.wait()
        #expect(readValue.withLock { $0 } == 0)
        try pool.close()
        #expect(throws: CipherStoreError.connectionClosed) { try pool.read { _ in 1 } }
        #expect(throws: CipherStoreError.connectionClosed) { try pool.write { _ in 1 } }
        #expect(throws: CipherStoreError.connectionClosed) { try pool.barrierWrite { _ in 1 } }
    }

    @Test func asyncUseAfterCloseThrowsConnectionClosed() async throws {
        let pool = self.pool
        try pool.close()
        await #expect(throws: CipherStoreError.connectionClosed) { try await pool.read { _ in 1 } }
        await #expect(throws: CipherStoreError.connectionClosed) { try await pool.write { _ in 1 } }
        await #expect(throws: CipherStoreError.connectionClosed) { try await pool.barrierWrite { _ in 1 } }
    }

    @Test func aCancelledTaskNeverRunsItsRead() async throws {
        let pool = self.pool
        let ran = Atomic<Int>(0)
        let task = Task {
            while !Task.isCancelled { await Task.yield() }
            _ = try await pool.read { _ in ran.add(1, ordering: .relaxed) }
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        let runs = ran.load(ordering: .relaxed)
        #expect(runs == 0)
    }

    @Test func aMigratorRunsOnAPool() throws {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE u(x)") }
        try migrator.migrate(pool)
        #expect(try pool.read { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'u'") } == 1)
    }

    @Test func sixteenTasksReadAndWriteAtOnce() async throws {
        let pool = self.pool
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<16 {
                group.addTask {
                    for step in 0..<20 {
                        try await pool.write { db in
                            // Two rows per transaction: a read never sees an odd count.
                            try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [task * 100 + step])
                            try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [task * 100 + step])
                        }
                        let seen = try await pool.read { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") ?? -1 }
                        #expect(seen % 2 == 0 && seen >= 2 * (step + 1))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try count() == 16 * 20 * 2)
        #expect(pool.readerCount <= pool.maximumReaderCount)
    }
}

/// Blocks each of `count` threads until all have arrived (or 5 seconds have passed).
final class Rendezvous: Sendable {
    private let arrived = Atomic<Int>(0)
    private let count: Int

    init(count: Int) { self.count = count }

    /// Whether all arrived in time: within a minute, since on a loaded machine the thread of
    /// the last read can start seconds after the others.
    func arriveAndWait() -> Bool {
        arrived.add(1, ordering: .acquiringAndReleasing)
        let deadline = ContinuousClock.now + .seconds(60)
        while arrived.load(ordering: .acquiring) < count {
            if ContinuousClock.now > deadline { return false }
            usleep(1_000)
        }
        return true
    }
}
