@testable import CipherStore
import CSQLCipher
import Foundation
import TestSupport
import Testing

/// `orderByPrimaryKey()`, `selectPrimaryKey(as:)`, `fetchCursor(_:keys:)`, `fetchCursor(_:ids:)`
/// and `updateChanges(_:modify:)`: each request's SQL against the hand-written SQL, and its
/// result against that SQL's, on the linked SQLCipher.
@Suite struct PrimaryKeyRequestTests {
    struct Player: Codable, Equatable, Hashable, FetchableRecord, TableRecord, Identifiable {
        static let databaseTableName = "player"
        static let memberships = hasMany(Citizenship.self, key: "memberships", using: ForeignKey(["playerId"]))
        var id: Int64
        var name: String
        var score: Int
    }

    struct Country: Codable, Equatable, FetchableRecord, TableRecord {
        static let databaseTableName = "country"
        static let primaryKeyColumn = "code"
        var code: String
        var name: String
    }

    /// The key's columns in another order than the table's.
    struct Citizenship: Codable, Equatable, FetchableRecord, TableRecord {
        static let databaseTableName = "citizenship"
        var playerId: Int64
        var countryCode: String
        var since: Int
    }

    struct Note: Codable, Equatable, FetchableRecord, TableRecord {
        static let databaseTableName = "note"
        var body: String
    }

    let directory: TemporaryDirectory
    let db: Connection

    init() throws {
        directory = try TemporaryDirectory()
        db = try Connection(path: directory.path("keys.db"), key: .rawKey(hex: String(repeating: "6b", count: 32)))
        try db.executeScript("""
            CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL);
            CREATE TABLE country(name TEXT NOT NULL, code TEXT PRIMARY KEY) WITHOUT ROWID;
            CREATE TABLE citizenship(playerId INTEGER NOT NULL, countryCode TEXT NOT NULL, since INTEGER NOT NULL, PRIMARY KEY(countryCode, playerId));
            CREATE TABLE note(body TEXT NOT NULL);
            CREATE TABLE shadowed(rowid, _rowid_, oid);
            CREATE VIEW bestPlayer AS SELECT * FROM player WHERE score > 50;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40)
            INSERT INTO player SELECT (i * 17) % 41 + 1, printf('player %02d', i), (i * 37) % 100 FROM n;
            INSERT INTO country(code, name) VALUES ('NO', 'Norway'), ('FR', 'France'), ('JP', 'Japan'), ('BR', 'Brazil');
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60)
            INSERT OR IGNORE INTO citizenship SELECT (i * 7) % 41 + 1, CASE i % 4 WHEN 0 THEN 'NO' WHEN 1 THEN 'FR' WHEN 2 THEN 'JP' ELSE 'BR' END, 1990 + i FROM n;
            INSERT INTO note(rowid, body) VALUES (3, 'c'), (1, 'a'), (2, 'b');
            """)
    }

    @Test func orderByPrimaryKeyOrdersByTheKeysColumnsOrTheRowid() throws {
        let players = Player.filter(Column("score") > 20).orderByPrimaryKey()
        #expect(try players.makeSQL(db).sql == #"SELECT * FROM "player" WHERE ("score" > ?) ORDER BY "id""#)
        #expect(try players.fetchAll(db) == (try Player.fetchAll(db, sql: "SELECT * FROM player WHERE score > 20 ORDER BY id")))

        // Any previous order is replaced; reversed() makes each key column descending.
        let reversed = Player.order(Column("score")).orderByPrimaryKey().reversed()
        #expect(try reversed.makeSQL(db).sql == #"SELECT * FROM "player" ORDER BY "id" DESC"#)
        #expect(try reversed.fetchAll(db) == (try Player.fetchAll(db, sql: "SELECT * FROM player ORDER BY id DESC")))

        let countries = Country.orderByPrimaryKey()
        #expect(try countries.makeSQL(db).sql == #"SELECT * FROM "country" ORDER BY "code""#)
        #expect(try countries.fetchAll(db).map(\.code) == ["BR", "FR", "JP", "NO"])

        // A key of two columns, in the key's order (not the table's).
        let citizenships = Citizenship.all().orderByPrimaryKey().reversed()
        #expect(try citizenships.makeSQL(db).sql == #"SELECT * FROM "citizenship" ORDER BY "countryCode" DESC, "playerId" DESC"#)
        let expected = try Citizenship.fetchAll(db, sql: "SELECT * FROM citizenship ORDER BY countryCode DESC, playerId DESC")
        #expect(try citizenships.fetchAll(db) == expected)
        #expect(expected.count > 30)

        // No primary key: the rowid.
        let notes = Note.orderByPrimaryKey()
        #expect(try notes.makeSQL(db).sql == #"SELECT * FROM "note" ORDER BY "rowid""#)
        #expect(try notes.fetchAll(db).map(\.body) == ["a", "b", "c"])
    }

