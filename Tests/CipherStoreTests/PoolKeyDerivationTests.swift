@testable import CipherStore
import Dispatch
import Foundation
import TestSupport
import Testing

/// A pool stretches its passphrase once, for the writer and every reader.
@Suite struct PoolKeyDerivationTests {
    /// Opens `count` readers at once: each read waits until all have started.
    static func openReaders(_ pool: DatabasePool, count: Int) async throws {
        let rendezvous = Rendezvous(count: count)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<count {
                group.addTask { _ = try await pool.read { _ in rendezvous.arriveAndWait() } }
            }
            try await group.waitForAll()
        }
    }

    @Test func aPoolWithFiveReadersRunsOneKeyDerivation() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        let key = try DatabaseKey.passphrase("one derivation")
        try await DatabaseQueue(path: path, key: key).write { try $0.execute(sql: "CREATE TABLE t(n)") }

        // The count is the measure: speed belongs to the benchmark, not to a test on a busy machine.
        let pool = try DatabasePool(path: path, key: key)
        try await Self.openReaders(pool, count: 5)
        #expect(pool.readerCount == 5)
        #expect(pool.keyDerivationCount.load(ordering: .relaxed) == 1)
    }

    @Test func aNewFileGetsItsSaltFromThePoolAndOpensWithThePassphrase() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("new.sqlite")
        let key = try DatabaseKey.passphrase("new file")
        let pool = try DatabasePool(path: path, key: key)
        try await pool.write { try $0.execute(sql: "CREATE TABLE t(n)"); try $0.execute(sql: "INSERT INTO t VALUES (1)") }
        try await Self.openReaders(pool, count: 3)
        let derivations = pool.keyDerivationCount.load(ordering: .relaxed)
        #expect(derivations == 1)
        #expect(try await pool.read { try $0.fetchScalar(Int.self, sql: "SELECT n FROM t") } == 1)
        try pool.close()
        let queue = try DatabaseQueue(path: path, key: key)
        #expect(try await queue.read { try $0.fetchScalar(Int.self, sql: "SELECT n FROM t") } == 1)
        #expect(!fileBytes(path).prefix(16).elementsEqual(Array("SQLite format 3\0".utf8)))
    }

    @Test func customKDFIterationsAreDerivedAlike() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("iter.sqlite")
        let key = try DatabaseKey.passphrase("fewer iterations")
        let configuration = Configuration(cipher: CipherSettings(kdfIterations: 4_000))
        try await DatabaseQueue(path: path, key: key, configuration: configuration).write { try $0.execute(sql: "CREATE TABLE t(n)") }
        let pool = try DatabasePool(path: path, key: key, configuration: configuration)
        try await Self.openReaders(pool, count: 2)
        let derivations = pool.keyDerivationCount.load(ordering: .relaxed)
        #expect(derivations == 1)
    }

    @Test func aRawKeyNeedsNoDerivation() throws {
        let directory = try TemporaryDirectory()
        let key = try DatabaseKey.rawKey(Array(repeating: 7, count: 32))
        let pool = try DatabasePool(path: directory.path("raw.sqlite"), key: key)
        try pool.write { try $0.execute(sql: "CREATE TABLE t(n)") }
        #expect(try pool.read { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") } == 0)
        let derivations = pool.keyDerivationCount.load(ordering: .relaxed)
        #expect(derivations == 0)
    }
}
