@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// GRDB's reading subscripts on ``Row`` and ``RowView``: each read against the throwing read
/// of the same column, and the reads that trap, in a child process.
@Suite struct RowSubscriptTests {
    struct Player: RowDecodableRecord, Equatable {
        var id: Int64
        var name: String
        var score: Int?
        var nickname: String?

        /// As a GRDB record writes it.
        init(row: borrowing RowView) {
            id = row["id"]
            name = row[Column("name")]
            score = row[2]
            nickname = row["nickname"]
        }

        init(id: Int64, name: String, score: Int?, nickname: String?) {
            self.id = id
            self.name = name
            self.score = score
            self.nickname = nickname
        }
    }

    let directory: TemporaryDirectory
    let db: Connection

    init() throws {
        directory = try TemporaryDirectory()
        db = try Connection(path: directory.path("rows.db"), key: .rawKey(hex: String(repeating: "6a", count: 32)))
        try db.executeScript("""
            CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score INTEGER);
            INSERT INTO player VALUES (1, 'ann', 10), (2, 'bob', NULL), (3, 'cy', 7);
            """)
    }

    @Test func subscriptsReadAsTheThrowingReadsDo() throws {
        // "nickname" is not a column: an optional reads it as nil, as in GRDB.
        let players = try Player.fetchAll(db, sql: "SELECT id, name, score FROM player ORDER BY id")
        #expect(players == [Player(id: 1, name: "ann", score: 10, nickname: nil), Player(id: 2, name: "bob", score: nil, nickname: nil),
                            Player(id: 3, name: "cy", score: 7, nickname: nil)])
        for row in try db.fetchAll(sql: "SELECT id, name, score FROM player ORDER BY id") {
            let id: Int64 = row["ID"]
            let name: String = row[Column("name")]
            let score: Int? = row[2]
            let missing: Double? = row["missing"]
            #expect(id == (try row.value(named: "id")))
            #expect(name == (try row.value(at: 1)))
            #expect(score == (try row.value(Int?.self, named: "score")))
            #expect(missing == nil)
            // Without a type, the subscripts give DatabaseValue as before.
            #expect(row[0] == .integer(id))
            #expect(row["missing"] == nil)
            #expect(row[Column("name")] != nil && row[Column("missing")] == nil)
        }
    }

    @Test func aValueThatDoesNotConvertTraps() async {
        await #expect(processExitsWith: .failure) {
            let directory = try TemporaryDirectory()
            let db = try Connection(path: directory.path("trap.db"), key: .rawKey(hex: String(repeating: "6b", count: 32)))
            let row = try #require(try db.fetchOne(sql: "SELECT NULL AS score"))
            let score: Int = row["score"]
            _ = score
        }
        await #expect(processExitsWith: .failure) {
            let directory = try TemporaryDirectory()
            let db = try Connection(path: directory.path("trap.db"), key: .rawKey(hex: String(repeating: "6b", count: 32)))
            let row = try #require(try db.fetchOne(sql: "SELECT 1 AS score"))
            let missing: Int = row["missing"]
            _ = missing
        }
    }
}
