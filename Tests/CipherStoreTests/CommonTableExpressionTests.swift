@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// Common table expressions in GRDB's spelling: each request's SQL against the hand-written
/// `WITH` query, its rows against that query's, and the columns it names checked against the
/// expression's, on the linked SQLCipher.
@Suite struct CommonTableExpressionTests {
    struct Player: Codable, Equatable, FetchableRecord, TableRecord {
        static let databaseTableName = "player"
        var id: Int64
        var name: String
        var score: Int
    }

    let directory: TemporaryDirectory
    let db: Connection

    init() throws {
        directory = try TemporaryDirectory()
        db = try Connection(path: directory.path("cte.db"), key: .rawKey(hex: String(repeating: "2f", count: 32)))
        try db.executeScript("""
            CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER NOT NULL);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40)
            INSERT INTO player SELECT i, printf('p%02d', i), (i * 37) % 100 FROM n;
            """)
    }

    @Test func anExpressionFromARequestFiltersAnother() throws {
        let topScores = CommonTableExpression(named: "topScore", request: Player.select(Column("score")).filter(Column("id") > 5).order(Column("score").desc).limit(4))
        let request = Player.with(topScores).filter(topScores.contains(Column("score"))).filter(Column("name") != "p10").order(Column("score").desc, Column("id"))
        let sql = try request.makeSQL(db)
        #expect(sql.sql == #"WITH "topScore" AS (SELECT "score" FROM "player" WHERE ("id" > ?) ORDER BY "score" DESC LIMIT ?\#n) SELECT * FROM "player" WHERE ("score" IN "topScore") AND ("name" <> ?) ORDER BY "score" DESC, "id""#)
        #expect(sql.arguments == [.integer(5), .integer(4), .text("p10")], "the expression's arguments first, as they appear")
        let expected = try Player.fetchAll(db, sql: """
            WITH topScore AS (SELECT score FROM player WHERE id > 5 ORDER BY score DESC LIMIT 4)
            SELECT * FROM player WHERE score IN topScore AND name <> 'p10' ORDER BY score DESC, id
            """)
        #expect(try request.fetchAll(db) == expected)
        #expect(expected.count >= 4)
        #expect(try request.fetchCount(db) == expected.count)
        // The expression's own rows, as a request.
        let scores = try topScores.all().order(Column("score")).select(Column("score"), as: Int.self).fetchAll(db)
        #expect(scores == (try db.fetchAll(Int.self, sql: "SELECT score FROM (SELECT score FROM player WHERE id > 5 ORDER BY score DESC LIMIT 4) ORDER BY score")))
    }

