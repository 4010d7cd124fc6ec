@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// `db.create(view:)` in GRDB's spelling: the statement stored in the schema (values written
/// as literals), the rows the view then gives against the hand-written SELECT, and what is
/// refused with nothing created, on the linked SQLCipher.
@Suite struct ViewDefinitionTests {
    struct Note: Codable, Equatable, FetchableRecord, TableRecord {
        static let databaseTableName = "note"
        var id: Int64
        var title: String
        var year: Int
        var tag: Data?
    }

    let directory: TemporaryDirectory
    let db: Connection

    init() throws {
        directory = try TemporaryDirectory()
        db = try Connection(path: directory.path("views.db"), key: .rawKey(hex: String(repeating: "5e", count: 32)))
        try db.executeScript("""
            CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT NOT NULL, year INTEGER NOT NULL, tag BLOB);
            INSERT INTO note VALUES (1, 'it''s', 2021, X'00FF'), (2, 'b' || char(0) || 'c', 2019, NULL), (3, 'plain', 2024, X'01'), (4, 'old', 1990, NULL);
            """)
    }

    func viewSQL(_ name: String, in schema: String = "sqlite_master") throws -> String? {
        try db.fetchScalar(String.self, sql: "SELECT sql FROM \(schema) WHERE type = 'view' AND name = ?", arguments: [name])
    }

    @Test func aViewFromARequestStoresItsValuesAsLiterals() throws {
        let request = Note.filter([Data([0, 255]), Data([1])].contains(Column("tag")) || Column("title") == "b\0c" || Column("title") == "it's")
            .filter(Column("year") > 2000).order(Column("id"))
        try db.create(view: "recentNote", as: request)
        #expect(try viewSQL("recentNote") == #"CREATE VIEW "recentNote" AS SELECT * FROM "note" WHERE ((("tag" IN (X'00FF', X'01')) OR ("title" = ('b' || char(0) || 'c'))) OR ("title" = 'it''s')) AND ("year" > 2000) ORDER BY "id""#)
        let expected = try Note.fetchAll(db, sql: "SELECT * FROM note WHERE (tag IN (X'00FF', X'01') OR title = 'b' || char(0) || 'c' OR title = 'it''s') AND year > 2000 ORDER BY id")
        #expect(try Note.fetchAll(db, sql: #"SELECT * FROM "recentNote""#) == expected)
        #expect(expected.map(\.id) == [1, 2, 3])

        // A record over the view: its requests and their column checks work as on a table.
        struct RecentNote: Codable, Equatable, FetchableRecord, TableRecord {
            static let databaseTableName = "recentNote"
            var id: Int64
            var title: String
        }
        #expect(try RecentNote.order(Column("id").desc).fetchAll(db).map(\.id) == [3, 2, 1])
        let error = #expect(throws: DatabaseError.self) { try RecentNote.filter(Column("titel") == "x").fetchAll(db) }
        #expect(error?.message?.contains("no such column: titel") == true)
    }

    @Test func aViewFromSQLWithColumnsAndOptions() throws {
        try db.create(view: "titles", columns: ["heading", "mark"],
                      asLiteral: "SELECT title, '?' /* a ? in a comment */ FROM note WHERE year < \(2020) -- and here ?")
        #expect(try db.fetchAll(sql: "SELECT heading, mark FROM titles ORDER BY heading").map { try $0.value(String.self, at: 0) } == ["b\0c", "old"])
        #expect(try db.fetchAll(String.self, sql: "SELECT DISTINCT mark FROM titles") == ["?"])
        // IF NOT EXISTS leaves the existing view as it is; without it, an error.
        try db.create(view: "titles", options: .ifNotExists, asLiteral: "SELECT 1")
        #expect(try db.fetchScalar(Int.self, sql: "SELECT COUNT(*) FROM titles") == 2)
        #expect(throws: DatabaseError.self) { try db.create(view: "titles", asLiteral: "SELECT 1") }
        // A temporary view is not in the file's schema.
        try db.create(view: "scratch", options: .temporary, as: Note.select(Column("id")))
        #expect(try viewSQL("scratch") == nil)
        #expect(try viewSQL("scratch", in: "sqlite_temp_master") == #"CREATE VIEW "scratch" AS SELECT "id" FROM "note""#)
        try db.drop(view: "titles")
        #expect(try viewSQL("titles") == nil)
    }

    @Test func valuesAndNamesThatLookLikeSQLStayWhatTheyAre() throws {
        // A negative number after `-`: `2000-(-5)`, never `2000--5`, a comment.
        try db.create(view: "recent", asLiteral: "SELECT id FROM note WHERE year > 2000-\(-5) AND title <> \("plain")")
        #expect(try db.fetchAll(Int64.self, sql: "SELECT id FROM recent ORDER BY id") == [1, 2])
        try db.create(view: "negated", as: Note.filter(Column("year") > -(-1995).sqlExpression).select(Column("id")))
        #expect(try db.fetchAll(Int64.self, sql: "SELECT id FROM negated ORDER BY id") == [1, 2, 3])
        // `$` inside a bare name is part of it; a comment after the last `;` is no statement.
        try db.execute(sql: "CREATE TABLE price(amount$usd INTEGER)")
        try db.create(view: "prices", asLiteral: "SELECT amount$usd FROM price")
        try db.create(view: "one", asLiteral: "SELECT 1 AS one; -- a note")
        #expect(try db.fetchScalar(Int.self, sql: "SELECT one FROM one") == 1)
        #expect(try Note.filter(sql: "title <> 'x$y' AND year > ?", arguments: [2020]).fetchCount(db) == 2)
    }

    @Test func aViewThatCannotBeReadIsNotCreated() throws {
        // A temporary view of the same name does not answer for the new one.
        try db.execute(sql: "CREATE TEMP VIEW v0 AS SELECT 1 AS x")
        #expect(throws: DatabaseError.self) { try db.create(view: "v0", asLiteral: "SELECT nope FROM note") }
        #expect(try viewSQL("v0") == nil)
        for (name, sql, columns) in [("v1", "SELECT * FROM nosuch", nil), ("v2", "SELECT nosuchcolumn FROM note", nil), ("v3", "SELECT 1", ["a", "b"])] as [(String, SQL, [String]?)] {
            let error = #expect(throws: DatabaseError.self) { try db.create(view: name, columns: columns, asLiteral: sql) }
            #expect(error?.message?.contains("view \(name) cannot be read") == true, "\(name)")
            #expect(try viewSQL(name) == nil, "\(name)")
        }
    }

    @Test func whatCannotBeAViewIsRefusedAndNothingIsCreated() throws {
        let mismatched = #expect(throws: DatabaseError.self) { try db.create(view: "v1", asLiteral: SQL(sql: "SELECT ?, ?", arguments: [.integer(1)])) }
        #expect(mismatched?.message?.contains("2 placeholder(s) and 1 argument(s)") == true)
        #expect(throws: DatabaseError.self) { try db.create(view: "v2", asLiteral: SQL(sql: "SELECT :a", arguments: [.integer(1)])) }
        // A second statement after the SELECT is not run.
        #expect(throws: CipherStoreError.self) { try db.create(view: "v3", asLiteral: "SELECT 1; DROP TABLE note") }
        #expect(try db.fetchScalar(Int.self, sql: "SELECT COUNT(*) FROM note") == 4)
        #expect(throws: DatabaseError.self) { try db.create(view: "v4", as: Note.filter(Column("yaer") > 1)) }
        #expect(try db.fetchScalar(Int.self, sql: "SELECT COUNT(*) FROM sqlite_master WHERE type = 'view'") == 0)
    }
}
