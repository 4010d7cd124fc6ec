@testable import CipherStore
import Dispatch
import Foundation
import TestSupport
import Synchronization
import Testing

/// A key change through a pool waits for running reads, reopens every connection with the new
/// key, and never shows a right key as wrong; idle readers are closed.
@Suite(.timeLimit(.minutes(5))) struct PoolKeyChangeTests {
    let directory: TemporaryDirectory
    let path: String

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.path("db.sqlite")
    }

    func makePool(key: String = "old passphrase", readerIdleTimeout: Duration = .seconds(60)) throws -> DatabasePool {
        let pool = try DatabasePool(path: path, key: .passphrase(key), readerIdleTimeout: readerIdleTimeout)
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS t(n INTEGER)")
            try db.execute(sql: "INSERT INTO t VALUES (1)")
        }
        return pool
    }

    @Test func aReadRunningDuringTheChangeFinishesOnItsSnapshotAndLaterReadsUseTheNewKey() throws {
        let pool = try makePool()
        let readStarted = DispatchSemaphore(value: 0)
        let changeDone = Atomic<Bool>(false)
        let changeFinished = DispatchSemaphore(value: 0)
        let changeError = Mutex<(any Error)?>(nil)
        let seenDuringRead = try pool.read { db -> (Int, Bool) in
            DispatchQueue.global().async {
                readStarted.wait()
                do { try pool.changeKey(to: .passphrase("new passphrase")) } catch { changeError.withLock { $0 = error } }
                changeDone.store(true, ordering: .releasing)
                changeFinished.signal()
            }
            readStarted.signal()
            Thread.sleep(forTimeInterval: 0.3)
            // The change waits for this read: the file under it is still the old one.
            return (try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") ?? -1, changeDone.load(ordering: .acquiring))
        }
        #expect(seenDuringRead.0 == 1)
        #expect(seenDuringRead.1 == false, "the key change did not wait for the running read")
        // A read arriving now waits for the change, then runs with the new key.
        #expect(try pool.read { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") } == 1)
        #expect(changeFinished.wait(timeout: .now() + 60) == .success, "the key change did not finish within a minute")
        #expect(changeError.withLock { $0 } == nil)
        try pool.write { try $0.execute(sql: "INSERT INTO t VALUES (2)") }
        #expect(try pool.read { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") } == 2)
        try pool.close()

        #expect(try DatabaseQueue(path: path, key: .passphrase("new passphrase")).read {
            try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t")
        } == 2)
        #expect(throws: CipherStoreError.wrongKey(path: path)) { try DatabaseQueue(path: path, key: .passphrase("old passphrase")) }
    }

    @Test func manyTasksReadAndWriteAcrossAKeyChangeWithoutAWrongKeyError() async throws {
        let pool = try makePool()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for n in 0..<40 {
                        if (task + n) % 3 == 0 {
                            try await pool.write { try $0.execute(sql: "INSERT INTO t VALUES (?)", arguments: [n]) }
                        } else {
                            _ = try await pool.read { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") }
                        }
                    }
                }
            }
            group.addTask {
                try await Task.sleep(for: .milliseconds(50))
                try await pool.changeKey(to: .passphrase("new passphrase"))
            }
            try await group.waitForAll()
        }
        let count = try await pool.read { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") }
        try pool.close()
        #expect(try await DatabaseQueue(path: path, key: .passphrase("new passphrase")).read {
            try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t")
        } == count)
    }

    @Test func aFailedChangeLeavesThePoolWorkingWithTheOldKey() throws {
        let pool = try makePool()
        // A change the conversion refuses: the pool opens again with the old key.
        #expect(throws: (any Error).self) {
            try pool.withConnectionsClosed { _, _, _ in throw CipherStoreError.invalidConfiguration(reason: "refused") }
        }
        try pool.write { try $0.execute(sql: "INSERT INTO t VALUES (2)") }
        #expect(try pool.read { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") } == 2)
        try pool.close()
        #expect(try DatabaseQueue(path: path, key: .passphrase("old passphrase")).read {
            try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t")
        } == 2)
    }

    /// A cursor kept beyond its block keeps its connection open: the change is refused as
    /// such, the file keeps its key, and the pool goes on; once released, the change runs.
    @Test func aCursorKeptBeyondItsBlockStopsTheChangeWithAClearError() throws {
        let pool = try makePool()
        var kept: RowCursor? = try pool.write { try $0.fetchCursor(sql: "SELECT n FROM t") }
        #expect(throws: CipherStoreError.statementsStillAlive) { try pool.changeKey(to: .passphrase("new passphrase")) }
        #expect("\(CipherStoreError.statementsStillAlive)".contains("Release it"))
        #expect(try kept?.next()?.value(Int.self, at: 0) == 1)
        try pool.write { try $0.execute(sql: "INSERT INTO t VALUES (2)") }
        #expect(try pool.read { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") } == 2)
        #expect(try DatabaseQueue(path: path, key: .passphrase("old passphrase")).read {
            try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t")
        } == 2)
        kept = nil
        try pool.changeKey(to: .passphrase("new passphrase"))
        #expect(try pool.read { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") } == 2)
        try pool.close()
    }

    @Test func anObservationGoesOnAcrossAKeyChange() async throws {
        let pool = try makePool()
        var values = pool.observe { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") ?? -1 }.makeAsyncIterator()
        #expect(try await values.next() == 1)
        try await pool.changeKey(to: .passphrase("new passphrase"))
        try await pool.write { try $0.execute(sql: "INSERT INTO t VALUES (2)") }
        #expect(try await values.next() == 2)
        try pool.close()
    }

    @Test func readersIdleLongerThanTheTimeoutAreClosedAndReopenedWhenNeeded() async throws {
        let pool = try makePool(readerIdleTimeout: .seconds(1))
        let rendezvous = Rendezvous(count: 2)
        // Counted inside the reads: readers in use are never closed, whatever the timing.
        async let first: Int = pool.read { _ in _ = rendezvous.arriveAndWait(); return pool.readerCount }
        async let second: Int = pool.read { _ in _ = rendezvous.arriveAndWait(); return pool.readerCount }
        #expect(try await (first, second) == (2, 2))
        for _ in 0..<300 where pool.readerCount > 0 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(pool.readerCount == 0)
        #expect(try await pool.read { _ in pool.readerCount } == 1)
        try pool.close()
    }
}
