@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// FTS5 with the `cjk` tokenizer, on SQLCipher 4 (SQLite 3.46). SQLCipher 3.4.1 has no FTS5:
/// there, asking for it fails with SQLite's own clear error.
@Suite struct FTS5SearchTests {
    struct Document: Codable, Equatable, FetchableRecord, TableRecord {
        static let databaseTableName = "document"
        var body: String
    }

    static let texts = [
        "一只雪猴在日本边泡温泉边玩iPhone的照片",                   // 1
        "猜到猴哥玩手机时所思所想者，再奖iPhone一部。",              // 2
        "Hot springs (温泉) near the sea, and a monkey",            // 3
        "ひらがなとカタカナ、日本の温泉へようこそ",                 // 4
        "【iPhone 7 Plus】新买的iPhone 7 Plus ，如何？够酷炫么？",  // 5
    ]

    @Test(.enabled(if: !FTS5.isAvailable, "on SQLCipher 4, FTS5 works: the other tests of this suite"))
    func fts5IsRefusedWithSQLitesErrorOnSQLCipher3() throws {
        let db = try Connection(location: .inMemory, key: nil)
        #expect {
            try db.create(virtualTable: "document", using: FTS5()) { t in t.column("body") }
        } throws: { error in
            (error as? DatabaseError)?.message == "no such module: fts5"
        }
        #expect(throws: DatabaseError.self) { try FTS5Pattern(rawPattern: "温泉") }
        // The builders need no engine; the pattern is for a 4.x database.
        #expect(FTS5Pattern(matchingAllTokensIn: "温泉")?.rawPattern == #""温泉""#)
    }

    final class Fixture {
        let directory: TemporaryDirectory
        let db: Connection

        init() throws {
            directory = try TemporaryDirectory()
            db = try Connection(path: directory.path("search5.db"), key: .rawKey(hex: String(repeating: "5d", count: 32)))
            try db.create(virtualTable: "document", using: FTS5()) { t in
                t.column("body")
                t.tokenizer = .cjk
            }
            for text in FTS5SearchTests.texts { try db.execute(sql: "INSERT INTO document(body) VALUES (?)", arguments: [text]) }
        }

        func ids(_ pattern: FTS5Pattern?) throws -> [Int] {
            try Document.matching(pattern).select(Column.rowID, as: Int.self).order(Column.rowID).fetchAll(db)
        }
    }

    @Test(.enabled(if: FTS5.isAvailable, "FTS5 is SQLCipher 4's"))
    func findsChineseEnglishKanaAndSingleCharacters() throws {
        let fixture = try Fixture()
        #expect(try fixture.db.fetchScalar(String.self, sql: "SELECT sql FROM sqlite_master WHERE name = 'document'")
                == #"CREATE VIRTUAL TABLE "document" USING fts5("body", tokenize='cjk')"#)
        #expect(try fixture.ids(FTS5Pattern(matchingAllTokensIn: "温泉")) == [1, 3, 4])
        #expect(try fixture.ids(FTS5Pattern(matchingAllTokensIn: "猴子")) == [])
        #expect(try fixture.ids(FTS5Pattern(matchingAllTokensIn: "IPHONE")) == [1, 2, 5])
        #expect(try fixture.ids(FTS5Pattern(matchingAllTokensIn: "カタカナ")) == [4])
        #expect(try fixture.ids(FTS5Pattern(matchingAllTokensIn: "かたかな")) == [])
        // One character, anywhere: FTS5's documents index each CJK character too.
        #expect(try fixture.ids(FTS5Pattern(matchingAllTokensIn: "泉")) == [1, 3, 4])
        #expect(try fixture.ids(FTS5Pattern(matchingAllTokensIn: "猴")) == [1, 2])
        #expect(try fixture.ids(FTS5Pattern(matchingPhrase: "玩iPhone")) == [1])
        #expect(try fixture.ids(FTS5Pattern(matchingPhrase: "边玩iPhone的照片")) == [1])
        #expect(try fixture.ids(FTS5Pattern(matchingPhrase: "泡温泉 iPhone")) == [])
        #expect(try fixture.ids(FTS5Pattern(matchingAllTokensIn: "温泉 iPhone")) == [1])
        #expect(try fixture.ids(FTS5Pattern(matchingAnyTokenIn: "雪猴 手机")) == [1, 2])
        #expect(try fixture.ids(FTS5Pattern(matchingAllPrefixesIn: "iPh 温")) == [1])
        #expect(try fixture.ids(FTS5Pattern(matchingPrefixPhrase: "一只雪猴")) == [1])
        #expect(try fixture.ids(FTS5Pattern(matchingPrefixPhrase: "雪猴")) == [])
        // Raw MATCH: a bareword of several CJK characters is a phrase in FTS5.
        #expect(try fixture.db.fetchScalar(Int.self, sql: "SELECT count(*) FROM document WHERE document MATCH '泡温泉'") == 1)
        #expect(try fixture.ids(nil) == [])
        #expect(try Document.filter(Column("body").match(FTS5Pattern(matchingAllTokensIn: "温泉"))).fetchCount(fixture.db) == 3)
    }

    @Test(.enabled(if: FTS5.isAvailable, "FTS5 is SQLCipher 4's"))
    func highlightsCoverTheWholeMatchAndRankOrdersTheBestFirst() throws {
        let fixture = try Fixture()
        let pattern = FTS5Pattern(matchingAllTokensIn: "泡温泉")
        let highlighted = try Document.matching(pattern).select(FTS5.highlight("document", column: 0, open: "[", close: "]"), as: String.self).fetchOne(fixture.db)
        #expect(highlighted == "一只雪猴在日本边[泡温泉]边玩iPhone的照片")
        let snippet = try Document.matching(FTS5Pattern(matchingAllTokensIn: "iPhone")).select(FTS5.snippet("document", open: "[", close: "]", tokens: 8), as: String.self)
            .order(Column.rowID).fetchOne(fixture.db)
        #expect(snippet?.contains("[iPhone]") == true)
        // rank is BM25: the row with two hits first.
        let best = try Document.matching(FTS5Pattern(matchingAllTokensIn: "iPhone")).order(Column.rank).select(Column.rowID, as: Int.self).fetchAll(fixture.db)
        #expect(best.first == 5 && Set(best) == [1, 2, 5])
        let weighted = try Document.matching(FTS5Pattern(matchingAllTokensIn: "iPhone")).order(FTS5.bm25("document", weights: [2.0]))
            .select(Column.rowID, as: Int.self).fetchAll(fixture.db)
        #expect(weighted == best)
    }

    @Test(.enabled(if: FTS5.isAvailable, "FTS5 is SQLCipher 4's"))
    func rawPatternsAreCheckedWithTheirColumns() throws {
        let fixture = try Fixture()
        #expect(try fixture.ids(FTS5Pattern(rawPattern: "温泉 AND (iphone OR monkey) NOT カタカナ")) == [1, 3])
        #expect(try fixture.ids(FTS5Pattern(rawPattern: "body: 雪猴", allowedColumns: ["body"])) == [1])
        for bad in ["AND", "\"unterminated", "温泉 AND", "title: 温泉", "NEAR(温泉"] {
            #expect {
                _ = try FTS5Pattern(rawPattern: bad, allowedColumns: ["body"])
            } throws: { error in
                (error as? DatabaseError)?.message?.hasPrefix("the full-text pattern is malformed: ") == true
            }
        }
    }

    @Test(.enabled(if: FTS5.isAvailable, "FTS5 is SQLCipher 4's"))
    func aTableSynchronizedWithItsContentFollowsInsertsUpdatesAndDeletes() throws {
        let fixture = try Fixture()
        let db = fixture.db
        try db.execute(sql: #"CREATE TABLE post(id INTEGER PRIMARY KEY, "text" TEXT NOT NULL)"#)
        try db.execute(sql: #"INSERT INTO post(id, "text") VALUES (1, '泡温泉'), (2, 'iPhone 手机')"#)
        try db.create(virtualTable: "post_ft", using: FTS5()) { t in
            t.synchronize(withTable: "post")
            t.column("text")
            t.tokenizer = .cjk
        }
        func found(_ text: String) throws -> [Int] {
            try db.fetchAll(sql: "SELECT rowid FROM post_ft WHERE post_ft MATCH ? ORDER BY rowid",
                            arguments: [FTS5Pattern(matchingAllTokensIn: text)]).map { try $0.value(at: 0) }
        }
        #expect(try found("温泉") == [1])
        try db.execute(sql: #"INSERT INTO post(id, "text") VALUES (3, '温泉旅馆')"#)
        #expect(try found("泉") == [1, 3])
        try db.execute(sql: #"UPDATE post SET "text" = '海边' WHERE id = 1"#)
        #expect(try found("温泉") == [3])
        try db.execute(sql: "DELETE FROM post WHERE id = 3")
        #expect(try found("温泉") == [])
        try db.execute(sql: "INSERT INTO post_ft(post_ft) VALUES ('integrity-check')")
        try db.execute(sql: "DROP TABLE post_ft")
        try db.dropFTS5SynchronizationTriggers(forTable: "post_ft")
        try db.execute(sql: #"INSERT INTO post("text") VALUES ('x')"#)
    }

    /// A repair makes the table anew and rebuilds its index (the b-tree index, a WITHOUT ROWID
    /// table, is never read from the file) from the documents.
    @Test(.enabled(if: FTS5.isAvailable, "FTS5 is SQLCipher 4's"))
    func aRepairRebuildsTheIndexFromItsDocuments() throws {
        let fixture = try Fixture()
        try fixture.db.close()
        let repaired = fixture.directory.path("repaired.db")
        let key = try DatabaseKey.rawKey(hex: String(repeating: "5d", count: 32))
        let report = try DatabaseRepair.salvage(path: fixture.directory.path("search5.db"), key: key, to: repaired)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.notes.contains { $0.contains("full-text index document was rebuilt") }, "\(report.notes)")
        let db = try Connection(path: repaired, key: key)
        defer { try? db.close() }
        #expect(try Int.fetchAll(db, sql: "SELECT rowid FROM document WHERE document MATCH ? ORDER BY rowid",
                                 arguments: [FTS5Pattern(matchingAllTokensIn: "温泉")]) == [1, 3, 4])
        try db.execute(sql: "INSERT INTO document(document) VALUES ('integrity-check')")
    }
}
