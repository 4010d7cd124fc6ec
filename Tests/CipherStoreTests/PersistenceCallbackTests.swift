@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// GRDB-style persistable records: callbacks and their order, a callback that stops a write,
/// conflict resolutions, UPSERT and RETURNING where the linked SQLite has them (a clear error
/// where it has not), and date and UUID storage chosen per record type.
@Suite struct PersistenceCallbackTests {
    final class EventLog {
        var events: [String] = []
    }

    struct Player: Codable, FetchableRecord, MutablePersistableRecord {
        static let databaseTableName = "player"
        var id: Int64?
        var name: String
        var score: Int
        var updatedAt: Date?
        var log = EventLog()
        var refuseDelete = false

        enum CodingKeys: String, CodingKey { case id, name, score, updatedAt }

        mutating func willInsert(_ db: Database) throws {
            log.events.append("willInsert")
            if name.isEmpty { throw RecordError.invalidName }
        }
        mutating func didInsert(_ inserted: InsertionSuccess) {
            id = inserted.rowID
            log.events.append("didInsert \(inserted.rowID)")
        }
        func willUpdate(_ db: Database, columns: Set<String>) throws { log.events.append("willUpdate \(columns.sorted().joined(separator: ","))") }
        func didUpdate(_ updated: PersistenceSuccess) { log.events.append("didUpdate") }
        mutating func willSave(_ db: Database) throws {
            updatedAt = Date(timeIntervalSince1970: 1_800_000_000)
            log.events.append("willSave")
        }
        func didSave(_ saved: PersistenceSuccess) { log.events.append("didSave \(saved.persistenceContainer["name"].map { "\($0)" } ?? "")") }
        func willDelete(_ db: Database) throws {
            log.events.append("willDelete")
            if refuseDelete { throw RecordError.protected }
        }
        func didDelete(deleted: Bool) { log.events.append("didDelete \(deleted)") }

        enum RecordError: Error { case invalidName, protected }
    }

    let directory: TemporaryDirectory
    let db: Connection
    var returningIsAvailable: Bool { SQLCipherLibrary.sqliteVersion.compare("3.35", options: .numeric) != .orderedAscending }

    init() throws {
        directory = try TemporaryDirectory()
        db = try Connection(path: directory.path("players.db"), key: .rawKey(hex: String(repeating: "5e", count: 32)))
        try db.execute(sql: "CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score INTEGER NOT NULL DEFAULT 0, updatedAt TEXT)")
        try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
    }

    @Test func callbacksRunInOrderAndDidInsertSetsTheID() throws {
        var player = Player(name: "Arthur", score: 10)
        try player.insert(db)
        #expect(player.id == 1)
        #expect(player.log.events == ["willSave", "willInsert", "didInsert 1", "didSave \"Arthur\""])
        #expect(try db.fetchScalar(String.self, sql: "SELECT updatedAt FROM player WHERE id = 1") == "2027-01-15 08:00:00.000", "willSave's change is what was written")

        player.log.events = []
        player.score = 20
        try player.update(db)
        #expect(player.log.events == ["willSave", "willUpdate id,name,score,updatedAt", "didUpdate", "didSave \"Arthur\""])

        player.log.events = []
        var stranger = Player(id: 42, name: "Barbara", score: 1)
        try stranger.save(db)   // no row 42: save inserts
        #expect(stranger.log.events == ["willSave", "willUpdate id,name,score,updatedAt", "willInsert", "didInsert 42", "didSave \"Barbara\""])
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM player") == 2)

        #expect(try player.delete(db))
        #expect(player.log.events == ["willDelete", "didDelete true"])
        #expect(try player.delete(db) == false)
    }

    @Test func aWillCallbackThatThrowsWritesNothing() throws {
        var nameless = Player(name: "", score: 1)
        #expect(throws: Player.RecordError.invalidName) { try nameless.insert(db) }
        #expect(nameless.id == nil)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM player") == 0)

        var kept = Player(name: "Kept", score: 1, refuseDelete: true)
        try kept.insert(db)
        #expect(throws: Player.RecordError.protected) { try kept.delete(db) }
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM player") == 1)
    }

