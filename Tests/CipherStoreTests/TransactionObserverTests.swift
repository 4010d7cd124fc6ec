@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// Transaction observers on a real encrypted file: the rows each statement changes, the kinds
/// an observer accepts, a refused commit, rollbacks, savepoints, and how long the connection
/// keeps an observer.
@Suite struct TransactionObserverTests {
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
            try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT, body TEXT)")
            try db.execute(sql: "CREATE TABLE other(id INTEGER PRIMARY KEY)")
        }
        return database
    }

    /// Records what it hears; `accepts` decides which kinds of changes.
    final class Recorder: TransactionObserver {
        var accepts: (DatabaseEventKind) -> Bool
        var askedKinds: [DatabaseEventKind] = []
        var events: [DatabaseEvent] = []
        var commits = 0
        var rollbacks = 0
        var refusal: (any Error)?
        /// Calls of `databaseDidChange()`: changes told by `notifyChanges(in:)`.
        var undetectedChanges = 0
        /// Stops hearing of changes after this many in a transaction.
        var stopsAfter: Int?
        private var heardInTransaction = 0

        init(accepts: @escaping (DatabaseEventKind) -> Bool = { _ in true }) {
            self.accepts = accepts
        }

        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
            askedKinds.append(eventKind)
            return accepts(eventKind)
        }

        func databaseDidChange(with event: DatabaseEvent) {
            events.append(event)
            heard()
        }

        func databaseDidChange() {
            undetectedChanges += 1
            heard()
        }

        private func heard() {
            heardInTransaction += 1
            if let stopsAfter, heardInTransaction >= stopsAfter { stopObservingDatabaseChangesUntilNextTransaction() }
        }

        func databaseWillCommit() throws {
            if let refusal { throw refusal }
        }

        func databaseDidCommit(_ db: Database) {
            commits += 1
            heardInTransaction = 0
        }

        func databaseDidRollback(_ db: Database) {
            rollbacks += 1
            heardInTransaction = 0
        }

        var changes: [String] { events.map { "\($0.kind) \($0.tableName) \($0.rowID)" } }
    }

    struct Refused: Error, Equatable {
        let reason: String
    }

    func count(_ database: any DatabaseWriter, _ table: String = "note") throws -> Int {
        try database.read { db in try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM \(table)") ?? -1 }
    }

    @Test(arguments: Kind.allCases)
    func insertsUpdatesAndDeletesAreToldWithTheirTableAndRowID(_ kind: Kind) throws {
        let database = try open(kind)
        let recorder = Recorder()
        try database.writeWithoutTransaction { db in db.add(transactionObserver: recorder) }
        try database.write { db in
            try db.execute(sql: "INSERT INTO note(id, title) VALUES (7, 'a'), (8, 'b')")
            try db.execute(sql: "UPDATE note SET title = 'c' WHERE id = 7")
            try db.execute(sql: "DELETE FROM note WHERE id = 8")
            try db.execute(sql: "INSERT INTO other(id) VALUES (3)")
            // Told while the transaction runs, before the commit.
            #expect(recorder.events.count == 5)
            #expect(recorder.commits == 0)
        }
        #expect(recorder.changes == ["insert note 7", "insert note 8", "update note 7", "delete note 8", "insert other 3"])
        #expect(recorder.events.allSatisfy { $0.databaseName == "main" })
        #expect(recorder.commits == 1)
        #expect(recorder.rollbacks == 0)
        // A whole-table delete goes row by row while an observer listens.
        try database.write { db in try db.execute(sql: "DELETE FROM note") }
        #expect(recorder.changes.last == "delete note 7")
        #expect(recorder.commits == 2)
        try database.close()
    }

    @Test func observesEventsOfKindChoosesTheChangesToldAndIsAskedOncePerStatement() throws {
        let database = try open(.queue)
        // Deletions of notes, and updates of their body only.
        let recorder = Recorder { kind in
            switch kind {
            case .delete(let table): return table == "note"
            case .update(let table, let columns): return table == "note" && columns.contains("body")
            case .insert: return false
            }
        }
        try database.writeWithoutTransaction { db in db.add(transactionObserver: recorder, extent: .databaseLifetime) }
        try database.write { db in
            try db.execute(sql: "INSERT INTO note(id, title) VALUES (1, 'a'), (2, 'b'), (3, 'c')")
            try db.execute(sql: "UPDATE note SET title = 'x'")
            try db.execute(sql: "UPDATE note SET body = 'y' WHERE id = 2")
            try db.execute(sql: "DELETE FROM note WHERE id IN (1, 3)")
            try db.execute(sql: "INSERT INTO other(id) VALUES (1)")
        }
        #expect(recorder.changes == ["update note 2", "delete note 1", "delete note 3"])
        // One question per statement and kind of change, however many rows it changed.
        #expect(recorder.askedKinds == [
            .insert(tableName: "note"),
            .update(tableName: "note", columnNames: ["title"]),
            .update(tableName: "note", columnNames: ["body"]),
            .delete(tableName: "note"),
            .insert(tableName: "other"),
        ])
        // An observer that accepts nothing still hears the commit.
        #expect(recorder.commits == 1)
        try database.close()
    }

    @Test(arguments: Kind.allCases)
    func aCommitRefusedInWillCommitIsRolledBackAndItsErrorReachesTheCaller(_ kind: Kind) throws {
        let database = try open(kind)
        let recorder = Recorder()
        recorder.refusal = Refused(reason: "notes are frozen")
        try database.writeWithoutTransaction { db in db.add(transactionObserver: recorder) }

        #expect(throws: Refused(reason: "notes are frozen")) {
            try database.write { db in try db.execute(sql: "INSERT INTO note(title) VALUES ('a')") }
        }
        #expect(throws: Refused(reason: "notes are frozen")) {
            try database.inTransaction(.deferred) { db in
                try db.execute(sql: "INSERT INTO note(title) VALUES ('b')")
                return .commit
            }
        }
        // A lone statement commits on its own: it is the one that throws.
        try database.writeWithoutTransaction { db in
            #expect(throws: Refused(reason: "notes are frozen")) {
                try db.execute(sql: "INSERT INTO note(title) VALUES ('c')")
            }
            #expect(!db.isInTransaction)
        }
        #expect(try count(database) == 0)
        #expect(recorder.commits == 0)
        #expect(recorder.rollbacks == 3)

        // Once the observer lets commits through, the connection works as before.
        recorder.refusal = nil
        try database.write { db in try db.execute(sql: "INSERT INTO note(title) VALUES ('d')") }
        #expect(try count(database) == 1)
        #expect(recorder.commits == 1)
        try database.close()
    }

    @Test(.enabled(if: SQLCipherLibrary.sqliteVersion.compare("3.35.0", options: .numeric) != .orderedAscending,
                   "RETURNING needs SQLite 3.35 (SQLCipher 4)"))
    func aRefusedCommitOfAnInsertReturningReadThroughFetchOneThrows() throws {
        let database = try open(.queue)
        let recorder = Recorder()
        recorder.refusal = Refused(reason: "no more notes")
        try database.writeWithoutTransaction { db in db.add(transactionObserver: recorder) }
        _ = try database.writeWithoutTransaction { db in
            // The statement returns its row, then commits when it ends.
            #expect(throws: Refused(reason: "no more notes")) {
                try db.fetchScalar(Int.self, sql: "INSERT INTO note(title) VALUES ('r') RETURNING id")
            }
        }
        #expect(try count(database) == 0)
        recorder.refusal = nil
        let id = try database.writeWithoutTransaction { db in try db.fetchScalar(Int.self, sql: "INSERT INTO note(title) VALUES ('s') RETURNING id") }
        #expect(id == 1)
        #expect(recorder.commits == 1)
        try database.close()
    }

    @Test func aRollbackIsToldAndItsChangesCommitNothing() throws {
        let database = try open(.queue)
        let recorder = Recorder()
        try database.writeWithoutTransaction { db in db.add(transactionObserver: recorder) }
        try database.inTransaction(.immediate) { db in
            try db.execute(sql: "INSERT INTO note(title) VALUES ('a')")
            return .rollback
        }
        #expect(throws: Refused.self) {
            try database.write { db in
                try db.execute(sql: "INSERT INTO note(title) VALUES ('b')")
                throw Refused(reason: "the block failed")
            }
        }
        #expect(recorder.changes == ["insert note 1", "insert note 1"])
        #expect(recorder.rollbacks == 2)
        #expect(recorder.commits == 0)
        // A read calls no observer.
        _ = try count(database)
        #expect(recorder.rollbacks == 2)
        #expect(recorder.commits == 0)
        try database.close()
    }

    @Test func changesInsideASavepointAreToldWhenItIsReleasedAndNeverWhenItIsRolledBack() throws {
        let database = try open(.queue)
        let recorder = Recorder()
        try database.writeWithoutTransaction { db in db.add(transactionObserver: recorder) }
        try database.inTransaction(.immediate) { db in
            try db.execute(sql: "INSERT INTO note(id) VALUES (1)")
            try db.inSavepoint {
                try db.execute(sql: "INSERT INTO note(id) VALUES (2)")
                try db.inSavepoint {
                    try db.execute(sql: "INSERT INTO note(id) VALUES (3)")
                    return .commit
                }
                // Released into a savepoint still open: still held.
                #expect(recorder.changes == ["insert note 1"])
                return .commit
            }
            #expect(recorder.changes == ["insert note 1", "insert note 2", "insert note 3"])
            try db.inSavepoint {
                try db.execute(sql: "INSERT INTO note(id) VALUES (4)")
                try db.execute(sql: "UPDATE note SET title = 'undone' WHERE id = 1")
                return .rollback
            }
            try db.execute(sql: "SAVEPOINT outer")
            try db.execute(sql: "INSERT INTO note(id) VALUES (5)")
            try db.execute(sql: "SAVEPOINT inner")
            try db.execute(sql: "INSERT INTO note(id) VALUES (6)")
            try db.execute(sql: "ROLLBACK TO SAVEPOINT outer")
            try db.execute(sql: "INSERT INTO note(id) VALUES (7)")
            try db.execute(sql: "RELEASE SAVEPOINT outer")
            return .commit
        }
        #expect(recorder.changes == ["insert note 1", "insert note 2", "insert note 3", "insert note 7"])
        #expect(try database.read { db in try db.fetchAll(sql: "SELECT id FROM note ORDER BY id").map { try $0.value(Int.self, at: 0) } } == [1, 2, 3, 7])
        #expect(recorder.commits == 1)

        // A savepoint outside a transaction commits when released: its changes come first.
        try database.writeWithoutTransaction { db in
            try db.inSavepoint {
                try db.execute(sql: "INSERT INTO note(id) VALUES (8)")
                return .commit
            }
        }
        #expect(recorder.changes.last == "insert note 8")
        #expect(recorder.commits == 2)
        try database.close()
    }

    @Test func aNextTransactionObserverHearsOneTransactionOnly() throws {
        let database = try open(.queue)
        weak var released: Recorder?
        do {
            let recorder = Recorder()
            released = recorder
            try database.writeWithoutTransaction { db in db.add(transactionObserver: recorder, extent: .nextTransaction) }
        }
        // The connection holds it until its transaction ends.
        #expect(released != nil)
        try database.write { db in try db.execute(sql: "INSERT INTO note(title) VALUES ('a')") }
        #expect(released == nil)
        let rolledBack = Recorder()
        try database.writeWithoutTransaction { db in db.add(transactionObserver: rolledBack, extent: .nextTransaction) }
        try database.inTransaction(.immediate) { db in
            try db.execute(sql: "INSERT INTO note(title) VALUES ('b')")
            return .rollback
        }
        try database.write { db in try db.execute(sql: "INSERT INTO note(title) VALUES ('c')") }
        #expect(rolledBack.rollbacks == 1)
        #expect(rolledBack.commits == 0)
        #expect(rolledBack.changes == ["insert note 2"])
        try database.writeWithoutTransaction { db in #expect(!db.handle.hooks.broker.isObserving) }
        try database.close()
    }

    @Test func anObserverLifetimeObserverGoesWhenReleasedAndADatabaseLifetimeOneStays() throws {
        let database = try open(.queue)
        let kept = Recorder()
        weak var weaklyHeld: Recorder?
        weak var databaseHeld: Recorder?
        do {
            let transient = Recorder()
            let lasting = Recorder()
            weaklyHeld = transient
            databaseHeld = lasting
            try database.writeWithoutTransaction { db in
                db.add(transactionObserver: kept)
                db.add(transactionObserver: transient)
                db.add(transactionObserver: lasting, extent: .databaseLifetime)
            }
            try database.write { db in try db.execute(sql: "INSERT INTO note(title) VALUES ('a')") }
            #expect(transient.commits == 1)
        }
        // Released by the test: the connection did not keep it.
        #expect(weaklyHeld == nil)
        let lasting = try #require(databaseHeld)
        try database.write { db in try db.execute(sql: "INSERT INTO note(title) VALUES ('b')") }
        #expect(kept.commits == 2)
        #expect(lasting.commits == 2)

        try database.writeWithoutTransaction { db in
            db.remove(transactionObserver: kept)
            db.remove(transactionObserver: lasting)
        }
        try database.write { db in try db.execute(sql: "INSERT INTO note(title) VALUES ('c')") }
        #expect(kept.commits == 2)
        #expect(lasting.commits == 2)
        try database.writeWithoutTransaction { db in #expect(!db.handle.hooks.broker.isObserving) }
        try database.close()
    }

    @Test func aWithoutRowidTableReportsNoChangeButItsCommitIsTold() throws {
        let database = try open(.queue)
        try database.write { db in try db.execute(sql: "CREATE TABLE tag(name TEXT PRIMARY KEY) WITHOUT ROWID") }
        let recorder = Recorder()
        try database.writeWithoutTransaction { db in db.add(transactionObserver: recorder) }
        try database.write { db in try db.execute(sql: "INSERT INTO tag(name) VALUES ('x')") }
        #expect(recorder.events.isEmpty)
        #expect(recorder.commits == 1)
        #expect(try count(database, "tag") == 1)
        try database.close()
    }

    @Test func aPoolKeepsItsWritersObserversAcrossAKeyChange() throws {
        let pool = try DatabasePool(path: directory.path("rekeyed.sqlite"), key: .passphrase("before"))
        try pool.write { db in try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT)") }
        let recorder = Recorder()
        try pool.writeWithoutTransaction { db in db.add(transactionObserver: recorder) }
        try pool.changeKey(to: .passphrase("after"))
        try pool.write { db in try db.execute(sql: "INSERT INTO note(title) VALUES ('a')") }
        #expect(recorder.changes == ["insert note 1"])
        #expect(recorder.commits == 1)
        try pool.close()
    }
}