    @Test func orderByPrimaryKeyInAnAssociationAndAJoinedRequest() throws {
        struct PlayerInfo: Decodable, Equatable, FetchableRecord {
            var player: Player
            var memberships: [Citizenship]
        }
        let request = Player.including(all: Player.memberships.orderByPrimaryKey().reversed()).orderByPrimaryKey()
        let infos = try request.asRequest(of: PlayerInfo.self).fetchAll(db)
        #expect(infos.map(\.player) == (try Player.fetchAll(db, sql: "SELECT * FROM player ORDER BY id")))
        for info in infos {
            let memberships = try Citizenship.fetchAll(db, sql: "SELECT * FROM citizenship WHERE playerId = ? ORDER BY countryCode DESC, playerId DESC", arguments: [info.player.id])
            #expect(info.memberships == memberships)
        }
        #expect(infos.contains { $0.memberships.count > 1 })

        // Joined: each key column qualified with its table.
        let joined = Citizenship.joining(required: Citizenship.belongsTo(Player.self, using: ForeignKey(["playerId"])).orderByPrimaryKey()).orderByPrimaryKey()
        #expect(try joined.makeSQL(db).sql == #"SELECT "citizenship".* FROM "citizenship" JOIN "player" ON "player"."id" = "citizenship"."playerId" ORDER BY "citizenship"."countryCode", "citizenship"."playerId", "player"."id""#)
        #expect(try joined.fetchAll(db) == (try Citizenship.fetchAll(db, sql: "SELECT citizenship.* FROM citizenship JOIN player ON player.id = citizenship.playerId ORDER BY citizenship.countryCode, citizenship.playerId, player.id")))

        // deleteAll with the order and a limit: the rows it picks are the first by key.
        let firstThree = try db.fetchAll(sql: "SELECT id FROM player ORDER BY id LIMIT 3").map { try $0.value(Int64.self, at: 0) }
        let deleted = try Player.orderByPrimaryKey().limit(3).deleteAll(db)
        #expect(deleted == 3)
        #expect(try db.fetchScalar(Int64.self, sql: "SELECT min(id) FROM player") ?? 0 > firstThree.max() ?? .max)
    }

    @Test func selectPrimaryKeyFetchesTheKeys() throws {
        let ids = Player.filter(Column("score") >= 50).selectPrimaryKey(as: Int64.self).orderByPrimaryKey()
        #expect(try ids.makeSQL(db).sql == #"SELECT "id" FROM "player" WHERE ("score" >= ?) ORDER BY "id""#)
        #expect(try ids.fetchAll(db) == (try db.fetchAll(sql: "SELECT id FROM player WHERE score >= 50 ORDER BY id").map { try $0.value(Int64.self, at: 0) }))

        let codes = Country.selectPrimaryKey(as: String.self)
        #expect(try codes.makeSQL(db).sql == #"SELECT "code" FROM "country""#)
        #expect(Set(try codes.fetchAll(db)) == ["NO", "FR", "JP", "BR"])

        let keys = Citizenship.selectPrimaryKey(as: Row.self).orderByPrimaryKey()
        #expect(try keys.makeSQL(db).sql == #"SELECT "countryCode", "playerId" FROM "citizenship" ORDER BY "countryCode", "playerId""#)
        let expected = try db.fetchAll(sql: "SELECT countryCode, playerId FROM citizenship ORDER BY countryCode, playerId")
        #expect(try keys.fetchAll(db).map(\.values) == expected.map(\.values))
        #expect(try keys.fetchAll(db).first?.columnNames == ["countryCode", "playerId"])

        struct CitizenshipKey: Decodable, Equatable, FetchableRecord {
            var playerId: Int64
            var countryCode: String
        }
        let records = try Citizenship.selectPrimaryKey(as: CitizenshipKey.self).orderByPrimaryKey().fetchAll(db)
        #expect(records == (try expected.map { CitizenshipKey(playerId: try $0.value(at: 1), countryCode: try $0.value(at: 0)) }))

        let rowids = Note.selectPrimaryKey(as: Int64.self).orderByPrimaryKey().reversed()
        #expect(try rowids.makeSQL(db).sql == #"SELECT "rowid" FROM "note" ORDER BY "rowid" DESC"#)
        #expect(try rowids.fetchAll(db) == [3, 2, 1])
    }