    @Test func updateChangesRunsTheUpdateCallbacksWithTheChangedColumns() throws {
        var player = Player(name: "Arthur", score: 10)
        try player.insert(db)
        let stored = try #require(try Player.fetchOne(db, key: player.id))
        player.log.events = []

        // Nothing differs: no callback, no write (GRDB's behavior).
        #expect(try player.updateChanges(db, from: player) == false)
        #expect(player.log.events.isEmpty)

        var changed = stored
        changed.log = player.log
        changed.score = 30
        changed.updatedAt = nil   // willSave sets it again: a change that counts, and is written
        #expect(try changed.updateChanges(db, from: stored))
        #expect(player.log.events == ["willSave", "willUpdate score", "didUpdate", "didSave \"Arthur\""])
        #expect(try db.fetchScalar(Int.self, sql: "SELECT score FROM player WHERE id = ?", arguments: [player.id]) == 30)

        #expect(changed.updatedAt == nil, "the callbacks ran on a copy: the record is unchanged")
        #expect(try db.fetchScalar(String.self, sql: "SELECT updatedAt FROM player WHERE id = ?", arguments: [player.id]) == "2027-01-15 08:00:00.000")
    }

    @Test func updateChangesWithAClosureRunsTheCallbacksWithTheColumnsItChanged() throws {
        var player = Player(name: "Arthur", score: 10)
        try player.insert(db)
        player.log.events = []
        #expect(try player.updateChanges(db) { $0.score = 40 })
        // insert kept willSave's updatedAt in the record: the score alone changed.
        #expect(player.log.events == ["willSave", "willUpdate score", "didUpdate", "didSave \"Arthur\""])
        #expect(player.score == 40)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT score FROM player WHERE id = ?", arguments: [player.id]) == 40)

        player.log.events = []
        #expect(try player.updateChanges(db) { _ in } == false)
        #expect(player.log.events.isEmpty)
    }

    /// Generic code sees a record through the protocol it asks for: the callbacks and the id
    /// still follow the record's own type.
    @Test func genericCodeRunsTheRecordsOwnCallbacks() throws {
        func insertAll<T: TableRecord & Encodable>(_ records: [T], _ db: Connection) throws {
            for record in records { try record.insert(db) }
        }
        func insertSettingIDs<T: TableRecord & RowIDRecord>(_ records: inout [T], _ db: Connection) throws {
            for index in records.indices { try records[index].insert(db) }
        }
        func insertMutable<T: MutablePersistableRecord>(_ record: inout T, _ db: Connection) throws {
            try record.insert(db)
        }
        func saveMutable<T: MutablePersistableRecord>(_ record: inout T, _ db: Connection) throws {
            try record.save(db)
        }
        func deleteAll<T: TableRecord & Encodable>(_ records: [T], _ db: Connection) throws -> [Bool] {
            try records.map { try $0.delete(db) }
        }
        func updateChanges<T: TableRecord & Encodable>(_ record: T, from old: T, _ db: Connection) throws -> Bool {
            try record.updateChanges(db, from: old)
        }

        let log = EventLog()
        try insertAll([Player(name: "Arthur", score: 1, log: log)], db)
        #expect(log.events == ["willSave", "willInsert", "didInsert 1", "didSave \"Arthur\""])
        #expect(try db.fetchScalar(String.self, sql: "SELECT updatedAt FROM player WHERE id = 1") == "2027-01-15 08:00:00.000")

        // A record that is a RowIDRecord and has callbacks, seen as either.
        var notes = [Note(id: nil, body: "a", log: log), Note(id: nil, body: "b", log: log)]
        log.events = []
        try insertSettingIDs(&notes, db)
        #expect(notes.map(\.id) == [1, 2])
        #expect(log.events == ["willInsert a", "didInsert 1", "willInsert b", "didInsert 2"])

        var third = Note(id: nil, body: "c", log: log)
        log.events = []
        try insertMutable(&third, db)
        #expect(third.id == 3, "the id of a RowIDRecord is set in code generic over MutablePersistableRecord")
        #expect(log.events == ["willInsert c", "didInsert 3"])

        var fourth = Note(id: nil, body: "d", log: log)
        log.events = []
        try saveMutable(&fourth, db)
        #expect(fourth.id == 4)
        #expect(log.events == ["willInsert d", "didInsert 4"], "a nil id inserts without trying an update")

        var edited = third
        edited.body = "c2"
        log.events = []
        #expect(try updateChanges(edited, from: third, db))
        #expect(log.events == ["willUpdate body"])

        log.events = []
        #expect(try deleteAll([third, Note(id: 99, body: "gone", log: log)], db) == [true, false])
        #expect(log.events == ["willDelete 3", "didDelete true", "willDelete 99", "didDelete false"])
        #expect(try db.fetchAll(String.self, sql: "SELECT body FROM note ORDER BY id") == ["a", "b", "d"])
    }

