import CipherStore
import Foundation
import Testing

/// What a GRDB user writes first works: `insert(&record)` of a UUID-keyed record,
/// `write { … return .rollback }`, `appliedMigrations(queue)`.
@Suite struct CommonMistakesTests {
    struct Tag: Codable, Equatable {
        var id: UUID
        var name: String
    }

    struct Note: Codable, RowIDRecord {
        var id: Int64?
        var body: String
    }

    let queue: DatabaseQueue

    init() throws {
        queue = try DatabaseQueue(location: .inMemory, key: nil)
        try queue.write { db in
            try db.executeScript("""
                CREATE TABLE tag(id BLOB PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL);
                """)
        }
    }

    @Test func insertingARecordWithAnAmpersandWorksWhateverItsKey() throws {
        var tag = Tag(id: UUID(), name: "swift")
        let before = tag
        var note = Note(id: nil, body: "hi")
        try queue.write { db in
            try db.insert(&tag, into: "tag")
            try db.insert(&note, into: "note")
        }
        #expect(tag == before)
        #expect(note.id == 1, "a rowid record still gets its id")
        #expect(try queue.read { try $0.fetchAll(Tag.self, sql: "SELECT * FROM tag") } == [before])
    }

    @Test func aWriteBlockThatReturnsACompletionDecidesTheTransaction() throws {
        let rolledBack = try queue.write { db in
            try db.execute(sql: "INSERT INTO note(body) VALUES ('discarded')")
            return .rollback
        }
        #expect(rolledBack == .rollback)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO note(body) VALUES ('kept')")
            return .commit
        }
        // However the completion is spelled or typed, it decides.
        let decided: TransactionCompletion = .rollback
        _ = try queue.write { db in
            try db.execute(sql: "INSERT INTO note(body) VALUES ('typed')")
            return decided
        }
        _ = try queue.write { (db: Connection) -> TransactionCompletion in
            try db.execute(sql: "INSERT INTO note(body) VALUES ('explicit')")
            return TransactionCompletion.rollback
        }
        #expect(try queue.read { try String.fetchAll($0, sql: "SELECT body FROM note") } == ["kept"])
        // An optional completion is data: committed.
        let stored: TransactionCompletion? = .rollback
        let returned = try queue.write { db -> TransactionCompletion? in
            try db.execute(sql: "INSERT INTO note(body) VALUES ('optional')")
            return stored
        }
        #expect(returned == .rollback)
        // SQLite rolled back already: .rollback is no error.
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE once(x UNIQUE)")
            try db.execute(sql: "INSERT INTO once VALUES (1)")
            return .commit
        }
        try queue.write { db in
            #expect(throws: DatabaseError.self) { try db.execute(sql: "INSERT OR ROLLBACK INTO once VALUES (1)") }
            return .rollback
        }
        #expect(try queue.read { try String.fetchAll($0, sql: "SELECT body FROM note") } == ["kept", "optional"])
        // A block that returns a value is committed and gives the value back, as before.
        #expect(try queue.write { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM note") } == 2)
    }

    @Test func theAsyncWriteBlockDecidesItToo() async throws {
        let result = try await queue.write { db in
            try db.execute(sql: "INSERT INTO note(body) VALUES ('discarded')")
            return .rollback
        }
        #expect(result == .rollback)
        try await queue.write { db in
            try db.execute(sql: "INSERT INTO note(body) VALUES ('kept')")
            return .commit
        }
        #expect(try await queue.read { try String.fetchAll($0, sql: "SELECT body FROM note") } == ["kept"])
    }

    @Test func appliedMigrationsTakesTheQueue() throws {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE extra(x)") }
        #expect(try migrator.appliedMigrations(queue) == [])
        try migrator.migrate(queue)
        #expect(try migrator.appliedMigrations(queue) == ["v1"])
        // It only reads: inside `read` too.
        #expect(try queue.read { try migrator.appliedMigrations($0) } == ["v1"])
    }
}
