@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// Searching Chinese, Japanese and mixed text with FTS4 and the `cjk` tokenizer, on an
/// encrypted file: FTS4 is on both SQLCipher versions.
@Suite struct FTS4SearchTests {
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

    let directory: TemporaryDirectory
    let path: String
    let key: DatabaseKey
    let db: Connection

    init() throws {
        key = try DatabaseKey.rawKey(hex: String(repeating: "5c", count: 32))
        directory = try TemporaryDirectory()
        path = directory.path("search.db")
        db = try Connection(path: path, key: key)
        try db.create(virtualTable: "document", using: FTS4()) { t in
            t.column("body")
            t.tokenizer = .cjk
        }
        for text in Self.texts { try db.execute(sql: "INSERT INTO document(body) VALUES (?)", arguments: [text]) }
    }

    /// The docids a raw MATCH finds, in order.
    func ids(_ pattern: String) throws -> [Int] {
        try db.fetchAll(sql: "SELECT docid FROM document WHERE document MATCH ? ORDER BY docid", arguments: [pattern]).map { try $0.value(at: 0) }
    }

    func ids(_ pattern: FTS3Pattern?) throws -> [Int] {
        try Document.matching(pattern).select(Column("docid"), as: Int.self).order(Column("docid")).fetchAll(db)
    }

    @Test func theTableIsWhatTheBuilderSays() throws {
        let sql = try db.fetchScalar(String.self, sql: "SELECT sql FROM sqlite_master WHERE name = 'document'")
        #expect(sql == #"CREATE VIRTUAL TABLE "document" USING fts4("body", tokenize=cjk)"#)
    }

    @Test func findsAChineseWordInsideASentenceAndNotAWordThatIsNotThere() throws {
        #expect(try ids("温泉") == [1, 3, 4])
        #expect(try ids("猴子") == [])
        #expect(try ids("泡温泉") == [1])          // unquoted: its bigrams, each anywhere
        #expect(try ids("\"泡温泉\"") == [1])      // quoted: in a row
        #expect(try ids("\"温泡泉\"") == [])
        #expect(try ids(FTS3Pattern(matchingAllTokensIn: "温泉")) == [1, 3, 4])
        #expect(try ids(FTS3Pattern(matchingAllTokensIn: "雪猴")) == [1])
    }

    @Test func englishWordsMatchInsideChineseWhateverTheirCase() throws {
        #expect(try ids("iphone") == [1, 2, 5])
        #expect(try ids("IPHONE") == [1, 2, 5])
        #expect(try ids(FTS3Pattern(matchingAllTokensIn: "ｉＰＨＯＮＥ")) == [1, 2, 5])
        #expect(try ids(FTS3Pattern(matchingAllTokensIn: "monkey HOT")) == [3])
        #expect(try ids(FTS3Pattern(matchingPhrase: "iPhone 7 plus")) == [5])
        #expect(try ids(FTS3Pattern(matchingAllTokensIn: "android")) == [])
    }

    @Test func japaneseKanaIsFound() throws {
        #expect(try ids(FTS3Pattern(matchingAllTokensIn: "カタカナ")) == [4])
        #expect(try ids(FTS3Pattern(matchingAllTokensIn: "ひらがな")) == [4])
        #expect(try ids(FTS3Pattern(matchingAllTokensIn: "ようこそ")) == [4])
        #expect(try ids(FTS3Pattern(matchingAllTokensIn: "かたかな")) == [])
        #expect(try ids(FTS3Pattern(matchingAllTokensIn: "日本の温泉")) == [4])
    }

    @Test func phrasesAllAndAnyWords() throws {
        // All words, anywhere; any word; the words in a row.
        #expect(try ids(FTS3Pattern(matchingAllTokensIn: "温泉 iPhone")) == [1])
        #expect(try ids(FTS3Pattern(matchingAnyTokenIn: "雪猴 手机")) == [1, 2])
        #expect(try ids(FTS3Pattern(matchingPhrase: "温泉边玩iPhone")) == [1])
        #expect(try ids(FTS3Pattern(matchingPhrase: "温泉 iPhone")) == [])
        #expect(try ids(FTS3Pattern(matchingPhrase: "iPhone的照片")) == [1])
        #expect(try ids(FTS3Pattern(matchingAllPrefixesIn: "iPh 温")) == [1])
        // A lone character is a prefix on FTS4: where a bigram starts with it.
        #expect(try ids(FTS3Pattern(matchingAllTokensIn: "猴")) == [1, 2])
        #expect(try ids(FTS3Pattern(matchingAllTokensIn: "iPhone的")) == [1])
    }

