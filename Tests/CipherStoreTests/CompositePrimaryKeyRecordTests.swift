@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// Records of a table whose primary key has several columns (a pivot table's), written and
/// found by that key as GRDB reads it from the schema: each write changes exactly the row
/// the same SQL changes, on the linked SQLCipher.
@Suite struct CompositePrimaryKeyRecordTests {
    /// No `id`: the key is the table's `PRIMARY KEY (teamId, playerId)`.
    struct Membership: Codable, Equatable, Hashable, FetchableRecord, TableRecord {
        static let databaseTableName = "membership"
        var playerId: Int64
        var teamId: Int64
        var role: String
        var since: Int
    }

    /// The same rows as a MutablePersistableRecord, whose writes go through its callbacks.
    struct TrackedMembership: Codable, Equatable, FetchableRecord, MutablePersistableRecord {
        static let databaseTableName = "membership"
        var playerId: Int64
        var teamId: Int64
        var role: String
        var since: Int
    }

    let directory: TemporaryDirectory
    let db: Connection

    init() throws {
        directory = try TemporaryDirectory()
        db = try Connection(path: directory.path("memberships.db"), key: .rawKey(hex: String(repeating: "7c", count: 32)))
        try db.executeScript("""
            CREATE TABLE membership(playerId INTEGER NOT NULL, teamId INTEGER NOT NULL, role TEXT NOT NULL, since INTEGER NOT NULL,
                                    PRIMARY KEY (teamId, playerId));
            INSERT INTO membership VALUES (1, 10, 'captain', 2001), (1, 20, 'player', 2002), (2, 10, 'player', 2003), (2, 20, 'coach', 2004);
            """)
    }

    /// Each row as `playerId teamId role since`.
    func rows() throws -> [String] {
        try String.fetchAll(db, sql: "SELECT playerId || ' ' || teamId || ' ' || role || ' ' || since FROM membership ORDER BY playerId, teamId")
    }

    @Test func updateDeleteExistsAndSaveFindTheRowByEveryKeyColumn() throws {
        var membership = try #require(try Membership.fetchOne(db, key: ["playerId": 1, "teamId": 10]))
        membership.role = "veteran"
        try membership.update(db)
        // Only (1, 10) changed: the same UPDATE with both key columns.
        #expect(try rows() == ["1 10 veteran 2001", "1 20 player 2002", "2 10 player 2003", "2 20 coach 2004"])
        #expect(try membership.exists(db))
        #expect(try !Membership(playerId: 1, teamId: 30, role: "x", since: 0).exists(db))

        // save: an update when the row is there, an insert when it is not.
        var moved = Membership(playerId: 2, teamId: 30, role: "player", since: 2010)
        try moved.save(db)
        moved.since = 2011
        try moved.save(db)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT since FROM membership WHERE playerId = 2 AND teamId = 30") == 2011)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM membership") == 5)

        // update of a row that is gone names both columns, and changes nothing.
        let gone = Membership(playerId: 9, teamId: 10, role: "ghost", since: 0)
        let error = #expect(throws: RecordError.self) { try gone.update(db) }
        #expect(error.map { "\($0)" }?.contains("teamId, playerId") == true)

        // delete: only that row.
        #expect(try membership.delete(db))
        #expect(try !membership.delete(db))
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM membership WHERE playerId = 1") == 1)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM membership WHERE teamId = 10") == 1)
    }

    @Test func updateChangesWritesTheChangedColumnsOfThatRowOnly() throws {
        let old = try #require(try Membership.fetchOne(db, key: ["playerId": 2, "teamId": 20]))
        var membership = old
        #expect(try membership.updateChanges(db) { $0.since = 1999 })
        #expect(try rows() == ["1 10 captain 2001", "1 20 player 2002", "2 10 player 2003", "2 20 coach 1999"])
        #expect(try !membership.updateChanges(db, from: membership))
        // A changed key column is refused: it would find another row.
        let changed = #expect(throws: RecordError.self) { try membership.updateChanges(db) { $0.teamId = 10 } }
        #expect(changed.map { "\($0)" }?.contains("teamId, playerId") == true)
        #expect(try rows().last == "2 20 coach 1999")

        // A record with callbacks takes the same path.
        var tracked = try #require(try TrackedMembership.fetchOne(db, key: ["playerId": 1, "teamId": 20]))
        tracked.role = "keeper"
        try tracked.update(db)
        #expect(try tracked.updateChanges(db) { $0.since = 1980 })
        #expect(try rows()[1] == "1 20 keeper 1980")
        #expect(try tracked.delete(db))
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM membership") == 3)
    }

    @Test func aPrimaryKeyOfOneColumnOtherThanIDIsReadFromTheSchemaToo() throws {
        struct Country: Codable, Equatable, FetchableRecord, TableRecord {
            static let databaseTableName = "country"
            var code: String
            var name: String
        }
        try db.executeScript("""
            CREATE TABLE country(code TEXT PRIMARY KEY, name TEXT NOT NULL);
            INSERT INTO country VALUES ('FR', 'France'), ('JP', 'Japan');
            """)
        try Country(code: "FR", name: "République française").update(db)
        #expect(try String.fetchAll(db, sql: "SELECT name FROM country ORDER BY code") == ["République française", "Japan"])
        #expect(try Country(code: "JP", name: "Japan").delete(db))
        #expect(try !Country(code: "JP", name: "Japan").exists(db))
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM country") == 1)
        // A table with no declared primary key (rowid only): the record needs its id.
        try db.execute(sql: "CREATE TABLE note(body TEXT)")
        struct Note: Codable, TableRecord { static let databaseTableName = "note"; var body: String }
        #expect(throws: RecordError.self) { try Note(body: "x").update(db) }
    }

    @Test func aRecordMissingAKeyColumnIsRefusedBeforeAnythingIsWritten() throws {
        struct Partial: Codable, FetchableRecord, TableRecord {
            static let databaseTableName = "membership"
            var playerId: Int64
            var role: String
        }
        let error = #expect(throws: RecordError.self) { try Partial(playerId: 1, role: "x").update(db) }
        #expect(error.map { "\($0)" }?.contains("give the record a property for each of them") == true)
        #expect(throws: RecordError.self) { try Partial(playerId: 1, role: "x").delete(db) }
        #expect(try !Partial(playerId: 1, role: "x").exists(db))
        #expect(try rows().count == 4)
    }
}