    /// GRDB's per-type policy: what `insert`, `update` and `save` do on a conflict when the call
    /// does not say.
    @Test func aRecordTypesConflictPolicyAppliesWhenTheCallGivesNone() throws {
        struct Replacing: Codable, FetchableRecord, MutablePersistableRecord {
            static let databaseTableName = "player"
            static let persistenceConflictPolicy = PersistenceConflictPolicy(insert: .replace, update: .ignore)
            var id: Int64
            var name: String
            var score: Int
        }
        var arthur = Replacing(id: 1, name: "Arthur", score: 1)
        try arthur.insert(db)
        var other = Replacing(id: 2, name: "Arthur", score: 2)   // the same unique name: replaces row 1
        try other.insert(db)
        #expect(try db.fetchAll(sql: "SELECT id, name, score FROM player ORDER BY id").map(\.values) == [[.integer(2), .text("Arthur"), .integer(2)]])

        var barbara = Replacing(id: 3, name: "Barbara", score: 3)
        try barbara.insert(db)
        // UPDATE OR IGNORE: a conflicting update leaves the row as it was, and is no error (the row exists).
        barbara.name = "Arthur"
        try barbara.update(db)
        #expect(try db.fetchScalar(String.self, sql: "SELECT name FROM player WHERE id = 3") == "Barbara")
        // The call's own resolution wins over the type's.
        #expect(throws: DatabaseError.self) { try barbara.update(db, onConflict: .abort) }
        // A gone row is still not found.
        #expect(throws: RecordError.self) { try Replacing(id: 99, name: "Nobody", score: 0).update(db) }

        // save with an insert policy of .replace inserts at once, as in GRDB.
        var saved = Replacing(id: 3, name: "Barbara", score: 30)
        try saved.save(db)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT score FROM player WHERE id = 3") == 30)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM player") == 2)
    }

    @Test func updateChangesFollowsTheConflictPolicyAndRefusesAnOldRecordOfAnotherType() throws {
        struct Ignoring: Codable, FetchableRecord, MutablePersistableRecord {
            static let databaseTableName = "player"
            static let persistenceConflictPolicy = PersistenceConflictPolicy(update: .ignore)
            var id: Int64
            var name: String
            var score: Int
        }
        try db.execute(sql: "INSERT INTO player(id, name, score) VALUES (1, 'Arthur', 1), (2, 'Barbara', 2)")
        let barbara = Ignoring(id: 2, name: "Barbara", score: 2)
        var renamed = barbara
        renamed.name = "Arthur"   // UNIQUE: ignored, as the policy says
        #expect(try renamed.updateChanges(db, from: barbara))
        #expect(try db.fetchScalar(String.self, sql: "SELECT name FROM player WHERE id = 2") == "Barbara")
        #expect(throws: DatabaseError.self) { try renamed.updateChanges(db, from: barbara, onConflict: .abort) }

        func updateChanges<T: TableRecord & Encodable>(_ record: T, from old: T) throws -> Bool { try record.updateChanges(db, from: old) }
        #expect(throws: RecordError.differentRecordTypes(table: "player", record: "Sub", old: "Base")) {
            _ = try updateChanges(Sub(id: 1, name: "x") as Base, from: Base(id: 1, name: "Arthur"))
        }
        #expect(try db.fetchScalar(String.self, sql: "SELECT name FROM player WHERE id = 1") == "Arthur")
    }

    @Test func rowsFetchWithGRDBsSpelling() throws {
        try db.execute(sql: "INSERT INTO player(id, name, score) VALUES (1, 'Arthur', 10), (2, 'Barbara', 20)")
        #expect(try Row.fetchAll(db, sql: "SELECT * FROM player ORDER BY id").map(\.values) == db.fetchAll(sql: "SELECT * FROM player ORDER BY id").map(\.values))
        #expect(try Row.fetchOne(db, sql: "SELECT name FROM player WHERE score > ?", arguments: [15])?.value(String.self, at: 0) == "Barbara")
        let cursor = try Row.fetchCursor(db, sql: "SELECT score FROM player ORDER BY id")
        var scores: [Int] = []
        while let row = try cursor.next() { scores.append(try row.value(at: 0)) }
        #expect(scores == [10, 20])
    }

    @Test func conflictResolutionsAreTheSQLOnes() throws {
        var first = Player(name: "Arthur", score: 1)
        try first.insert(db)
        var same = Player(name: "Arthur", score: 2)
        #expect(throws: DatabaseError.self) { try same.insert(db) }
        try same.insert(db, onConflict: .ignore)
        #expect(try db.fetchAll(Int.self, sql: "SELECT score FROM player") == [1])
        try same.insert(db, onConflict: .replace)
        #expect(try db.fetchAll(sql: "SELECT id, score FROM player").map(\.values) == [[.integer(2), .integer(2)]])
        // The same through the request API.
        #expect(try Player.all().updateAll(db, onConflict: .ignore, Column("score") += 5) == 1)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT score FROM player") == 7)
    }

    @Test func upsertAndReturningWhereTheLinkedSQLiteHasThem() throws {
        var player = Player(name: "Arthur", score: 1)
        try player.insert(db)
        var again = Player(name: "Arthur", score: 9)
        guard returningIsAvailable else {
            // SQLite 3.15.2: a clear error naming the version, and nothing written.
            for attempt in [{ try again.upsert(self.db) }, { _ = try again.upsertAndFetch(self.db) }, { _ = try again.insertAndFetch(self.db) }] {
                #expect {
                    try attempt()
                } throws: { error in
                    let message = (error as? DatabaseError)?.message ?? ""
                    return message.contains("needs SQLite 3.35") && message.contains(SQLCipherLibrary.sqliteVersion) && message.contains("save(_:)")
                }
            }
            #expect(try db.fetchAll(sql: "SELECT id, score FROM player").map(\.values) == [[.integer(1), .integer(1)]])
            #expect(again.log.events.isEmpty, "no callback ran for a write that could not start")
            return
        }
        // The name conflicts: the row is updated in place, its rowid kept and told to didInsert.
        try again.upsert(db)
        #expect(again.id == 1)
        #expect(try db.fetchAll(sql: "SELECT id, score FROM player").map(\.values) == [[.integer(1), .integer(9)]])
        // RETURNING gives the stored row, defaults applied.
        try db.execute(sql: "CREATE TABLE tally(id INTEGER PRIMARY KEY, label TEXT NOT NULL, count INTEGER NOT NULL DEFAULT 7)")
        struct NewTally: Codable, FetchableRecord, MutablePersistableRecord {
            static let databaseTableName = "tally"
            var id: Int64?
            var label: String
        }
        struct Tally: Codable, Equatable, FetchableRecord { var id: Int64; var label: String; var count: Int }
        var tally = NewTally(label: "a")
        let stored = try tally.insertAndFetch(db)
        #expect(stored.id == 1 && stored.label == "a")
        #expect(try db.fetchOne(Tally.self, sql: "SELECT * FROM tally") == Tally(id: 1, label: "a", count: 7))
        let fetched = try Player(name: "Barbara", score: 3).upsertAndFetchCopy(db)
        #expect(fetched.name == "Barbara" && fetched.id == 2)

        // GRDB's non-mutating forms on a PersistableRecord, and the row decoded as another type.
        struct Label: Codable, FetchableRecord, PersistableRecord {
            static let databaseTableName = "tally"
            var label: String
        }
        let asTally = try Label(label: "b").insertAndFetch(db, as: Tally.self)
        #expect(asTally == Tally(id: 2, label: "b", count: 7))
        let asLabel = try Label(label: "c").insertAndFetch(db)
        #expect(asLabel.label == "c")
        var mutable = NewTally(label: "d")
        #expect(try mutable.insertAndFetch(db, as: Tally.self) == Tally(id: 4, label: "d", count: 7))
        #expect(mutable.id == nil, "NewTally sets no id in didInsert: the record is as it was")
        #expect(try Tally.fetchAll(db, sql: "SELECT * FROM tally ORDER BY id") == [
            Tally(id: 1, label: "a", count: 7), Tally(id: 2, label: "b", count: 7), Tally(id: 3, label: "c", count: 7), Tally(id: 4, label: "d", count: 7),
        ])
    }

    @Test func datesAndUUIDsAreStoredAsTheRecordTypeChooses() throws {
        struct Event: Codable, Equatable, FetchableRecord, MutablePersistableRecord {
            static let databaseTableName = "event"
            var id: UUID
            var exact: Date
            var rounded: Date
            var stamp: Date
            static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
                switch column {
                case "exact": return .timeIntervalSinceReferenceDate
                case "stamp": return .millisecondsSince1970
                default: return .deferredToDate
                }
            }
            static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
                switch column {
                case "exact": return .timeIntervalSinceReferenceDate
                case "stamp": return .millisecondsSince1970
                default: return .deferredToDate
                }
            }
            static func databaseUUIDEncodingStrategy(for column: String) -> DatabaseUUIDEncodingStrategy { .lowercaseString }
        }
        try db.execute(sql: "CREATE TABLE event(id TEXT PRIMARY KEY, exact REAL, rounded TEXT, stamp INTEGER)")
        // A date below the millisecond: the default text loses it, the exact strategy does not.
        let date = Date(timeIntervalSinceReferenceDate: 785_000_000.123_456_789)
        let id = UUID()
        var event = Event(id: id, exact: date, rounded: date, stamp: date)
        try event.insert(db)
        let types = try db.fetchOne(sql: "SELECT typeof(id), id, typeof(exact), typeof(rounded), typeof(stamp) FROM event")
        #expect(types?.values == [.text("text"), .text(id.uuidString.lowercased()), .text("real"), .text("text"), .text("integer")])
        let read = try #require(try Event.fetchOne(db, sql: "SELECT * FROM event"))
        #expect(read.id == id)
        #expect(read.exact == date, "the exact strategy round-trips every bit")
        #expect(read.rounded != date && abs(read.rounded.timeIntervalSince(date)) < 0.001)
        #expect(abs(read.stamp.timeIntervalSince(date)) < 0.001)
        // The UUID's text form finds the row by key.
        #expect(try Event.filter(Column("id") == id.uuidString.lowercased()).fetchCount(db) == 1)
    }
}

