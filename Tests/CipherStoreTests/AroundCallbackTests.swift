@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// GRDB's `around` persistence callbacks: where they run among the others, work of their own
/// around the write, and a callback that breaks its contract (no call, two calls, a swallowed
/// error) reported with the file as it is.
@Suite struct AroundCallbackTests {
    final class EventLog {
        var events: [String] = []
    }

    /// How the `around` callbacks of a ``Player`` misbehave.
    enum Misbehaviour { case none, skipInsert, insertTwice, swallowError, skipDelete, throwAfterInsert }

    struct Late: Error {}

    struct Player: Codable, FetchableRecord, MutablePersistableRecord, RowIDRecord {
        static let databaseTableName = "player"
        var id: Int64?
        var name: String
        var log = EventLog()
        var misbehaviour = Misbehaviour.none

        enum CodingKeys: String, CodingKey { case id, name }

        mutating func willSave(_ db: Connection) throws { log.events.append("willSave") }
        func aroundSave(_ db: Connection, save: () throws -> PersistenceSuccess) throws {
            log.events.append("aroundSave>")
            if misbehaviour == .throwAfterInsert {
                _ = try? save()
                return
            }
            _ = try save()
            log.events.append("<aroundSave")
        }
        func didSave(_ saved: PersistenceSuccess) { log.events.append("didSave") }
        mutating func willInsert(_ db: Connection) throws { log.events.append("willInsert") }
        func aroundInsert(_ db: Connection, insert: () throws -> InsertionSuccess) throws {
            log.events.append("aroundInsert>")
            switch misbehaviour {
            case .skipInsert: break
            case .throwAfterInsert:
                _ = try insert()
                throw Late()
            case .insertTwice:
                _ = try insert()
                _ = try insert()
            case .swallowError:
                _ = try? insert()
            case .none, .skipDelete:
                let inserted = try insert()
                // An audit row after the insert: the record's rowid is still the one it got.
                try db.execute(sql: "INSERT INTO audit(playerId, event) VALUES (?, 'inserted')", arguments: [inserted.rowID])
            }
            log.events.append("<aroundInsert")
        }
        mutating func didInsert(_ inserted: InsertionSuccess) { log.events.append("didInsert \(inserted.rowID)") }
        func willUpdate(_ db: Connection, columns: Set<String>) throws { log.events.append("willUpdate") }
        func aroundUpdate(_ db: Connection, columns: Set<String>, update: () throws -> PersistenceSuccess) throws {
            log.events.append("aroundUpdate>")
            _ = try update()
            log.events.append("<aroundUpdate")
        }
        func didUpdate(_ updated: PersistenceSuccess) { log.events.append("didUpdate") }
        func willDelete(_ db: Connection) throws { log.events.append("willDelete") }
        func aroundDelete(_ db: Connection, delete: () throws -> Bool) throws {
            log.events.append("aroundDelete>")
            if misbehaviour != .skipDelete { log.events.append("deleted \(try delete())") }
            log.events.append("<aroundDelete")
        }
        func didDelete(deleted: Bool) { log.events.append("didDelete \(deleted)") }
    }

    let directory: TemporaryDirectory
    let db: Connection

    init() throws {
        directory = try TemporaryDirectory()
        db = try Connection(path: directory.path("around.db"), key: .rawKey(hex: String(repeating: "7c", count: 32)))
        try db.executeScript("""
            CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
            CREATE TABLE audit(id INTEGER PRIMARY KEY, playerId INTEGER NOT NULL, event TEXT NOT NULL);
            INSERT INTO audit(playerId, event) VALUES (0, 'opened');
            """)
    }

