@testable import CipherStore
import Dispatch
import Foundation
import TestSupport
import Synchronization
import Testing

/// Observed values: the current one, then one after each commit that changed what the fetch
/// read; nothing for rollbacks or other tables; the last value is the final state.
@Suite(.timeLimit(.minutes(5))) struct ObservationTests {
    enum Kind: String, CaseIterable, Sendable { case queue, pool }

    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    func open(_ kind: Kind) throws -> any DatabaseWriter {
        let path = directory.path("\(kind).sqlite")
        let key = try DatabaseKey.passphrase("observed")
        let database: any DatabaseWriter = kind == .queue
            ? try DatabaseQueue(path: path, key: key) : try DatabasePool(path: path, key: key)
        try database.write { db in
            try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT)")
            try db.execute(sql: "CREATE TABLE other(id INTEGER PRIMARY KEY)")
        }
        return database
    }

    /// Counts the fetches it runs, and fetches the number of notes.
    final class CountingFetch: Sendable {
        let runs = Atomic<Int>(0)
        let sql: String
        init(sql: String = "SELECT count(*) FROM note") { self.sql = sql }
        func callAsFunction(_ db: Connection) throws -> Int {
            runs.add(1, ordering: .relaxed)
            return try db.fetchScalar(Int.self, sql: sql) ?? -1
        }
    }

    @Test(arguments: Kind.allCases)
    func oneValuePerRelevantCommitAndNoneForRollbacksOrOtherTables(_ kind: Kind) async throws {
        let database = try open(kind)
        let fetch = CountingFetch()
        var values = database.observe { try fetch($0) }.makeAsyncIterator()
        #expect(try await values.next() == 0)

        try await database.write { try $0.execute(sql: "INSERT INTO note(body) VALUES ('a')") }
        #expect(try await values.next() == 1)
        #expect(fetch.runs.load(ordering: .relaxed) == 2)

        // A commit to another table, and a rolled-back one, call for no fetch; the next
        // relevant commit is the next value.
        try await database.write { try $0.execute(sql: "INSERT INTO other DEFAULT VALUES") }
        try await database.transaction(.immediate) { db in
            try db.execute(sql: "INSERT INTO note(body) VALUES ('rolled back')")
            return .rollback
        }
        await #expect(throws: CancellationError.self) {
            try await database.write { db in
                try db.execute(sql: "INSERT INTO note(body) VALUES ('thrown away')")
                throw CancellationError()
            }
        }
        try await database.write { try $0.execute(sql: "INSERT INTO note(body) VALUES ('b')") }
        #expect(try await values.next() == 2)
        #expect(fetch.runs.load(ordering: .relaxed) == 3)
        try database.close()
    }

    @Test(arguments: Kind.allCases)
    func commitsMadeWithBeginAndCommitStatementsCount(_ kind: Kind) async throws {
        let database = try open(kind)
        var values = database.observe { db in try db.fetchAll(sql: "SELECT body FROM note ORDER BY id").map { try $0.value(String.self, at: 0) } }
            .makeAsyncIterator()
        #expect(try await values.next() == [])
        try await database.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN")
            try db.execute(sql: "INSERT INTO note(body) VALUES ('x')")
            try db.execute(sql: "INSERT INTO note(body) VALUES ('y')")
            try db.execute(sql: "COMMIT")
        }
        #expect(try await values.next() == ["x", "y"])
        // Autocommit statements commit on their own.
        try await database.writeWithoutTransaction { try $0.execute(sql: "UPDATE note SET body = 'z' WHERE body = 'x'") }
        #expect(try await values.next() == ["z", "y"])
        // A whole-table DELETE is seen too (SQLite's truncate optimization would hide it).
        try await database.writeWithoutTransaction { try $0.execute(sql: "DELETE FROM note") }
        #expect(try await values.next() == [])
        try database.close()
    }

    @Test(arguments: Kind.allCases)
    func aCountReadsItsTableThroughAViewAndAnIndex(_ kind: Kind) async throws {
        let database = try open(kind)
        try await database.write { db in
            try db.execute(sql: "CREATE INDEX note_body ON note(body)")
            try db.execute(sql: "CREATE VIEW long_note AS SELECT id FROM note WHERE length(body) > 3")
        }
        let fetch = CountingFetch(sql: "SELECT (SELECT count(*) FROM long_note) + (SELECT count(*) FROM note WHERE body = 'ab')")
        var values = database.observe { try fetch($0) }.makeAsyncIterator()
        #expect(try await values.next() == 0)
        try await database.write { try $0.execute(sql: "INSERT INTO other DEFAULT VALUES") }
        try await database.write { try $0.execute(sql: "INSERT INTO note(body) VALUES ('ab')") }
        #expect(try await values.next() == 1)
        try await database.write { try $0.execute(sql: "INSERT INTO note(body) VALUES ('long body')") }
        #expect(try await values.next() == 2)
        #expect(fetch.runs.load(ordering: .relaxed) == 3, "the commit to `other` caused a fetch")

        let tables = try await database.read { db in
            let (_, statements) = try db.recordingStatements { try fetch(db) }
            return ObservedRegion.tablesRead(by: statements, in: db)
        }
        #expect(tables == ["note"])
        try database.close()
    }

    @Test(arguments: Kind.allCases)
    func aWithoutRowidTableIsObservedThroughEveryCommit(_ kind: Kind) async throws {
        let database = try open(kind)
        try await database.write { try $0.execute(sql: "CREATE TABLE tag(name TEXT PRIMARY KEY) WITHOUT ROWID") }
        var values = database.observe { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM tag") ?? -1 }.makeAsyncIterator()
        #expect(try await values.next() == 0)
        // SQLite's update hook does not report WITHOUT ROWID tables: every commit counts.
        try await database.write { try $0.execute(sql: "INSERT INTO tag VALUES ('swift')") }
        #expect(try await values.next() == 1)
        try database.close()
    }

    @Test(arguments: Kind.allCases)
    func aBurstOfWritesFromSeveralTasksEndsOnTheFinalState(_ kind: Kind) async throws {
        let database = try open(kind)
        let observation = database.observe { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM note") ?? -1 }
            .removingDuplicates()
        var values = observation.makeAsyncIterator()
        #expect(try await values.next() == 0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<4 {
                group.addTask {
                    for n in 0..<250 {
                        try await database.write { try $0.execute(sql: "INSERT INTO note(body) VALUES (?)", arguments: ["\(task)-\(n)"]) }
                    }
                }
            }
            try await group.waitForAll()
        }
        var last = 0
        var previous = 0
        while last != 1000, let value = try await values.next() {
            #expect(value > previous, "values go up and no two in a row are equal")
            previous = value
            last = value
        }
        #expect(last == 1000)
        try database.close()
    }

    @Test(arguments: Kind.allCases)
    func cancellingTheConsumerStopsTheObservationAndReleasesTheHooks(_ kind: Kind) async throws {
        let database = try open(kind)
        let fetch = CountingFetch()
        let started = AsyncStream<Int>.makeStream()
        let consumer = Task {
            for try await value in database.observe({ try fetch($0) }) { started.continuation.yield(value) }
        }
        var firstValues = started.stream.makeAsyncIterator()
        #expect(await firstValues.next() == 0)
        consumer.cancel()
        _ = try? await consumer.value
        // The writer stops tracking commits once the last observation is gone.
        try await waitUntil { try database.writeWithoutTransaction { !$0.handle.hooks.broker.isObserving } }
        let runs = fetch.runs.load(ordering: .relaxed)
        try await database.write { try $0.execute(sql: "INSERT INTO note(body) VALUES ('after')") }
        try await Task.sleep(for: .milliseconds(200))
        #expect(fetch.runs.load(ordering: .relaxed) == runs)
        try database.close()
    }

    @Test(arguments: Kind.allCases)
    func closingEndsTheSequenceAndAFailingFetchThrows(_ kind: Kind) async throws {
        let database = try open(kind)
        var values = database.observe { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM note") ?? -1 }.makeAsyncIterator()
        #expect(try await values.next() == 0)
        try database.close()
        #expect(try await values.next() == nil)

        let other = try open(kind == .queue ? .pool : .queue)
        var failing = other.observe { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM missing_table") }.makeAsyncIterator()
        await #expect(throws: DatabaseError.self) { _ = try await failing.next() }
        try other.close()
    }

    @Test(arguments: Kind.allCases)
    func aWithoutRowidTableReadThroughAnIndexIsObservedThroughEveryCommit(_ kind: Kind) async throws {
        let database = try open(kind)
        try await database.write { db in
            try db.execute(sql: "CREATE TABLE tag(name TEXT PRIMARY KEY, uses INTEGER) WITHOUT ROWID")
            try db.execute(sql: "CREATE INDEX tag_uses ON tag(uses)")
        }
        var values = database.observe { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM tag WHERE uses = 1") ?? -1 }
            .makeAsyncIterator()
        #expect(try await values.next() == 0)
        try await database.write { try $0.execute(sql: "INSERT INTO tag VALUES ('swift', 1)") }
        #expect(try await values.next() == 1)
        try database.close()
    }

    @Test(arguments: Kind.allCases)
    func schemaChangesAndPragmaWritesAreObserved(_ kind: Kind) async throws {
        let database = try open(kind)
        try await database.write { db in
            try db.execute(sql: "INSERT INTO note(body) VALUES ('a')")
            try db.execute(sql: "CREATE VIEW shown AS SELECT id FROM note")
        }
        var shown = database.observe { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM shown") ?? -1 }.makeAsyncIterator()
        #expect(try await shown.next() == 1)
        // The view now shows another table: no row changed, the schema did.
        try await database.write { db in
            try db.execute(sql: "DROP VIEW shown")
            try db.execute(sql: "CREATE VIEW shown AS SELECT id FROM other")
        }
        #expect(try await shown.next() == 0)

        var version = database.observe { try $0.fetchScalar(Int.self, sql: "PRAGMA user_version") ?? -1 }.makeAsyncIterator()
        #expect(try await version.next() == 0)
        try await database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = 7") }
        #expect(try await version.next() == 7)
        try database.close()
    }

    @Test func aQueueTransactionLeftOpenIsNeitherShownNorMissed() async throws {
        let database = try open(.queue)
        try await database.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN")
            try db.execute(sql: "INSERT INTO note(body) VALUES ('uncommitted')")
        }
        var values = database.observe { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM note") ?? -1 }.makeAsyncIterator()
        // The first value waits for the open transaction to end: rolled back, nothing to show.
        try await database.writeWithoutTransaction { try $0.execute(sql: "ROLLBACK") }
        #expect(try await values.next() == 0)
        try await database.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN")
            try db.execute(sql: "INSERT INTO note(body) VALUES ('committed later')")
        }
        try await database.writeWithoutTransaction { try $0.execute(sql: "COMMIT") }
        #expect(try await values.next() == 1)
        try database.close()
    }

    @Test func aPoolTransactionOpenWhenObservationStartsIsSeenWhenItCommits() async throws {
        let database = try open(.pool)
        try await database.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            try db.execute(sql: "INSERT INTO note(body) VALUES ('in flight')")
        }
        var values = database.observe { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM note") ?? -1 }.makeAsyncIterator()
        #expect(try await values.next() == 0)
        try await database.writeWithoutTransaction { try $0.execute(sql: "COMMIT") }
        #expect(try await values.next() == 1)
        try database.close()
    }

    @Test func aCommitDuringAPoolFetchThatReadsMoreThanTheLastOneIsNotMissed() async throws {
        // What the fetch reads depends on the data: `note` only once `other` has a row.
        let database = try open(.pool)
        let insideSecondFetch = Atomic<Bool>(false)
        let mayFinish = Atomic<Bool>(false)
        let runs = Atomic<Int>(0)
        var values = database.observe { db -> Int in
            let run = runs.add(1, ordering: .relaxed).newValue
            guard try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM other") ?? 0 > 0 else { return -1 }
            if run == 2 {
                insideSecondFetch.store(true, ordering: .releasing)
                // At most a minute: a test that went wrong fails, it does not hang.
                for _ in 0..<60_000 where !mayFinish.load(ordering: .acquiring) { usleep(1_000) }
            }
            return try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM note") ?? -1
        }.removingDuplicates().makeAsyncIterator()
        #expect(try await values.next() == -1)
        try await database.write { try $0.execute(sql: "INSERT INTO other DEFAULT VALUES") }
        // Under a loaded machine the fetch may start late: up to a minute.
        try await waitUntil(seconds: 60) { insideSecondFetch.load(ordering: .acquiring) }
        // The second fetch's snapshot started before this commit, to a table the first fetch
        // did not read.
        try await database.write { try $0.execute(sql: "INSERT INTO note(body) VALUES ('during')") }
        mayFinish.store(true, ordering: .releasing)
        #expect(try await values.next() == 0)
        #expect(try await values.next() == 1)
        try database.close()
    }

    @Test(.enabled(if: SQLCipherLibrary.sqliteVersion.compare("3.35.0", options: .numeric) != .orderedAscending,
                   "RETURNING needs SQLite 3.35 (SQLCipher 4); counterpart on SQLCipher 3: commitsMadeWithBeginAndCommitStatementsCount"))
    func anInsertReturningReadThroughFetchOneIsObserved() async throws {
        let database = try open(.pool)
        var values = database.observe { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM note") ?? -1 }.makeAsyncIterator()
        #expect(try await values.next() == 0)
        // The statement returns a row, then commits when it is reset.
        let id = try await database.writeWithoutTransaction { try $0.fetchScalar(Int.self, sql: "INSERT INTO note(body) VALUES ('r') RETURNING id") }
        #expect(id == 1)
        #expect(try await values.next() == 1)
        try database.close()
    }

    @Test func aPoolRefusesMoreReadersThanItsLimit() throws {
        #expect(throws: CipherStoreError.self) {
            try DatabasePool(path: directory.path("limit.sqlite"), key: .passphrase("limit"), maximumReaderCount: DatabasePool.readerCountLimit + 1)
        }
    }

    @Test func dropsStillDropWhileWholeTableDeletesGoRowByRow() throws {
        // While a transaction observer is added, the authorizer turns off the truncate
        // optimization for DELETE statements only.
        let db = try Connection(path: directory.path("drops.sqlite"), key: .passphrase("drops"))
        let observer = DeletionCounter()
        db.add(transactionObserver: observer)
        try db.executeScript("""
            CREATE TABLE a(x); CREATE TABLE b(x); CREATE VIEW v AS SELECT x FROM a; CREATE INDEX a_x ON a(x);
            CREATE TRIGGER a_t AFTER INSERT ON a BEGIN SELECT 1; END;
            INSERT INTO a VALUES (1), (2);
            """)
        let before = db.totalChangesCount
        try db.execute(sql: "DELETE FROM a")
        #expect(db.changesCount == 2)
        #expect(db.totalChangesCount == before + 2)
        #expect(observer.deletions == 2)
        try db.executeScript("DROP VIEW v; DROP INDEX a_x; DROP TRIGGER a_t; DROP TABLE a; DROP TABLE b;")
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM sqlite_master") == 0)
        try db.close()
    }

    @Test func aWholeTableDeletePreparedBeforeTheObservationIsSeen() async throws {
        let queue = try DatabaseQueue(path: directory.path("truncate.sqlite"), key: .passphrase("truncate"))
        try await queue.write { db in
            try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT)")
            try db.execute(sql: "INSERT INTO note(body) VALUES ('a'), ('b')")
            // Cached before any observer: prepared with SQLite's truncate optimization.
            try db.cachedStatement(sql: "DELETE FROM note").execute()
            try db.execute(sql: "INSERT INTO note(body) VALUES ('c')")
        }
        var values = queue.observe { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM note") ?? -1 }.makeAsyncIterator()
        #expect(try await values.next() == 1)
        try await queue.write { db in try db.cachedStatement(sql: "DELETE FROM note").execute() }
        #expect(try await values.next() == 0)
        try queue.close()
    }

    @Test func theSchemaIsReadOncePerSchemaVersionNotOncePerFetch() async throws {
        let queue = try DatabaseQueue(path: directory.path("explain.sqlite"), key: .passphrase("explain"))
        try await queue.write { try $0.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT)") }
        let traced = Traced()
        try await queue.writeWithoutTransaction { db in try db.trace { sql in traced.lines.withLock { $0.append(sql) } } }
        var values = queue.observe { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM note") ?? -1 }.makeAsyncIterator()
        #expect(try await values.next() == 0)
        for expected in 1...3 {
            try await queue.write { try $0.execute(sql: "INSERT INTO note(body) VALUES ('x')") }
            #expect(try await values.next() == expected)
        }
        var statements = traced.lines.withLock { $0 }
        // The schema's root pages are read once (EXPLAIN runs are not traced; they are kept
        // with the same schema version), while the fetch ran four times.
        let rootsRead = "SELECT type, tbl_name, rootpage, sql FROM main.sqlite_master"
        #expect(statements.filter { $0.hasPrefix(rootsRead) }.count == 1, "\(statements)")
        #expect(statements.filter { $0 == "SELECT count(*) FROM note" }.count == 4, "\(statements)")
        // A schema change (which every observation sees): read again, once.
        try await queue.write { try $0.execute(sql: "CREATE TABLE other(x)") }
        #expect(try await values.next() == 3)
        try await queue.write { try $0.execute(sql: "INSERT INTO note(body) VALUES ('y')") }
        #expect(try await values.next() == 4)
        statements = traced.lines.withLock { $0 }
        #expect(statements.filter { $0.hasPrefix(rootsRead) }.count == 2, "\(statements)")
        try queue.close()
    }

    @Test func aWholeTableDeleteTheAppHeldBeforeThePoolObservationIsSeen() async throws {
        let pool = try DatabasePool(path: directory.path("held.sqlite"), key: .passphrase("held"))
        var held: Statement? = try prepareHeldDelete(on: pool)
        var values = pool.observe { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM note") ?? -1 }.makeAsyncIterator()
        #expect(try await values.next() == 3)
        try runHeld(try #require(held), on: pool)
        #expect(try await values.next() == 0)
        held = nil
        try pool.close()
    }

    /// A `DELETE FROM note` prepared on the pool's writer before anything observes it (with
    /// SQLite's truncate optimization), and kept by the app.
    func prepareHeldDelete(on pool: DatabasePool) throws -> Statement {
        try pool.writeWithoutTransaction { db in
            try db.executeScript("CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO note(body) VALUES ('a'), ('b'), ('c');")
            return try db.makeStatement(sql: "DELETE FROM note")
        }
    }

    func runHeld(_ statement: Statement, on pool: DatabasePool) throws {
        try pool.writeWithoutTransaction { _ in try statement.execute() }
    }

    /// Counts the rows deleted.
    final class DeletionCounter: TransactionObserver {
        var deletions = 0
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
        func databaseDidChange(with event: DatabaseEvent) { if event.kind == .delete { deletions += 1 } }
        func databaseDidCommit(_ db: Database) {}
        func databaseDidRollback(_ db: Database) {}
    }

    /// The SQL a connection traced.
    final class Traced: Sendable {
        let lines = Mutex<[String]>([])
    }

    /// Polls `condition` for up to `seconds` (five by default).
    func waitUntil(seconds: Int = 5, _ condition: () throws -> Bool) async throws {
        for _ in 0..<(seconds * 20) {
            if try condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the condition did not become true within \(seconds) seconds")
    }
}