extension PersistenceCallbackTests.Player {
    /// `upsertAndFetch` on a copy, for a record built in an expression.
    func upsertAndFetchCopy(_ db: Connection) throws -> Self {
        var copy = self
        return try copy.upsertAndFetch(db)
    }
}

extension PersistenceCallbackTests {
    /// A record whose id is the rowid, with callbacks that log.
    struct Note: Codable, MutablePersistableRecord, RowIDRecord {
        static let databaseTableName = "note"
        var id: Int64?
        var body: String
        var log: EventLog

        enum CodingKeys: String, CodingKey { case id, body }

        init(id: Int64?, body: String, log: EventLog) {
            self.id = id
            self.body = body
            self.log = log
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(id: try container.decode(Int64?.self, forKey: .id), body: try container.decode(String.self, forKey: .body), log: EventLog())
        }

        mutating func willInsert(_ db: Database) throws { log.events.append("willInsert \(body)") }
        mutating func didInsert(_ inserted: InsertionSuccess) { log.events.append("didInsert \(inserted.rowID)") }
        func willUpdate(_ db: Database, columns: Set<String>) throws { log.events.append("willUpdate \(columns.sorted().joined(separator: ","))") }
        func willDelete(_ db: Database) throws { log.events.append("willDelete \(id ?? 0)") }
        func didDelete(deleted: Bool) { log.events.append("didDelete \(deleted)") }
    }
}

/// A class record and its subclass, which alone has callbacks.
class Base: Codable, TableRecord, @unchecked Sendable {
    class var databaseTableName: String { "player" }
    let id: Int64
    let name: String
    init(id: Int64, name: String) {
        self.id = id
        self.name = name
    }
}

final class Sub: Base, MutablePersistableRecord, @unchecked Sendable {}