    @Test func aRecursiveExpressionFromSQLAndOneThatReadsIt() throws {
        let counter = CommonTableExpression(recursive: true, named: "counter", columns: ["n"],
                                            sql: "SELECT 1 UNION ALL SELECT n + 1 FROM counter WHERE n < ?", arguments: [12])
        let request = counter.all().filter(sql: "n % 3 = 0").select(Column("n"), as: Int.self)
        #expect(try request.fetchAll(db) == [3, 6, 9, 12])
        // A second expression built on the first; a player per multiple of ten.
        let tens = CommonTableExpression(named: "ten", request: counter.all().select((Column("n") * 10).forKey("id")))
        let players = try Player.with(counter).with(tens).filter(tens.contains(Column("id"))).order(Column("id")).fetchAll(db)
        #expect(players == (try Player.fetchAll(db, sql: """
            WITH RECURSIVE counter(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM counter WHERE n < 12), ten AS (SELECT n * 10 AS id FROM counter)
            SELECT * FROM player WHERE id IN ten ORDER BY id
            """)))
        #expect(players.map(\.id) == [10, 20, 30, 40])
    }

    @Test func columnsAreCheckedAgainstTheExpressionAndBadSQLIsRefusedBeforeAnythingRuns() throws {
        let counter = CommonTableExpression(recursive: true, named: "counter", columns: ["n"], sql: "SELECT 1 UNION ALL SELECT n + 1 FROM counter WHERE n < 5")
        let misspelled = #expect(throws: DatabaseError.self) { try counter.all().filter(Column("m") > 1).fetchAll(db) }
        #expect(misspelled?.message?.contains("no such column: m (the columns of counter are n)") == true)
        let names = CommonTableExpression(named: "names", sql: "SELECT name AS label FROM player WHERE score > ?", arguments: [50])
        #expect(throws: DatabaseError.self) { try names.all().order(Column("name")).fetchAll(db) }
        #expect(try names.all().order(Column("label")).fetchCount(db) == (try db.fetchScalar(Int.self, sql: "SELECT COUNT(*) FROM player WHERE score > 50")))
        // An expression the request does not name in with(): SQLite says no such table.
        #expect(throws: DatabaseError.self) { try Player.filter(names.contains(Column("name"))).fetchAll(db) }
        let unbound = CommonTableExpression(named: "bad", sql: "SELECT :a, :b", arguments: ["a": 1])
        #expect(throws: DatabaseError.self) { try unbound.all().fetchAll(db) }
    }

    @Test func deleteAllWithAnExpression() throws {
        let losers = CommonTableExpression(named: "loser", request: Player.select(Column("id")).filter(Column("score") < 20))
        let expected = try db.fetchAll(Int64.self, sql: "SELECT id FROM player WHERE score >= 20 ORDER BY id")
        let deleted = try Player.with(losers).filter(losers.contains(Column("id"))).deleteAll(db)
        #expect(try db.fetchAll(Int64.self, sql: "SELECT id FROM player ORDER BY id") == expected)
        #expect(deleted == 40 - expected.count && deleted > 0)
    }
}

extension CommonTableExpressionTests {
    @Test func expressionsReadEachOtherInAnyOrderAndReachEveryStatement() throws {
        // An expression may read one added after it, as SQLite allows; a replaced one keeps its place.
        let a = CommonTableExpression(named: "a", sql: "SELECT 1 AS x")
        let b = CommonTableExpression(named: "b", sql: "SELECT x + 1 AS id FROM a")
        #expect(try Player.with(b).with(a).filter(b.contains(Column("id"))).fetchAll(db).map(\.id) == [2])
        let a3 = CommonTableExpression(named: "a", sql: "SELECT 3 AS x")
        #expect(try Player.with(a).with(b).with(a3).filter(b.contains(Column("id"))).fetchAll(db).map(\.id) == [4])
        // A literal body of rows, ending in a comment.
        let high = CommonTableExpression(named: "high", literal: "SELECT id FROM player WHERE score > \(90) -- the best")
        #expect(try Player.with(high).filter(high.contains(Column("id"))).fetchCount(db) == (try db.fetchScalar(Int.self, sql: "SELECT COUNT(*) FROM player WHERE score > 90")))
        // The prefetch of including(all:) and updateAll's values see the request's expressions.
        struct Team: Codable, FetchableRecord, TableRecord {
            static let databaseTableName = "team"
            static let players = hasMany(Player.self, using: ForeignKey(["teamId"]))
            var id: Int64
        }
        struct TeamInfo: Decodable, FetchableRecord {
            var team: Team
            var players: [Player]
        }
        try db.executeScript("CREATE TABLE team(id INTEGER PRIMARY KEY); INSERT INTO team VALUES (1), (2); ALTER TABLE player ADD COLUMN teamId INTEGER; UPDATE player SET teamId = id % 2 + 1;")
        let teams = try Team.with(high).including(all: Team.players.filter(high.contains(Column("id"))).order(Column("id"))).order(Column("id"))
            .asRequest(of: TeamInfo.self).fetchAll(db)
        for info in teams {
            #expect(info.players.map(\.id) == (try db.fetchAll(Int64.self, sql: "SELECT id FROM player WHERE teamId = ? AND score > 90 ORDER BY id", arguments: [info.team.id])))
        }
        let best = CommonTableExpression(named: "best", sql: "SELECT max(score) AS m FROM player")
        let updated = try Player.with(best).filter(Column("id") == 1).updateAll(db, Column("score").set(to: SQLExpression(sql: "(SELECT m FROM best) + ?", arguments: [.integer(1)])))
        #expect(updated == 1)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT score FROM player WHERE id = 1") == (try db.fetchScalar(Int.self, sql: "SELECT max(score) FROM player WHERE id <> 1")).map { $0 + 1 })
    }
}