    /// `groupByPrimaryKey()`: one group per record, so an association aggregate after it reads
    /// one player's memberships per group.
    @Test func groupByPrimaryKeyGroupsByTheKeysColumns() throws {
        let grouped = Player.select(Column("id"), count(Column("id")).forKey("n")).groupByPrimaryKey().orderByPrimaryKey()
        #expect(try grouped.makeSQL(db).sql == #"SELECT "id", COUNT("id") AS "n" FROM "player" GROUP BY "id" ORDER BY "id""#)
        let composite = Citizenship.select(Column("since")).groupByPrimaryKey()
        #expect(try composite.makeSQL(db).sql == #"SELECT "since" FROM "citizenship" GROUP BY "countryCode", "playerId""#)
        let members = Player.select(Column("id")).annotated(with: Player.memberships.count).groupByPrimaryKey()
            .having(Player.memberships.count >= 2 || count(Column("id")) > 1).orderByPrimaryKey()
        let expected = try db.fetchAll(sql: """
            SELECT id, (SELECT COUNT(*) FROM citizenship WHERE playerId = player.id) FROM player GROUP BY id
            HAVING (SELECT COUNT(*) FROM citizenship WHERE playerId = player.id) >= 2 OR count(id) > 1 ORDER BY id
            """)
        #expect(try members.asRequest(of: Row.self).fetchAll(db).map(\.values) == expected.map(\.values) && !expected.isEmpty)
    }

    @Test func aTemporaryTableIsTheOneItsNameReads() throws {
        // The main table's columns are known first: the temporary table's replace them.
        #expect(try Note.orderByPrimaryKey().fetchAll(db).map(\.body) == ["a", "b", "c"])
        try db.executeScript("""
            CREATE TEMP TABLE note(label TEXT PRIMARY KEY, body TEXT NOT NULL);
            INSERT INTO temp.note VALUES ('c', 'first'), ('a', 'second'), ('b', 'third');
            CREATE TEMP TABLE scratch(x INTEGER, y INTEGER, PRIMARY KEY(y, x));
            INSERT INTO scratch VALUES (1, 2), (0, 5), (3, 1);
            """)
        // The temporary note shadows the main one, for SQLite and for the key.
        #expect(try Note.orderByPrimaryKey().makeSQL(db).sql == #"SELECT * FROM "note" ORDER BY "label""#)
        #expect(try Note.orderByPrimaryKey().fetchAll(db).map(\.body) == (try db.fetchAll(String.self, sql: "SELECT body FROM note ORDER BY label")))
        #expect(try Note.selectPrimaryKey(as: String.self).orderByPrimaryKey().fetchAll(db) == ["a", "b", "c"])

        struct Scratch: Decodable, FetchableRecord, TableRecord {
            static let databaseTableName = "scratch"
        }
        let keys = try Scratch.selectPrimaryKey(as: Row.self).orderByPrimaryKey().fetchAll(db)
        #expect(keys.map(\.values) == (try db.fetchAll(sql: "SELECT y, x FROM scratch ORDER BY y, x").map(\.values)))

        // Dropped, the main table is the one the name reads again.
        try db.execute(sql: "DROP TABLE temp.note")
        #expect(try Note.orderByPrimaryKey().makeSQL(db).sql == #"SELECT * FROM "note" ORDER BY "rowid""#)
        #expect(try Note.orderByPrimaryKey().fetchAll(db).map(\.body) == ["a", "b", "c"])
    }