    @Test func theQueryInterfaceMatchesTheTableOrAColumn() throws {
        let pattern = FTS3Pattern(matchingAllTokensIn: "温泉")
        #expect(try Document.matching(pattern).makeSQL(db).sql == #"SELECT * FROM "document" WHERE ("document" MATCH ?)"#)
        #expect(try Document.matching(pattern).fetchAll(db).map(\.body) == [Self.texts[0], Self.texts[2], Self.texts[3]])
        #expect(try Document.filter(Column("body").match(pattern)).fetchCount(db) == 3)
        #expect(try Document.all().matching(pattern).filter(Column("body").like("%iPhone%")).fetchCount(db) == 1)
        // No pattern (the user typed only punctuation) matches nothing.
        #expect(FTS3Pattern(matchingAllTokensIn: "「」！") == nil)
        #expect(try Document.matching(nil as FTS3Pattern?).fetchAll(db).isEmpty)
        #expect(try Document.filter(Column("body").match(nil as FTS3Pattern?)).fetchCount(db) == 0)
    }

    @Test func snippetOffsetsAndRank() throws {
        let pattern = FTS3Pattern(matchingAllTokensIn: "iPhone")
        let snippets = try Document.matching(pattern).select(FTS4.snippet("document", start: "[", end: "]"), as: String.self)
            .order(Column("docid")).fetchAll(db)
        #expect(snippets.first == "一只雪猴在日本边泡温泉边玩[iPhone]的照片")
        #expect(snippets.last == "【[iPhone] 7 Plus】新买的[iPhone] 7 Plus ，如何？够酷炫么？")
        let offsets = try Document.matching(pattern).select(FTS4.offsets("document"), as: String.self).order(Column("docid")).fetchAll(db)
        #expect(offsets.first == "0 0 39 6")
        // Two hits of three in all rows score higher than one.
        let ranked = try Document.matching(pattern).select(Column("docid"), as: Int.self)
            .order(FTS4.rank("document").desc, Column("docid")).fetchAll(db)
        #expect(ranked == [5, 1, 2])
        #expect(throws: DatabaseError.self) { try db.fetchAll(sql: "SELECT fts4_rank('x')") }
        // A header whose phrases × columns overflows, or that claims more cells than the blob
        // holds, is refused before any cell is read (anyone's SQL, or a hostile schema's
        // index, can call the function).
        for blob in ["0100FF7F01000180000000000000000000000000", "0200000002000000", "01000000010000000100000001000000",
                     "0100000001000000010000000100000001000000FF", "010000000100000001000000020000000100000000000000"] {
            #expect(throws: DatabaseError.self, "\(blob)") { try db.fetchAll(sql: "SELECT fts4_rank(x'\(blob)')") }
        }
        #expect(try db.fetchScalar(Double.self, sql: "SELECT fts4_rank(x'0100000001000000010000000200000001000000')") == 0.5)
    }

