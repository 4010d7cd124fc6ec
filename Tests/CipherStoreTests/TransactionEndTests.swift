@testable import CipherStore
import Foundation
import Synchronization
import TestSupport
import Testing

/// GRDB's transaction-observer extras on a real encrypted file: empty transactions told as
/// commits, `stopObservingDatabaseChangesUntilNextTransaction()`, `notifyChanges(in:)` and
/// `afterNextTransaction(onCommit:onRollback:)`.
@Suite struct TransactionEndTests {
    typealias Recorder = TransactionObserverTests.Recorder
    typealias Refused = TransactionObserverTests.Refused
    enum Kind: String, CaseIterable, Sendable { case queue, pool }

    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    func open(_ kind: Kind) throws -> any DatabaseWriter {
        let path = directory.path("\(kind).sqlite")
        let key = try DatabaseKey.passphrase("transaction ends")
        let database: any DatabaseWriter = kind == .queue
            ? try DatabaseQueue(path: path, key: key) : try DatabasePool(path: path, key: key)
        try database.write { db in
            try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT)")
            try db.execute(sql: "CREATE TABLE tag(name TEXT PRIMARY KEY) WITHOUT ROWID")
        }
        return database
    }

    @Test(arguments: Kind.allCases)
    func aTransactionThatWroteNothingIsToldAsACommitOrARollback(_ kind: Kind) throws {
        let database = try open(kind)
        let recorder = Recorder()
        try database.writeWithoutTransaction { db in db.add(transactionObserver: recorder) }
        try database.write { _ in }
        #expect(recorder.commits == 1)
        try database.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN")
            try db.execute(sql: "ROLLBACK")
            // A savepoint outside a transaction is one.
            try db.execute(sql: "SAVEPOINT s")
            try db.execute(sql: "RELEASE s")
            try db.execute(sql: "BEGIN")
            try db.execute(sql: "SAVEPOINT s")
            try db.execute(sql: "ROLLBACK TO s")
            try db.execute(sql: "RELEASE s")
            try db.execute(sql: "COMMIT")
        }
        #expect(recorder.rollbacks == 1)
        #expect(recorder.commits == 3)
        // A read is not a transaction of the writer's.
        _ = try database.read { db in try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM note") }
        #expect(recorder.commits == 3 && recorder.rollbacks == 1)

        // An observer may refuse it: the statement that commits throws, and a rollback is told.
        recorder.refusal = Refused(reason: "not now")
        let refused = #expect(throws: Refused.self) { try database.write { _ in } }
        #expect(refused == Refused(reason: "not now"))
        #expect(recorder.rollbacks == 2 && recorder.commits == 3)
        try database.writeWithoutTransaction { db in #expect(!db.isInTransaction) }
        recorder.refusal = nil
        try database.write { db in try db.execute(sql: "INSERT INTO note(title) VALUES ('a')") }
        #expect(recorder.commits == 4)
        try database.close()
    }

    @Test func anObserverStopsHearingChangesUntilTheTransactionEnds() throws {
        let database = try open(.queue)
        let stopping = Recorder()
        stopping.stopsAfter = 2
        let hearing = Recorder()
        try database.writeWithoutTransaction { db in
            db.add(transactionObserver: stopping)
            db.add(transactionObserver: hearing)
        }
        try database.write { db in
            try db.execute(sql: "INSERT INTO note(id, title) VALUES (1, 'a'), (2, 'b'), (3, 'c')")
            try db.execute(sql: "UPDATE note SET title = 'd'")
        }
        #expect(stopping.changes == ["insert note 1", "insert note 2"])
        #expect(hearing.events.count == 6)
        // It still hears the end, and the next transaction's changes.
        #expect(stopping.commits == 1)
        try database.inTransaction(.immediate) { db in
            // Held in a savepoint, then delivered: the stop applies there too.
            try db.inSavepoint {
                try db.execute(sql: "DELETE FROM note")
                return .commit
            }
            return .rollback
        }
        #expect(stopping.changes == ["insert note 1", "insert note 2", "delete note 1", "delete note 2"])
        #expect(stopping.rollbacks == 1)
        #expect(hearing.events.count == 9)
        // Called where no change is being told, it does nothing.
        stopping.stopObservingDatabaseChangesUntilNextTransaction()
        try database.write { db in try db.execute(sql: "INSERT INTO note(id, title) VALUES (4, 'e')") }
        #expect(stopping.changes.last == "insert note 4")
        try database.close()
    }

    @Test(arguments: Kind.allCases)
    func notifyChangesTellsTheObserversOfTheRegionThenTheCommit(_ kind: Kind) throws {
        let database = try open(kind)
        let tags = Recorder(accepts: { $0.tableName == "tag" })
        let notes = Recorder(accepts: { $0.tableName == "note" })
        try database.writeWithoutTransaction { db in
            db.add(transactionObserver: tags)
            db.add(transactionObserver: notes)
        }
        // A WITHOUT ROWID table's changes are not reported: the app tells them.
        try database.write { db in
            try db.execute(sql: "INSERT INTO tag(name) VALUES ('x')")
            try db.notifyChanges(in: DatabaseRegion(table: "TAG"))
        }
        #expect(tags.undetectedChanges == 1 && tags.commits == 1)
        #expect(notes.undetectedChanges == 0 && notes.commits == 1)
        // Every kind of change to the table is asked about, with the schema's spelling of its
        // name and every column for an update.
        #expect(tags.askedKinds.last == .insert(tableName: "tag"))
        let nameUpdates = Recorder(accepts: { $0 == .update(tableName: "tag", columnNames: ["name"]) })
        let deletions = Recorder(accepts: { $0 == .delete(tableName: "tag") })
        try database.writeWithoutTransaction { db in
            db.add(transactionObserver: nameUpdates)
            db.add(transactionObserver: deletions)
        }
        try database.write { db in try db.notifyChanges(in: DatabaseRegion(table: "Tag")) }
        #expect(nameUpdates.undetectedChanges == 1 && deletions.undetectedChanges == 1 && tags.undetectedChanges == 2)
        try database.writeWithoutTransaction { db in
            db.remove(transactionObserver: nameUpdates)
            db.remove(transactionObserver: deletions)
        }
        // Outside a transaction, the changes are on disk: a commit is told at once.
        try database.writeWithoutTransaction { db in
            try db.notifyChanges(in: .fullDatabase)
            #expect(notes.undetectedChanges == 1 && notes.commits == 3)
        }
        #expect(tags.undetectedChanges == 3 && tags.commits == 3)
        // A refused commit outside a transaction throws, and a rollback is told.
        notes.refusal = Refused(reason: "no")
        #expect(throws: Refused.self) { try database.writeWithoutTransaction { db in try db.notifyChanges(in: Note.all()) } }
        #expect(notes.rollbacks == 1 && tags.rollbacks == 1)
        notes.refusal = nil
        // A region of a request: the tables it reads.
        try database.write { db in try db.notifyChanges(in: Note.filter(Column("title") == "a")) }
        #expect(notes.undetectedChanges == 3 && tags.undetectedChanges == 3)
        // A queue's read block changes nothing: nothing is told.
        if kind == .queue {
            _ = try database.read { db in try db.notifyChanges(in: .fullDatabase) }
            #expect(notes.undetectedChanges == 3 && notes.commits == 4)
        }
        try database.close()
    }

    struct Note: Codable, FetchableRecord, TableRecord {
        static let databaseTableName = "note"
        var id: Int64?
        var title: String
    }

    @Test func notifyChangesRefreshesRegionAndValueObservations() async throws {
        let database = try open(.queue)
        let told = Mutex(0)
        let cancellable = DatabaseRegionObservation(tracking: DatabaseRegion(table: "tag")).start(in: database) { error in
            Issue.record("unexpected error \(error)")
        } onChange: { _ in told.withLock { $0 += 1 } }
        try await database.write { db in try db.execute(sql: "INSERT INTO tag(name) VALUES ('x')") }
        #expect(told.withLock { $0 } == 0)
        try await database.write { db in try db.notifyChanges(in: DatabaseRegion(table: "tag")) }
        #expect(told.withLock { $0 } == 1)
        // Another table's undetected change is not the region's.
        try await database.write { db in try db.notifyChanges(in: Note.all()) }
        #expect(told.withLock { $0 } == 1)
        cancellable.cancel()

        // A value observation of the WITHOUT ROWID table fetches again.
        let queue = try #require(database as? DatabaseQueue)
        var values = queue.observe { db in try String.fetchAll(db, sql: "SELECT name FROM tag ORDER BY name") }.makeAsyncIterator()
        var notes = queue.observe { db in try String.fetchAll(db, sql: "SELECT title FROM note ORDER BY title") }.makeAsyncIterator()
        #expect(try await values.next() == ["x"])
        #expect(try await notes.next() == [])
        try await queue.write { db in
            try db.execute(sql: "INSERT INTO tag(name) VALUES ('y')")
            try db.notifyChanges(in: DatabaseRegion(table: "tag"))
        }
        #expect(try await values.next() == ["x", "y"])
        // The observation of another table did not fetch again: its next value is the next note's.
        try await queue.write { db in try db.execute(sql: "INSERT INTO note(title) VALUES ('a')") }
        #expect(try await notes.next() == ["a"])
        try queue.close()
    }

    @Test(arguments: Kind.allCases)
    func afterNextTransactionRunsOnceOnCommitOrRollback(_ kind: Kind) throws {
        let database = try open(kind)
        let ends = Mutex<[String]>([])
        try database.write { db in
            try db.execute(sql: "INSERT INTO note(title) VALUES ('a')")
            db.afterNextTransaction { db in
                // After the commit: the connection reads what was committed.
                let count = (try? db.fetchScalar(Int.self, sql: "SELECT count(*) FROM note")) ?? -1
                ends.withLock { $0.append("commit \(count)") }
            } onRollback: { _ in ends.withLock { $0.append("rollback") } }
            #expect(ends.withLock { $0 }.isEmpty)
        }
        #expect(ends.withLock { $0 } == ["commit 1"])
        try database.write { db in try db.execute(sql: "INSERT INTO note(title) VALUES ('b')") }
        #expect(ends.withLock { $0 } == ["commit 1"])
        try database.inTransaction(.immediate) { db in
            db.afterNextTransaction { _ in ends.withLock { $0.append("commit") } } onRollback: { _ in ends.withLock { $0.append("rollback") } }
            try db.execute(sql: "INSERT INTO note(title) VALUES ('c')")
            return .rollback
        }
        #expect(ends.withLock { $0 } == ["commit 1", "rollback"])
        // Added outside a transaction: the next one, even one that writes nothing.
        try database.writeWithoutTransaction { db in db.afterNextTransaction { _ in ends.withLock { $0.append("empty") } } }
        _ = try database.read { db in try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM note") }
        #expect(ends.withLock { $0 } == ["commit 1", "rollback"])
        try database.write { _ in }
        #expect(ends.withLock { $0 } == ["commit 1", "rollback", "empty"])
        try database.writeWithoutTransaction { db in #expect(!db.handle.hooks.broker.isObserving) }
        try database.close()
    }
}