    @Test func aViewOrAnExpressionOrATableWithoutKeyOrRowidIsRefused() throws {
        struct Best: Decodable, FetchableRecord, TableRecord {
            static let databaseTableName = "bestPlayer"
            var id: Int64
        }
        let view = #expect(throws: DatabaseError.self) { try Best.orderByPrimaryKey().fetchAll(db) }
        #expect(view?.message?.contains("bestPlayer is a view") == true)
        #expect(view?.message?.contains("nothing was run") == true)

        let expression = CommonTableExpression(named: "top", request: Player.filter(Column("score") > 90))
        let fromExpression = #expect(throws: DatabaseError.self) { try expression.all().with(expression).orderByPrimaryKey().fetchAll(db) }
        #expect(fromExpression?.message?.contains("top is a common table expression") == true)

        struct Shadowed: Decodable, FetchableRecord, TableRecord {
            static let databaseTableName = "shadowed"
        }
        let shadowed = #expect(throws: DatabaseError.self) { try Shadowed.selectPrimaryKey(as: Row.self).fetchAll(db) }
        #expect(shadowed?.message?.contains("all of the rowid's names") == true)

        struct Missing: Decodable, FetchableRecord, TableRecord {
            static let databaseTableName = "missing"
        }
        let missing = #expect(throws: DatabaseError.self) { try Missing.orderByPrimaryKey().fetchAll(db) }
        #expect(missing?.message?.contains("missing is not a table of the database") == true)
    }