    @Test func rawPatternsAreCheckedAndABadOneThrowsAClearError() throws {
        #expect(try ids(FTS3Pattern(rawPattern: "温泉 -iphone")) == [3, 4])
        #expect(try ids(FTS3Pattern(rawPattern: "雪猴 OR 手机")) == [1, 2])
        for bad in ["OR", "\"unterminated", "NEAR", "-温泉"] {
            #expect {
                _ = try FTS3Pattern(rawPattern: bad)
            } throws: { error in
                guard let error = error as? DatabaseError else { return false }
                return error.message?.contains("the full-text pattern is malformed: malformed MATCH expression") == true && error.sql == nil
            }
        }
        #expect(FTS3Pattern.fromDatabaseValue(.text("OR")) == nil)
        #expect(FTS3Pattern.fromDatabaseValue(.text("温泉"))?.rawPattern == "温泉")
    }

    @Test func theIndexIsEncryptedAtRestAndSearchesAfterReopening() throws {
        try db.execute(sql: "INSERT INTO document(body) VALUES ('zebraquux 斑马')")
        try db.close()
        let bytes = fileBytes(path)
        #expect(!bytes.contains("zebraquux") && !bytes.contains("斑马") && !bytes.contains("SQLite format 3"))
        let reopened = try Connection(path: path, key: key)
        #expect(try reopened.fetchScalar(Int.self, sql: "SELECT count(*) FROM document WHERE document MATCH '斑马 ZebraQuux'") == 1)
    }

    /// Encrypting, decrypting and rekeying copy the index with the rest and verify it: the
    /// connections that convert have the tokenizer too.
    @Test func theIndexSurvivesWholeFileConversions() throws {
        try db.close()
        let plain = directory.path("plain.db")
        try DatabaseFile.decrypt(path: path, key: key, to: .file(plain))
        let newKey = try DatabaseKey.rawKey(hex: String(repeating: "71", count: 32))
        let encrypted = directory.path("again.db")
        try DatabaseFile.encrypt(path: plain, key: newKey, to: .file(encrypted))
        let rekeyed = directory.path("rekeyed.db")
        try DatabaseFile.changeKey(path: encrypted, oldKey: newKey, newKey: key, to: .file(rekeyed))
        let reopened = try Connection(path: rekeyed, key: key)
        #expect(try reopened.fetchAll(sql: "SELECT docid FROM document WHERE document MATCH '温泉 iphone'").map { try $0.value(Int.self, at: 0) } == [1])
        try reopened.execute(sql: "INSERT INTO document(document) VALUES ('integrity-check')")
    }

    @Test func aTableSynchronizedWithItsContentFollowsInsertsUpdatesAndDeletes() throws {
        try db.execute(sql: #"CREATE TABLE post(id INTEGER PRIMARY KEY, "text" TEXT NOT NULL, author TEXT)"#)
        try db.execute(sql: #"INSERT INTO post(id, "text") VALUES (1, '泡温泉'), (2, 'iPhone 手机')"#)
        try db.create(virtualTable: "post_ft", using: FTS4()) { t in
            t.synchronize(withTable: "post")
            t.column("text")
            t.tokenizer = .cjk
        }
        func found(_ text: String) throws -> [Int] {
            try db.fetchAll(sql: "SELECT docid FROM post_ft WHERE post_ft MATCH ? ORDER BY docid",
                            arguments: [FTS3Pattern(matchingAllTokensIn: text)]).map { try $0.value(at: 0) }
        }
        #expect(try found("温泉") == [1])                 // rows already there are indexed
        try db.execute(sql: #"INSERT INTO post(id, "text") VALUES (3, '温泉旅馆')"#)
        #expect(try found("温泉") == [1, 3])
        try db.execute(sql: #"UPDATE post SET "text" = '海边' WHERE id = 1"#)
        #expect(try found("温泉") == [3])
        #expect(try found("海边") == [1])
        try db.execute(sql: "UPDATE post SET author = 'x' WHERE id = 3")
        #expect(try found("旅馆") == [3])
        try db.execute(sql: "DELETE FROM post WHERE id = 3")
        #expect(try found("温泉") == [])
        try db.execute(sql: "INSERT INTO post_ft(post_ft) VALUES ('integrity-check')")
        // Dropped with its triggers, the content table is writable again.
        try db.execute(sql: "DROP TABLE post_ft")
        #expect(throws: DatabaseError.self) { try db.execute(sql: #"INSERT INTO post("text") VALUES ('x')"#) }
        try db.dropFTS4SynchronizationTriggers(forTable: "post_ft")
        try db.execute(sql: #"INSERT INTO post("text") VALUES ('x')"#)
    }

    /// A repair creates the full-text table again and rebuilds its index from the content
    /// table: searches find what they found, and the triggers keep the content table writable.
    @Test func aRepairRebuildsASynchronizedIndexAndKeepsItsContentTableWritable() throws {
        try db.execute(sql: #"CREATE TABLE post(id INTEGER PRIMARY KEY, "text" TEXT NOT NULL)"#)
        try db.execute(sql: #"INSERT INTO post(id, "text") VALUES (1, '泡温泉'), (2, 'iPhone 手机')"#)
        try db.create(virtualTable: "post_ft", using: FTS4()) { t in
            t.synchronize(withTable: "post")
            t.column("text")
            t.tokenizer = .cjk
        }
        try db.close()
        let repaired = directory.path("repaired.db")
        let report = try DatabaseRepair.salvage(path: path, key: key, to: repaired)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.notes.contains { $0.contains("full-text index post_ft was rebuilt") }, "\(report.notes)")
        let db = try Connection(path: repaired, key: key)
        defer { try? db.close() }
        #expect(try db.fetchScalar(Int.self, sql: "SELECT docid FROM post_ft WHERE post_ft MATCH '温泉'") == 1)
        try db.execute(sql: #"INSERT INTO post(id, "text") VALUES (3, '温泉旅馆')"#)
        #expect(try Int.fetchAll(db, sql: "SELECT docid FROM post_ft WHERE post_ft MATCH '温泉' ORDER BY docid") == [1, 3])
        try db.execute(sql: "INSERT INTO post_ft(post_ft) VALUES ('integrity-check')")
    }

    /// An index whose leaf page was lost is rebuilt whole from the content table.
    @Test func aRepairRebuildsAnIndexWhosePagesWereLost() throws {
        try db.create(virtualTable: "note", using: FTS4()) { t in
            t.column("body")
            t.tokenizer = .cjk
        }
        for number in 1...300 {
            try db.execute(sql: "INSERT INTO note(docid, body) VALUES (?, ?)", arguments: [number, "温泉 \(number) " + String(repeating: "雪猴", count: 20)])
        }
        let segmentRoot = try #require(try db.fetchScalar(Int.self, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'note_segdir'"))
        try db.close()
        // The segment directory's root: without it the index finds nothing.
        let pageSize = SQLCipherLibrary.defaultPageSize
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64((segmentRoot - 1) * pageSize))
        try handle.write(contentsOf: Data(repeating: 0x5A, count: pageSize))
        try handle.close()
        let repaired = directory.path("repaired.db")
        let report = try DatabaseRepair.salvage(path: path, key: key, to: repaired)
        #expect(report.notes.contains { $0.contains("full-text index note was rebuilt") }, "\(report.notes)")
        let db = try Connection(path: repaired, key: key)
        defer { try? db.close() }
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM note WHERE note MATCH '温泉'") == 300)
        try db.execute(sql: "INSERT INTO note(note) VALUES ('integrity-check')")
    }

    /// SQLite 3.44 and later cannot check a contentless index ("unable to validate"): verify
    /// and the rewrites set that line aside, and still fail an index out of step with its content.
    @Test func aContentlessIndexPassesVerificationAndAnIndexOutOfStepFailsIt() throws {
        try db.executeScript("""
            CREATE VIRTUAL TABLE words USING fts4(body, content='');
            INSERT INTO words(docid, body) VALUES (7, 'buy milk');
            """)
        try db.close()
        _ = try DatabaseFile.verify(path: path, key: key)
        let copy = directory.path("copy.db")
        try DatabaseFile.changeKey(path: path, oldKey: key, newKey: key, to: .file(copy))
        let reopened = try Connection(path: path, key: key)
        try reopened.executeScript("""
            CREATE TABLE c(a);
            CREATE VIRTUAL TABLE c_ft USING fts4(content='c', a);
            INSERT INTO c VALUES ('x y');
            """)
        try reopened.close()
        if SQLCipherLibrary.sqliteVersion.compare("3.44", options: .numeric) != .orderedAscending {
            #expect {
                try DatabaseFile.verify(path: path, key: key)
            } throws: { error in
                "\(error)".contains("malformed inverted index for FTS4 table main.c_ft")
            }
        }
    }

    /// A lone character between other tokens is searched as itself, not as a prefix that
    /// would also match a pair there.
    @Test func aLoneCharacterInsideAWordIsNotWidenedToAPrefix() throws {
        try db.execute(sql: "INSERT INTO document(docid, body) VALUES (10, 'A的B'), (11, 'A的照B'), (12, 'X的照片')")
        #expect(try ids(FTS3Pattern(matchingPhrase: "A的B")) == [10])
        #expect(try ids(FTS3Pattern(matchingAllTokensIn: "A的B")) == [10])
        #expect(try ids(FTS3Pattern(matchingPhrase: "A的 B")) == [10])
        // Ending the search, it is still a prefix: search as you type.
        #expect(try ids(FTS3Pattern(matchingPhrase: "X的")) == [12])
        #expect(try ids(FTS3Pattern(matchingAllTokensIn: "A的")) == [10, 11])
        #expect(FTS3Pattern(matchingPhrase: "A的B 的")?.rawPattern == #""A 的 B 的*""#)
    }

    @Test func aFailedDefinitionCreatesNothing() throws {
        #expect(throws: DatabaseError.self) {
            try db.create(virtualTable: "ft", options: .temporary, using: FTS4()) { t in
                t.synchronize(withTable: "document")
                t.column("body")
            }
        }
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM sqlite_temp_master") == 0)
        try db.create(virtualTable: "document", options: .ifNotExists, using: FTS4()) { t in t.column("other") }
        #expect(try db.columnNames(ofTable: "document") == ["body"])
    }
}
