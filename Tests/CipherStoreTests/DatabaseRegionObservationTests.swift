@testable import CipherStore
import Foundation
import Synchronization
import TestSupport
import Testing

/// Region observations: told after each commit that changed a tracked table, not after
/// commits to other tables or rollbacks, until cancelled.
@Suite struct DatabaseRegionObservationTests {
    enum Kind: String, CaseIterable, Sendable { case queue, pool }

    struct Note: Codable, FetchableRecord, TableRecord {
        static let databaseTableName = "note"
        var id: Int64?
        var title: String
    }

    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    func open(_ kind: Kind) throws -> any DatabaseWriter {
        let path = directory.path("\(kind).sqlite")
        let key = try DatabaseKey.passphrase("regions")
        let database: any DatabaseWriter = kind == .queue
            ? try DatabaseQueue(path: path, key: key) : try DatabasePool(path: path, key: key)
        try database.write { db in
            try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT)")
            try db.execute(sql: "CREATE TABLE tag(id INTEGER PRIMARY KEY, name TEXT)")
            try db.execute(sql: "CREATE TABLE other(id INTEGER PRIMARY KEY)")
        }
        return database
    }

    /// What `onChange` saw: the number of notes each time it ran.
    final class Changes: Sendable {
        let counts = Mutex<[Int]>([])
        var all: [Int] { counts.withLock { $0 } }
    }

    @Test(arguments: Kind.allCases)
    func aCommitToATrackedTableIsToldAndOneToAnotherTableOrARollbackIsNot(_ kind: Kind) throws {
        let database = try open(kind)
        let changes = Changes()
        let cancellable = DatabaseRegionObservation(tracking: Note.all()).start(in: database) { error in
            Issue.record("unexpected error \(error)")
        } onChange: { db in
            // The connection reads what was just committed.
            let count = (try? db.fetchScalar(Int.self, sql: "SELECT count(*) FROM note")) ?? -1
            changes.counts.withLock { $0.append(count) }
        }
        try database.write { db in try db.execute(sql: "INSERT INTO note(title) VALUES ('a')") }
        try database.write { db in try db.execute(sql: "INSERT INTO other DEFAULT VALUES") }
        try database.inTransaction(.immediate) { db in
            try db.execute(sql: "INSERT INTO note(title) VALUES ('rolled back')")
            return .rollback
        }
        // One call for a transaction of several changes.
        try database.write { db in
            try db.execute(sql: "INSERT INTO note(title) VALUES ('b'), ('c')")
            try db.execute(sql: "UPDATE note SET title = 'A' WHERE id = 1")
        }
        #expect(changes.all == [1, 3])

        cancellable.cancel()
        try database.write { db in try db.execute(sql: "INSERT INTO note(title) VALUES ('d')") }
        #expect(changes.all == [1, 3])
        try database.close()
    }

    @Test func severalRegionsAndRequestsAreTrackedTogetherAndReleasingTheCancellableStops() throws {
        let database = try open(.queue)
        let changes = Changes()
        var cancellable: AnyDatabaseCancellable? = DatabaseRegionObservation(
            tracking: DatabaseRegion(table: "TAG"), Note.filter(sql: "title = ?", arguments: ["x"])
        ).start(in: database) { error in
            Issue.record("unexpected error \(error)")
        } onChange: { _ in
            changes.counts.withLock { $0.append(0) }
        }
        try database.write { db in try db.execute(sql: "INSERT INTO tag(name) VALUES ('t')") }
        try database.write { db in try db.execute(sql: "INSERT INTO note(title) VALUES ('y')") }
        try database.write { db in try db.execute(sql: "INSERT INTO other DEFAULT VALUES") }
        #expect(changes.all.count == 2)
        _ = cancellable
        cancellable = nil
        try database.write { db in try db.execute(sql: "INSERT INTO tag(name) VALUES ('u')") }
        #expect(changes.all.count == 2)
        // The released observer is gone from the connection after that transaction.
        try database.writeWithoutTransaction { db in #expect(!db.handle.hooks.broker.isObserving) }
        try database.close()
    }

    @Test func aRequestThatDoesNotCompileIsReportedToOnError() throws {
        let database = try open(.queue)
        let failure = Mutex<String?>(nil)
        let cancellable = DatabaseRegionObservation(tracking: Note.filter(sql: "no_such_column = 1")).start(in: database) { error in
            failure.withLock { $0 = "\(error)" }
        } onChange: { _ in
            Issue.record("no change expected")
        }
        #expect(failure.withLock { $0 }?.contains("no_such_column") == true)
        try database.write { db in try db.execute(sql: "INSERT INTO note(title) VALUES ('a')") }
        cancellable.cancel()
        try database.close()
    }

    @Test func regionsCombine() {
        let notes = DatabaseRegion(table: "Note")
        #expect(notes.isModified(by: DatabaseEvent(kind: .insert, tableName: "note", rowID: 1)))
        #expect(!notes.isModified(byEventsOfKind: .delete(tableName: "tag")))
        #expect(notes.union(DatabaseRegion(table: "tag")).isModified(byEventsOfKind: .delete(tableName: "tag")))
        #expect(DatabaseRegion().isEmpty)
        #expect(notes.union(.fullDatabase).isFullDatabase)
        #expect(DatabaseRegion.fullDatabase.isModified(byEventsOfKind: .insert(tableName: "anything")))
    }
}
