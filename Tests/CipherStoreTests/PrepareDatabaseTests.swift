@testable import CipherStore
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

/// `Configuration.prepareDatabase`: run on every connection a queue or pool opens, after
/// keying, so that a pool's readers have the app's functions and collations.
@Suite(.timeLimit(.minutes(2))) struct PrepareDatabaseTests {
    let directory: TemporaryDirectory
    let path: String
    let key: DatabaseKey

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.path("prepared.db")
        key = try DatabaseKey.rawKey(hex: String(repeating: "6a", count: 32))
    }

    static let reversed = DatabaseCollation("reversed") { lhs, rhs in rhs.compare(lhs) }
    static let shout = DatabaseFunction("shout", argumentCount: 1, pure: true) { values in
        guard case .text(let text)? = values.first else { return nil }
        return text.uppercased() + "!"
    }

    @Test func everyReaderOfAPoolHasTheFunctionsAndCollationsOfPrepareDatabase() async throws {
        let prepared = Counter()
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            // After keying: the encrypted schema reads.
            _ = try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM sqlite_master")
            try db.add(function: Self.shout)
            try db.add(collation: Self.reversed)
            prepared.value.add(1, ordering: .relaxed)
        }
        let pool = try DatabasePool(path: path, key: key, configuration: configuration, maximumReaderCount: 3)
        defer { try? pool.close() }
        try await pool.write { db in
            try db.executeScript("""
                CREATE TABLE word(text TEXT COLLATE reversed);
                CREATE INDEX word_shout ON word(shout(text));
                INSERT INTO word VALUES ('b'), ('c'), ('a');
                """)
        }
        #expect(prepared.value.load(ordering: .relaxed) == 1)

        // Three reads at once, each on a reader of its own (each waits until all three run).
        let running = Counter()
        let results = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<3 {
                group.addTask {
                    try await pool.read { db in
                        running.value.add(1, ordering: .relaxed)
                        let deadline = Date().addingTimeInterval(20)
                        while running.value.load(ordering: .relaxed) < 3 && Date() < deadline { usleep(1000) }
                        return try String.fetchAll(db, sql: "SELECT shout(text) FROM word ORDER BY text")
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results == Array(repeating: ["C!", "B!", "A!"], count: 3))
        #expect(pool.readerCount == 3)
        #expect(prepared.value.load(ordering: .relaxed) == 4)
    }

    @Test func aQueueRunsThePreparationsOnceInOrderAlsoOnANewFile() throws {
        let calls = Mutex<[String]>([])
        var configuration = Configuration()
        configuration.prepareDatabase { _ in calls.withLock { $0.append("first") } }
        configuration.prepareDatabase { db in
            try db.add(collation: Self.reversed)
            calls.withLock { $0.append("second") }
        }
        let queue = try DatabaseQueue(path: path, key: key, configuration: configuration)
        #expect(calls.withLock { $0 } == ["first", "second"])
        let ordered = try queue.write { db in
            try db.execute(sql: "CREATE TABLE t(x TEXT COLLATE reversed)")
            try db.execute(sql: "INSERT INTO t VALUES ('x'), ('y')")
            return try String.fetchAll(db, sql: "SELECT x FROM t ORDER BY x")
        }
        #expect(ordered == ["y", "x"])
        try queue.close()
    }

    @Test func aPreparationThatThrowsFailsTheOpen() throws {
        struct Refused: Error, Equatable {}
        _ = try DatabaseQueue(path: path, key: key)
        var configuration = Configuration()
        configuration.prepareDatabase { _ in throw Refused() }
        #expect(throws: Refused()) { try DatabaseQueue(path: path, key: key, configuration: configuration) }
        #expect(throws: Refused()) { try DatabasePool(path: path, key: key, configuration: configuration) }
    }

    @Test func aPoolReopenedWithANewKeyPreparesItsNewConnections() throws {
        let prepared = Counter()
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.add(function: Self.shout)
            prepared.value.add(1, ordering: .relaxed)
        }
        let pool = try DatabasePool(path: path, key: key, configuration: configuration)
        defer { try? pool.close() }
        try pool.write { try $0.execute(sql: "CREATE TABLE t(x)") }
        try pool.changeKey(to: try DatabaseKey.rawKey(hex: String(repeating: "6b", count: 32)))
        #expect(try pool.write { try $0.fetchScalar(String.self, sql: "SELECT shout('new key')") } == "NEW KEY!")
        #expect(try pool.read { try $0.fetchScalar(String.self, sql: "SELECT shout('reader')") } == "READER!")
        #expect(prepared.value.load(ordering: .relaxed) >= 3)
    }
}

