@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// Selection, aggregates, grouping and bulk writes of the query interface: each request's SQL
/// checked against the hand-written SQL, and its result against that SQL's.
@Suite struct QuerySelectionTests {
    struct Note: Codable, Hashable, FetchableRecord, TableRecord {
        static let databaseTableName = "note"
        var id: Int64
        var body: String
        var done: Bool
        var score: Double
        var tag: String?
        var likes: Int

        enum CodingKeys: String, CodingKey { case id, body, done, score, tag, likes }
    }

    let directory: TemporaryDirectory
    let db: Connection

    init() throws {
        directory = try TemporaryDirectory()
        db = try Connection(path: directory.path("notes.db"), key: .rawKey(hex: String(repeating: "4d", count: 32)))
        try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL, done BOOLEAN NOT NULL, score REAL NOT NULL, tag TEXT, likes INTEGER NOT NULL)")
        try db.execute(sql: """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 120)
            INSERT INTO note SELECT i, printf('note %03d', i), i % 3 = 0, (i * 7) % 50 / 2.0, CASE WHEN i % 4 = 0 THEN NULL ELSE 'tag' || (i % 5) END, (i * 11) % 13 FROM n
            """)
    }

    @Test func everyShapeAgainstItsSQL() throws {
        let cases: [(QueryInterfaceRequest<Note>, String)] = [
            (Note.select(Column(Note.CodingKeys.body), Column("score")).order(Column("id")),
             #"SELECT "body", "score" FROM "note" ORDER BY "id""#),
            (Note.select(Column("tag")).distinct().order(Column("tag")),
             #"SELECT DISTINCT "tag" FROM "note" ORDER BY "tag""#),
            (Note.select(Column("tag"), count(Column("id")).forKey("n"), sum(Column("likes")), total(Column("score")), average(Column("score")),
                         min(Column("likes")), max(Column("likes"))).group(Column("tag")).order(Column("tag")),
             #"SELECT "tag", COUNT("id") AS "n", SUM("likes"), TOTAL("score"), AVG("score"), MIN("likes"), MAX("likes") FROM "note" GROUP BY "tag" ORDER BY "tag""#),
            (Note.select(Column("tag"), count(distinct: Column("likes"))).group(Column("tag")).having(count(Column("id")) > 20).order(Column("tag")),
             #"SELECT "tag", COUNT(DISTINCT "likes") FROM "note" GROUP BY "tag" HAVING (COUNT("id") > 20) ORDER BY "tag""#),
            (Note.annotated(with: length(Column("body")).forKey("bodyLength"), (Column("likes") * 2 + Column("score")).forKey("weight")).order(Column("id")).limit(3),
             #"SELECT *, LENGTH("body") AS "bodyLength", ("likes" * 2) + "score" AS "weight" FROM "note" ORDER BY "id" LIMIT 3"#),
            (Note.filter(Column("likes") > Column("score")).order(Column("id")),
             #"SELECT * FROM "note" WHERE ("likes" > "score") ORDER BY "id""#),
            (Note.filter(Column("likes") - 3 >= Column("score") / 2).order((Column("likes") + Column("score")).desc, Column("id")),
             #"SELECT * FROM "note" WHERE (("likes" - 3) >= ("score" / 2)) ORDER BY "likes" + "score" DESC, "id""#),
            (Note.filter([1, 4, 9, 16].contains(Column("id")) || (Column("tag") ?? "none") == "none").order(Column("id")),
             #"SELECT * FROM "note" WHERE (("id" IN (1, 4, 9, 16)) OR (IFNULL("tag", 'none') = 'none')) ORDER BY "id""#),
            (Note.filter(Column("body").uppercased.like("NOTE 01%") && abs(-Column("likes")) < 5).order(Column("id")),
             #"SELECT * FROM "note" WHERE ((swiftUppercaseString("body") LIKE 'NOTE 01%') AND (ABS(-"likes") < 5)) ORDER BY "id""#),
        ]
        for (request, written) in cases {
            // The request binds its values; the hand-written SQL has them inline.
            #expect(try request.makeSQL(db).withValuesWrittenIn == written)
            let expected = try db.fetchAll(sql: written)
            #expect(try Row.fetchAll(db, request).map(\.values) == expected.map(\.values), "\(written)")
            #expect(try request.fetchCount(db) == expected.count, "\(written)")
            #expect(!expected.isEmpty, "\(written)")
        }
    }

    @Test func valuesRowsSetsAndCursors() throws {
        let titles = try Note.select(Column("body"), as: String.self).filter(Column("done") == true).order(Column("id")).fetchAll(db)
        #expect(titles == (try db.fetchAll(String.self, sql: "SELECT body FROM note WHERE done = 1 ORDER BY id")))
        #expect(try Note.select(max(Column("score")), as: Double.self).fetchOne(db) == (try db.fetchScalar(Double.self, sql: "SELECT max(score) FROM note")))
        #expect(try Note.select(Column("tag"), as: String.self).filter(Column("tag") != nil).fetchSet(db) == Set(try db.fetchAll(String.self, sql: "SELECT tag FROM note WHERE tag IS NOT NULL")))
        #expect(try String.fetchAll(db, Note.select(Column("body")).order(Column("id")).limit(2)) == ["note 001", "note 002"])
        #expect(try Note.filter(Column("likes") == 0).fetchSet(db) == Set(try Note.fetchAll(db, sql: "SELECT * FROM note WHERE likes = 0")))
        let cursor = try Note.filter(Column("done") == true).order(Column("id").desc).fetchCursor(db)
        var fromCursor: [Note] = []
        while let note = try cursor.next() { fromCursor.append(note) }
        #expect(fromCursor == (try Note.fetchAll(db, sql: "SELECT * FROM note WHERE done = 1 ORDER BY id DESC")))
        #expect(try Note.filter(Column("id") > 1000).isEmpty(db))
        #expect(try !Note.all().isEmpty(db))
        #expect(try Note.none().fetchCount(db) == 0)
        let perTag = try Note.select(Column("tag"), count(Column("id")).forKey("n")).group(Column("tag")).order(Column("tag")).asRequest(of: Row.self).fetchAll(db)
        #expect(perTag.map(\.values) == (try db.fetchAll(sql: "SELECT tag, count(id) AS n FROM note GROUP BY tag ORDER BY tag")).map(\.values))
        #expect(perTag.first?.columnNames == ["tag", "n"])
    }

    @Test func updateAllAndDeleteAllChangeWhatTheSameSQLChanges() throws {
        let other = try Connection(path: directory.path("notes.db"), key: .rawKey(hex: String(repeating: "4d", count: 32)))
        defer { try? other.close() }
        try other.execute(sql: "CREATE TABLE copy AS SELECT * FROM note")
        #expect(try Note.filter(Column("done") == false).updateAll(db, Column("likes") += 10, Column("tag").set(to: "open")) == 80)
        try other.execute(sql: "UPDATE copy SET likes = likes + 10, tag = 'open' WHERE done = 0")
        #expect(try Note.order(Column("score").desc, Column("id")).limit(5).updateAll(db, Column("score").set(to: 0), Column("tag").set(to: nil)) == 5)
        try other.execute(sql: "UPDATE copy SET score = 0, tag = NULL WHERE id IN (SELECT id FROM copy ORDER BY score DESC, id LIMIT 5)")
        #expect(try Note.updateAll(db, Column("likes") *= 2) == 120)
        try other.execute(sql: "UPDATE copy SET likes = likes * 2")
        #expect(try Note.filter(Column("likes") > 30).deleteAll(db) == (try other.fetchScalar(Int.self, sql: "SELECT count(*) FROM copy WHERE likes > 30")))
        try other.execute(sql: "DELETE FROM copy WHERE likes > 30")
        #expect(try db.fetchAll(sql: "SELECT * FROM note ORDER BY id").map(\.values) == (try db.fetchAll(sql: "SELECT * FROM copy ORDER BY id")).map(\.values))
        // A misspelled assignment changes nothing.
        #expect(throws: DatabaseError.self) { try Note.updateAll(self.db, Column("lieks").set(to: 0)) }
        #expect(throws: DatabaseError.self) { try Note.updateAll(self.db, Column("likes").set(to: Column("lieks"))) }
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM note WHERE likes = 0") == (try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM copy WHERE likes = 0")))
    }

    @Test func aMisspelledColumnInASelectionOrGroupIsAnError() throws {
        let requests: [(String, () throws -> Void)] = [
            ("bdy", { _ = try Note.select(Column("bdy"), as: String.self).fetchAll(self.db) }),
            ("tagg", { _ = try Note.select(Column("tag")).group(Column("tagg")).asRequest(of: Row.self).fetchAll(self.db) }),
            ("lieks", { _ = try Note.select(Column("tag")).group(Column("tag")).having(sum(Column("lieks")) > 3).fetchCount(self.db) }),
            ("scroe", { _ = try Note.annotated(with: (Column("scroe") * 2).forKey("x")).fetchAll(self.db) }),
        ]
        for (name, request) in requests {
            #expect {
                try request()
            } throws: { error in
                (error as? DatabaseError)?.message?.contains("no such column: \(name)") == true
                    && (error as? DatabaseError)?.message?.contains("id, body, done, score, tag, likes") == true
            }
        }
    }
}
