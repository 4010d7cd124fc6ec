import CipherStore
import Foundation
import TestSupport
import Testing

/// `Table`: requests on a table named without a record type, each against the same SQL.
@Suite struct TableTests {
    struct Author: Codable, Equatable, FetchableRecord {
        var id: Int64
        var name: String
        var country: String?
    }

    let directory: TemporaryDirectory
    let db: Connection

    init() throws {
        directory = try TemporaryDirectory()
        db = try Connection(path: directory.path("table.db"), key: .rawKey(hex: String(repeating: "7a", count: 32)))
        try db.executeScript("""
            CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT);
            INSERT INTO author VALUES (1, 'Lily', 'FR'), (2, 'Binger', NULL), (3, 'Ann', 'FR'), (4, 'Zed', 'JP');
            """)
    }

    @Test func requestsOnATableByName() throws {
        let authors = Table("author")
        #expect(authors.tableName == "author")
        #expect(try authors.fetchCount(db) == 4)
        #expect(try authors.filter(Column("country") == "FR").fetchCount(db) == (try db.fetchOne(Int.self, sql: "SELECT count(*) FROM author WHERE country = 'FR'")))
        let ordered = try authors.order(Column("name")).fetchAll(db)
        #expect(ordered.map(\.values) == (try db.fetchAll(sql: "SELECT * FROM author ORDER BY name")).map(\.values))
        #expect(try authors.select(Column("name"), as: String.self).order(Column("id").desc).fetchAll(db) == (try String.fetchAll(db, sql: "SELECT name FROM author ORDER BY id DESC")))
        let perCountry = try authors.group(Column("country")).select(Column("country"), count(Column("id"))).order(Column("country")).fetchAll(db)
        #expect(perCountry.map(\.values) == (try db.fetchAll(sql: "SELECT country, count(id) FROM author GROUP BY country ORDER BY country")).map(\.values))
        #expect(try authors.none().fetchAll(db).isEmpty)
        #expect(try authors.limit(2, offset: 1).orderByPrimaryKey().fetchAll(db).map { try $0.value(Int64.self, at: 0) } == [2, 3])

        // As records, and writing.
        let typed = Table<Author>("author")
        #expect(try typed.filter(Column("country") == nil).fetchOne(db) == Author(id: 2, name: "Binger", country: nil))
        #expect(try typed.orderByPrimaryKey().fetchAll(db) == (try Author.fetchAll(db, sql: "SELECT * FROM author ORDER BY id")))
        #expect(try authors.filter(Column("country") == "JP").updateAll(db, Column("country").set(to: "NO")) == 1)
        #expect(try authors.filter(sql: "country = ?", arguments: ["FR"]).deleteAll(db) == 2)
        #expect(try String.fetchAll(db, sql: "SELECT name || ':' || ifnull(country, '-') FROM author ORDER BY id") == ["Binger:-", "Zed:NO"])

        // A misspelled column names the table's columns, and nothing runs.
        let misspelled = #expect(throws: DatabaseError.self) { try authors.filter(Column("contry") == "FR").fetchAll(db) }
        #expect(misspelled?.message?.contains("contry") == true && misspelled?.message?.contains("nothing was run") == true)
    }
}