    @Test func aroundCallbacksRunWhereGRDBRunsThem() throws {
        var player = Player(id: nil, name: "ann")
        try player.insert(db)
        #expect(player.log.events == ["willSave", "aroundSave>", "willInsert", "aroundInsert>", "<aroundInsert", "didInsert 1", "<aroundSave", "didSave"])
        #expect(player.id == 1, "the rowid of the player's row, not of the audit row inserted after it")
        #expect(try db.fetchAll(Int64.self, sql: "SELECT playerId FROM audit WHERE event = 'inserted'") == [1])

        player.log.events = []
        player.name = "anne"
        try player.update(db)
        #expect(player.log.events == ["willSave", "aroundSave>", "willUpdate", "aroundUpdate>", "<aroundUpdate", "didUpdate", "<aroundSave", "didSave"])

        player.log.events = []
        let old = player
        player.name = "annie"
        #expect(try player.updateChanges(db, from: old))
        #expect(player.log.events == ["willSave", "aroundSave>", "willUpdate", "aroundUpdate>", "<aroundUpdate", "didUpdate", "<aroundSave", "didSave"])

        player.log.events = []
        var other = Player(id: nil, name: "bob")
        try other.save(db)
        #expect(other.log.events == ["willSave", "aroundSave>", "willInsert", "aroundInsert>", "<aroundInsert", "didInsert 2", "<aroundSave", "didSave"])
        #expect(try db.fetchAll(String.self, sql: "SELECT name FROM player ORDER BY id") == ["annie", "bob"])

        player.log.events = []
        #expect(try player.delete(db))
        #expect(player.log.events == ["willDelete", "aroundDelete>", "deleted true", "<aroundDelete", "didDelete true"])
    }

    @Test func aCallbackThatBreaksItsContractGetsAnErrorThatSaysWhatWasWritten() throws {
        var skipped = Player(id: nil, name: "ann", misbehaviour: .skipInsert)
        let notCalled = #expect(throws: DatabaseError.self) { try skipped.insert(db) }
        #expect(notCalled?.message?.contains("aroundInsert of Player returned without calling insert(): it wrote nothing") == true)
        #expect(skipped.id == nil && !skipped.log.events.contains { $0.hasPrefix("didInsert") || $0 == "didSave" })
        #expect(try db.fetchScalar(Int.self, sql: "SELECT COUNT(*) FROM player") == 0)

        var twice = Player(id: nil, name: "bob", misbehaviour: .insertTwice)
        let calledTwice = #expect(throws: DatabaseError.self) { try twice.insert(db) }
        #expect(calledTwice?.message?.contains("called insert() a second time: the first call's write stands") == true)
        #expect(try db.fetchAll(String.self, sql: "SELECT name FROM player") == ["bob"], "the first call's row is there, as the message says")

        // The INSERT fails (a duplicate name) and the callback swallows the error.
        var swallowed = Player(id: nil, name: "bob", misbehaviour: .swallowError)
        #expect(throws: DatabaseError.self) { try swallowed.insert(db) }
        #expect(try db.fetchScalar(Int.self, sql: "SELECT COUNT(*) FROM player") == 1)

        // The INSERT succeeds, then aroundInsert throws and aroundSave swallows it: the row
        // is there, and the message says so.
        var late = Player(id: nil, name: "late", misbehaviour: .throwAfterInsert)
        let afterWrite = #expect(throws: DatabaseError.self) { try late.insert(db) }
        #expect(afterWrite?.message?.contains("what save() wrote before it failed stays in the database") == true)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT COUNT(*) FROM player WHERE name = 'late'") == 1)

        var kept = Player(id: nil, name: "cy")
        try kept.insert(db)
        kept.misbehaviour = .skipDelete
        let notDeleted = #expect(throws: DatabaseError.self) { try kept.delete(db) }
        #expect(notDeleted?.message?.contains("aroundDelete of Player returned without calling delete()") == true)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT COUNT(*) FROM player WHERE name = 'cy'") == 1)
        #expect(!kept.log.events.contains { $0.hasPrefix("didDelete") })
    }

    @Test func aroundInsertRunsForRETURNINGWhereTheLinkedSQLiteHasIt() throws {
        guard SQLCipherLibrary.sqliteVersion.compare("3.35", options: .numeric) != .orderedAscending else { return }
        var player = Player(id: nil, name: "dee")
        let stored = try player.insertAndFetch(db)
        #expect(stored.id == 1 && player.id == 1)
        #expect(player.log.events == ["willSave", "aroundSave>", "willInsert", "aroundInsert>", "<aroundInsert", "didInsert 1", "<aroundSave", "didSave"])
        player.log.events = []
        try player.upsert(db)
        #expect(player.log.events == ["willSave", "aroundSave>", "willInsert", "aroundInsert>", "<aroundInsert", "didInsert 1", "<aroundSave", "didSave"])
        #expect(try db.fetchAll(Int64.self, sql: "SELECT playerId FROM audit WHERE event = 'inserted'") == [1, 1])
    }
}
