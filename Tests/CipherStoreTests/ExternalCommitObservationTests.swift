@testable import CipherStore
import CSQLCipher
import Foundation
import Synchronization
import TestSupport
import Testing

/// Commits made through another connection to the same file — here a second queue of this
/// process, standing for another process (the CLI tests run a real one) — reach observations,
/// and the file is watched only while an observation runs.
@Suite struct ExternalCommitObservationTests {
    enum Kind: String, CaseIterable, Sendable { case queue, pool }

    let directory: TemporaryDirectory
    let path: String
    let key: DatabaseKey

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.path("shared.db")
        key = try .rawKey(hex: String(repeating: "3d", count: 32))
    }

    func open(_ kind: Kind) throws -> any DatabaseWriter {
        let writer: any DatabaseWriter = kind == .queue ? try DatabaseQueue(path: path, key: key) : try DatabasePool(path: path, key: key)
        try writer.write { db in try db.execute(sql: "CREATE TABLE IF NOT EXISTS note(id INTEGER PRIMARY KEY)") }
        return writer
    }

    func center(of writer: any DatabaseWriter) -> ObservationCenter {
        (writer as! any ObservationCenterOwner).observations
    }

    /// Waits up to five seconds for `condition`.
    func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<500 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test(arguments: Kind.allCases)
    func anotherConnectionsCommitReachesTheObservation(_ kind: Kind) async throws {
        let observed = try open(kind)
        let counts = Mutex<[Int]>([])
        let observing = Task {
            for try await count in observed.observe({ try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM note") ?? 0 }) {
                counts.withLock { $0.append(count) }
            }
        }
        defer { observing.cancel() }
        #expect(await eventually { counts.withLock { $0 } == [0] })

        let other = try DatabaseQueue(path: path, key: key)
        try await other.write { db in try db.execute(sql: "INSERT INTO note DEFAULT VALUES") }
        #expect(await eventually { counts.withLock { $0.last } == 1 }, "values: \(counts.withLock { $0 })")
        try other.close()
        try observed.close()
    }

    /// The SQL of the statements of `db` that are in the middle of a run: each would keep a
    /// read transaction, and with it an old snapshot, open.
    static func busyStatements(_ db: Connection) throws -> [String] {
        let pointer = try db.handle.pointer
        var busy: [String] = []
        var statement = sqlite3_next_stmt(pointer, nil)
        while let current = statement {
            if sqlite3_stmt_busy(current) != 0 { busy.append(String(cString: sqlite3_sql(current))) }
            statement = sqlite3_next_stmt(pointer, current)
        }
        return busy
    }

    @Test(arguments: Kind.allCases)
    func observingLeavesNoStatementRunningOnTheWriter(_ kind: Kind) async throws {
        let observed = try open(kind)
        let counts = Mutex<[Int]>([])
        let observing = Task {
            for try await count in observed.observe({ try $0.fetchAll(sql: "SELECT id FROM note").count }) {
                counts.withLock { $0.append(count) }
            }
        }
        defer { observing.cancel() }
        let other = try DatabaseQueue(path: path, key: key)
        for expected in 1...3 {
            try await other.write { db in try db.execute(sql: "INSERT INTO note DEFAULT VALUES") }
            #expect(await eventually { counts.withLock { $0.last } == expected }, "values: \(counts.withLock { $0 })")
            let busy = try await observed.writeWithoutTransaction { db in try Self.busyStatements(db) }
            #expect(busy == [], "statements left running after commit \(expected)")
        }
        try other.close()
        try observed.close()
    }

    @Test(arguments: Kind.allCases)
    func ownCommitsToOtherTablesStillCauseNoFetch(_ kind: Kind) async throws {
        let observed = try open(kind)
        try await observed.write { db in try db.execute(sql: "CREATE TABLE other(id INTEGER PRIMARY KEY)") }
        let counts = Mutex<[Int]>([])
        let observing = Task {
            for try await count in observed.observe({ try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM note") ?? 0 }) {
                counts.withLock { $0.append(count) }
            }
        }
        defer { observing.cancel() }
        #expect(await eventually { counts.withLock { $0 } == [0] })
        for _ in 0..<5 { try await observed.write { db in try db.execute(sql: "INSERT INTO other DEFAULT VALUES") } }
        // The file events of these writes are checked, and `data_version` did not move.
        try await Task.sleep(for: .milliseconds(500))
        #expect(counts.withLock { $0 } == [0])
        try observed.close()
    }

    @Test(arguments: Kind.allCases)
    func theFileIsWatchedOnlyWhileAnObservationRuns(_ kind: Kind) async throws {
        let observed = try open(kind)
        #expect(!center(of: observed).watchesExternalCommits)
        let seen = Mutex(false)
        let observing = Task {
            for try await _ in observed.observe({ try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM note") }) {
                seen.withLock { $0 = true }
            }
        }
        #expect(await eventually { seen.withLock { $0 } })
        #expect(center(of: observed).watchesExternalCommits)
        observing.cancel()
        #expect(await eventually { !center(of: observed).watchesExternalCommits })

        // Closing stops the watch before `close()` returns.
        let again = Task {
            for try await _ in observed.observe({ try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM note") }) {}
        }
        #expect(await eventually { center(of: observed).watchesExternalCommits })
        try observed.close()
        #expect(!center(of: observed).watchesExternalCommits)
        _ = try? await again.value
    }

    @Test func anInMemoryDatabaseIsNotWatched() async throws {
        let queue = try DatabaseQueue(location: .inMemory, key: nil)
        let seen = Mutex(false)
        let observing = Task {
            for try await _ in queue.observe({ try $0.fetchScalar(Int.self, sql: "SELECT 1") }) { seen.withLock { $0 = true } }
        }
        defer { observing.cancel() }
        #expect(await eventually { seen.withLock { $0 } })
        #expect(!queue.observations.watchesExternalCommits)
    }
}