    @Test func fetchCursorByKeysAndIDs() throws {
        let keys: [Int64] = [5, 1, 40, 5, 999, 12]
        let cursor = try Player.fetchCursor(db, keys: keys)
        var found: [Player] = []
        while let player = try cursor.next() { found.append(player) }
        let expected = try Player.fetchAll(db, sql: "SELECT * FROM player WHERE id IN (5, 1, 40, 999, 12)")
        #expect(Set(found) == Set(expected))
        #expect(found.count == expected.count && expected.count >= 3)

        let byID = try Player.fetchCursor(db, ids: [2, 3])
        var ids: [Int64] = []
        while let player = try byID.next() { ids.append(player.id) }
        #expect(ids.sorted() == [2, 3])

        let none = try Player.fetchCursor(db, ids: [])
        #expect(try none.next() == nil)

        // More distinct keys than one statement binds: refused before anything runs.
        let limit = Int(sqlite3_limit(try db.handle.pointer, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
        let tooMany = #expect(throws: DatabaseError.self) { try Player.fetchCursor(db, keys: (1...Int64(limit + 1)).map { $0 }) }
        #expect(tooMany?.message?.contains("fetchAll(_:keys:)") == true)
        let atLimit = try Player.fetchCursor(db, keys: (1...Int64(limit)).map { $0 })
        var count = 0
        while try atLimit.next() != nil { count += 1 }
        #expect(count == (try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM player")))
    }

    @Test func fetchCursorByDictionaryKeys() throws {
        let stored = try Citizenship.fetchAll(db, sql: "SELECT * FROM citizenship ORDER BY since LIMIT 2")
        let keys: [[String: (any DatabaseValueConvertible)?]] = [
            ["playerId": stored[0].playerId, "countryCode": stored[0].countryCode], ["countryCode": stored[1].countryCode, "playerId": stored[1].playerId],
            ["playerId": stored[0].playerId, "countryCode": stored[0].countryCode], ["playerId": 999, "countryCode": "JP"], ["playerId": 22, "countryCode": nil],
        ]
        let cursor = try Citizenship.fetchCursor(db, keys: keys)
        var found: [Citizenship] = []
        while let citizenship = try cursor.next() { found.append(citizenship) }
        let expected = try Citizenship.fetchAll(db, sql: """
            SELECT * FROM citizenship WHERE (playerId = ? AND countryCode = ?) OR (playerId = ? AND countryCode = ?) OR (playerId = 999 AND countryCode = 'JP')
            """, arguments: [stored[0].playerId, stored[0].countryCode, stored[1].playerId, stored[1].countryCode])
        #expect(found.map(\.playerId).sorted() == expected.map(\.playerId).sorted())
        #expect(found.count == 2 && expected.count == 2)
        #expect(Set(found.map(\.countryCode)) == Set(try Citizenship.fetchAll(db, keys: keys).map(\.countryCode)))

        // By the rowid, and through a unique key only: a column that names several rows is refused.
        let byRowid = try Note.fetchCursor(db, keys: [["rowid": 2], ["rowid": 3]])
        var bodies: [String] = []
        while let note = try byRowid.next() { bodies.append(note.body) }
        #expect(bodies.sorted() == ["b", "c"])
        let notUnique = #expect(throws: DatabaseError.self) { try Citizenship.fetchCursor(db, keys: [["playerId": 8]]) }
        #expect(notUnique?.message?.contains("not a unique key of citizenship") == true)
        #expect(try Citizenship.fetchCursor(db, keys: []).next() == nil)

        // More values than one statement binds: refused before anything runs.
        let limit = Int(sqlite3_limit(try db.handle.pointer, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
        let many: [[String: (any DatabaseValueConvertible)?]] = (0...(limit / 2)).map { ["playerId": $0, "countryCode": "NO"] }
        let tooMany = #expect(throws: DatabaseError.self) { try Citizenship.fetchCursor(db, keys: many) }
        #expect(tooMany?.message?.contains("fetchAll(_:keys:)") == true)
        let atLimit = try Citizenship.fetchCursor(db, keys: Array(many.dropLast()))
        var count = 0
        while try atLimit.next() != nil { count += 1 }
        #expect(count == (try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM citizenship WHERE countryCode = 'NO'")))
    }

    @Test func updateChangesWithAClosureWritesOnlyWhatItChanged() throws {
        var player = try Player.find(db, id: 2)
        // Another writer changes the name: an update of the changed score alone keeps it.
        try db.execute(sql: "UPDATE player SET name = 'renamed' WHERE id = 2")
        #expect(try player.updateChanges(db) { $0.score = 1000 })
        #expect(player.score == 1000)
        #expect(try db.fetchOne(sql: "SELECT name, score FROM player WHERE id = 2")?.values == [.text("renamed"), .integer(1000)])

        // Nothing changed: nothing written.
        #expect(try player.updateChanges(db) { $0.score = 1000 } == false)

        // The row is gone: the error says so, nothing is written, the record keeps the change.
        var gone = Player(id: 500, name: "ghost", score: 1)
        #expect(throws: RecordError.self) { try gone.updateChanges(db) { $0.score = 2 } }
        #expect(gone.score == 2)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM player WHERE id = 500") == 0)

        // A changed key would find another row: refused, nothing written (the record keeps it).
        var moved = try Player.find(db, id: 3)
        let before = try db.fetchAll(sql: "SELECT * FROM player ORDER BY id").map(\.values)
        #expect(throws: RecordError.primaryKeyChanged(table: "player", primaryKey: "id")) { try moved.updateChanges(db) { $0.id = 4; $0.name = "moved" } }
        #expect(throws: RecordError.primaryKeyChanged(table: "player", primaryKey: "id")) { try moved.updateChanges(db) { $0.id = 500 } }
        #expect(moved.id == 500)
        let three = try Player.find(db, id: 3)
        var renumbered = three
        renumbered.id = 4
        #expect(throws: RecordError.primaryKeyChanged(table: "player", primaryKey: "id")) { try renumbered.updateChanges(db, from: three) }
        #expect(try db.fetchAll(sql: "SELECT * FROM player ORDER BY id").map(\.values) == before)
        #expect(RecordError.primaryKeyChanged(table: "player", primaryKey: "id").description.contains("updateAll"))

        // An error thrown by the closure comes out before anything is written.
        struct Refused: Error {}
        #expect(throws: Refused.self) { try player.updateChanges(db) { $0.score = 1; throw Refused() } }
        #expect(try db.fetchScalar(Int.self, sql: "SELECT score FROM player WHERE id = 2") == 1000)
    }
}
