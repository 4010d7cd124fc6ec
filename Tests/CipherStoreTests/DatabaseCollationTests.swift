import CipherStore
import Foundation
import TestSupport
import Testing

/// Collations written in Swift on an encrypted file: in `ORDER BY`, in a schema and its
/// indexes, and the release of what they capture.
@Suite struct DatabaseCollationTests {
    let directory: TemporaryDirectory
    let path: String
    let key: DatabaseKey

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.path("collations.db")
        key = try DatabaseKey.rawKey(hex: String(repeating: "4d", count: 32))
    }

    /// Shorter strings first, then byte order: an order no built-in collation gives.
    static let byLength = DatabaseCollation("bylength") { lhs, rhs in
        let (left, right) = (lhs.utf8.count, rhs.utf8.count)
        if left != right { return left < right ? .orderedAscending : .orderedDescending }
        return lhs == rhs ? .orderedSame : Array(lhs.utf8).lexicographicallyPrecedes(Array(rhs.utf8)) ? .orderedAscending : .orderedDescending
    }

    @Test func aCollationOrdersAnOrderByAndComparisons() throws {
        let db = try Connection(path: path, key: key)
        defer { try? db.close() }
        try db.add(collation: Self.byLength)
        try db.executeScript("""
            CREATE TABLE word(text TEXT);
            INSERT INTO word VALUES ('banana'), ('fig'), ('apple'), ('kiwi');
            """)
        #expect(try String.fetchAll(db, sql: "SELECT text FROM word ORDER BY text COLLATE bylength") == ["fig", "kiwi", "apple", "banana"])
        #expect(try String.fetchAll(db, sql: "SELECT text FROM word ORDER BY text") == ["apple", "banana", "fig", "kiwi"])
        // The name is case-insensitive, as SQLite's are.
        #expect(try db.fetchScalar(Bool.self, sql: "SELECT 'zz' < 'aaa' COLLATE BYLENGTH") == true)
    }

    @Test func theQueryInterfaceComparesAndOrdersUnderACollation() throws {
        struct Word: Decodable, Equatable, FetchableRecord, TableRecord {
            static let databaseTableName = "word"
            var text: String
        }
        let db = try Connection(path: path, key: key)
        defer { try? db.close() }
        try db.executeScript("""
            CREATE TABLE word(text TEXT);
            INSERT INTO word VALUES ('banana'), ('Fig'), ('apple'), ('KIWI'), ('fig');
            """)
        let nocase = Word.filter(Column("text").collating(.nocase) == "FIG").order(Column("text").collating(.nocase).desc, Column("text"))
        #expect(try nocase.makeSQL(db).sql == #"SELECT * FROM "word" WHERE (("text" COLLATE "NOCASE") = ?) ORDER BY "text" COLLATE "NOCASE" DESC, "text""#)
        #expect(try nocase.fetchAll(db).map(\.text) == (try String.fetchAll(db, sql: "SELECT text FROM word WHERE text = 'FIG' COLLATE NOCASE ORDER BY text COLLATE NOCASE DESC, text")))
        #expect(try nocase.fetchAll(db).map(\.text) == ["Fig", "fig"])

        // A Swift collation the connection has; one it lacks is SQLite's error, nothing run.
        let byLength = Word.order(Column("text").collating(Self.byLength))
        let missing = #expect(throws: DatabaseError.self) { try byLength.fetchAll(db) }
        #expect(missing?.message?.contains("bylength") == true)
        try db.add(collation: Self.byLength)
        #expect(try byLength.fetchAll(db).map(\.text) == (try String.fetchAll(db, sql: "SELECT text FROM word ORDER BY text COLLATE bylength")))
        #expect(try byLength.fetchAll(db).map(\.text) == ["Fig", "fig", "KIWI", "apple", "banana"])
    }

    @Test func grdbsCollationsUnderGRDBsNames() throws {
        let db = try Connection(path: path, key: key)
        defer { try? db.close() }
        let collations: [DatabaseCollation] = [.unicodeCompare, .caseInsensitiveCompare, .localizedCaseInsensitiveCompare, .localizedCompare, .localizedStandardCompare]
        #expect(collations.map(\.name) == ["swiftCompare", "swiftCaseInsensitiveCompare", "swiftLocalizedCaseInsensitiveCompare", "swiftLocalizedCompare", "swiftLocalizedStandardCompare"])
        // Every connection has them as it opens, as in GRDB.
        let words = ["file10", "File2", "file1", "apple", "Banana", "éclair"]
        try db.execute(sql: "CREATE TABLE word(text TEXT)")
        for word in words { try db.execute(sql: "INSERT INTO word VALUES (?)", arguments: [word]) }
        // Each orders as the Swift comparison it is named after.
        let comparisons: [(DatabaseCollation, (String, String) -> ComparisonResult)] = [
            (.unicodeCompare, { $0 < $1 ? .orderedAscending : $0 == $1 ? .orderedSame : .orderedDescending }),  // no combining marks apart here
            (.caseInsensitiveCompare, { let (lhs, rhs) = ($0.lowercased(), $1.lowercased()); return lhs < rhs ? .orderedAscending : lhs == rhs ? .orderedSame : .orderedDescending }),
            (.localizedCaseInsensitiveCompare, { $0.localizedCaseInsensitiveCompare($1) }),
            (.localizedCompare, { $0.localizedCompare($1) }),
            (.localizedStandardCompare, { $0.localizedStandardCompare($1) }),
        ]
        for (collation, compare) in comparisons {
            let sorted = try String.fetchAll(db, sql: "SELECT text FROM word ORDER BY text COLLATE \(collation.name), text COLLATE BINARY")
            let expected = words.sorted { let order = compare($0, $1); return order == .orderedSame ? Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) : order == .orderedAscending }
            #expect(sorted == expected, "\(collation.name)")
        }
        // The orders differ: case first in Swift's <, not in the others.
        #expect(try String.fetchAll(db, sql: "SELECT text FROM word ORDER BY text COLLATE swiftCompare").first == "Banana")
        #expect(try String.fetchAll(db, sql: "SELECT text FROM word ORDER BY text COLLATE swiftCaseInsensitiveCompare").first == "apple")
    }

    /// Words on which Foundation's `caseInsensitiveCompare` on Linux is no order ("aÖ" and
    /// "äÖ" each after the other), with case pairs, ligatures, combining marks and numbers.
    static let awkwardWords = ["a", "A", "ä", "Ä", "aÖ", "äÖ", "AÖ", "ÄÖ", "ö", "Ö", "o", "ß", "ss", "SS", "ﬁ", "fi", "é", "e\u{301}", "E",
                               "straße", "STRASSE", "file2", "file10", "İ", "i", "I", "ı", "ǅ", "ǆ", "Ǆ", "a b", "ab", "a-b", "", "1", "01"]

    /// Words on which Swift's `<` on Linux is no order (a letter and its combining accent
    /// apart: "α" < "α\u{301}" == "ά" < "α"), and others Foundation's localized comparisons
    /// do not order consistently (NUL inside, a combining mark alone, "İı" against "Iς").
    static let unusualWords = ["α", "ά", "α\u{301}", "ε", "έ", "ε\u{301}", "ο", "ό", "ο\u{301}", "ι", "ι\u{308}\u{301}", "\u{390}",
                               "İı", "Iς", "Ι", "\u{345}", "a\u{0}", "\u{0}a", "a\u{0}b", "한", "\u{1112}\u{1161}\u{11AB}",
                               "👍🏽", "👍", "Å", "A\u{30A}", "\u{212B}"]

    /// Each pair as SQLite compares it under `collation`, then antisymmetric and transitive:
    /// what a B-tree needs of an index's order.
    func expectAnOrder(_ collation: DatabaseCollation, on words: [String], in queue: DatabaseQueue) throws {
        let order = try queue.read { db in
            try words.map { a in
                try words.map { b in
                    try Int.fetchOne(db, sql: "SELECT CASE WHEN ?1 < ?2 COLLATE \(collation.name) THEN -1 WHEN ?1 = ?2 COLLATE \(collation.name) THEN 0 ELSE 1 END", arguments: [a, b])!
                }
            }
        }
        expectAnOrder(order, named: collation.name, labels: words.map(\.debugDescription))
    }

    /// `order[a][b]` (-1, 0 or 1 for `a` before, with or after `b`) antisymmetric and transitive.
    func expectAnOrder(_ order: [[Int]], named name: String, labels: [String]) {
        for a in labels.indices {
            for b in labels.indices {
                #expect(order[a][b] == -order[b][a], "\(name): \(labels[a]) \(labels[b])")
                for c in labels.indices where order[a][b] <= 0 && order[b][c] <= 0 && order[a][c] > 0 {
                    Issue.record("\(name): \(labels[a]) ≤ \(labels[b]) ≤ \(labels[c]), but not the first two ends")
                }
            }
        }
    }

    @Test func textThatIsNotUTF8KeepsItsStrayBytesApartUnderTheSwiftCollations() throws {
        // Valid and invalid UTF-8 side by side: stray continuation bytes, a cut sequence, an
        // overlong one, a surrogate, and letters that differ only in case.
        let values = ["61", "41", "62", "61ff", "61fe", "41ff", "41fe", "ff", "fe", "c3", "c3a4", "c3a4ff", "c384ff",
                      "61c3", "e282", "c0af", "eda080", "61ff62", "61fe62", "f48fbfbf", "e282ac", ""]
        let queue = try DatabaseQueue(path: path, key: key)
        defer { try? queue.close() }
        for collation in [DatabaseCollation.unicodeCompare, .caseInsensitiveCompare] {
            let order = try queue.read { db in
                try values.map { a in
                    try values.map { b in
                        let (l, r) = ("CAST(x'\(a)' AS TEXT)", "CAST(x'\(b)' AS TEXT)")
                        return try Int.fetchOne(db, sql: "SELECT CASE WHEN \(l) < \(r) COLLATE \(collation.name) THEN -1 WHEN \(l) = \(r) COLLATE \(collation.name) THEN 0 ELSE 1 END")!
                    }
                }
            }
            expectAnOrder(order, named: collation.name, labels: values.map { "x'\($0)'" })
            // Under the byte-exact one, only the same bytes are the same value, but for the
            // stray byte FF and the valid U+10FFFF it stands for (as documented).
            let standsFor: Set = ["ff", "f48fbfbf"]
            for a in values.indices {
                for b in values.indices where collation === DatabaseCollation.unicodeCompare {
                    let same = a == b || (standsFor.contains(values[a]) && standsFor.contains(values[b]))
                    #expect((order[a][b] == 0) == same, "x'\(values[a])' x'\(values[b])'")
                }
            }
        }
        // A UNIQUE index takes distinct stray bytes as distinct values, and case apart from them as one.
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE raw(text TEXT COLLATE swiftCaseInsensitiveCompare UNIQUE)")
            for value in ["61ff", "61fe", "ff", "fe", "c3", "61c3", "c384ff"] { try db.execute(sql: "INSERT INTO raw VALUES (CAST(x'\(value)' AS TEXT))") }
            #expect(throws: DatabaseError.self) { try db.execute(sql: "INSERT INTO raw VALUES (CAST(x'41ff' AS TEXT))") }
            #expect(throws: DatabaseError.self) { try db.execute(sql: "INSERT INTO raw VALUES (CAST(x'c3a4ff' AS TEXT))") }
            #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM raw INDEXED BY sqlite_autoindex_raw_1 WHERE text = CAST(x'41fe' AS TEXT)") == 1)
        }
        #expect(try queue.read { try String.fetchAll($0, sql: "PRAGMA integrity_check") } == ["ok"])
    }

    @Test func grdbsCollationsAreOrdersAndTheirIndexesPassEveryCheck() throws {
        let queue = try DatabaseQueue(path: path, key: key)
        // This library's own two on any text; Foundation's localized three on everyday text (see DatabaseCollation's documentation).
        let own: [DatabaseCollation] = [.unicodeCompare, .caseInsensitiveCompare]
        let localized: [DatabaseCollation] = [.localizedCaseInsensitiveCompare, .localizedCompare, .localizedStandardCompare]
        for collation in own { try expectAnOrder(collation, on: Self.awkwardWords + Self.unusualWords, in: queue) }
        for collation in localized { try expectAnOrder(collation, on: Self.awkwardWords, in: queue) }
        // "é" precomposed and decomposed are the same text.
        #expect(try queue.read { try Bool.fetchOne($0, sql: "SELECT 'é' = ? COLLATE swiftCompare", arguments: ["e\u{301}"]) } == true)
        #expect(try queue.read { try Bool.fetchOne($0, sql: "SELECT 'É' = ? COLLATE swiftCaseInsensitiveCompare", arguments: ["e\u{301}"]) } == true)

        // An index under each: the app's integrity check, an online backup and a decrypted copy all pass.
        let everyday = Self.awkwardWords + Self.awkwardWords.map({ $0 + "Ö" }) + Self.awkwardWords.map({ "a" + $0 })
        let unusual = Self.unusualWords.flatMap { x in Self.unusualWords.map { x + $0 } }
        try queue.write { db in
            for collation in own + localized {
                try db.execute(sql: "CREATE TABLE \(collation.name)(text TEXT COLLATE \(collation.name))")
                try db.execute(sql: "CREATE INDEX \(collation.name)_text ON \(collation.name)(text)")
                for word in everyday + (own.contains { $0 === collation } ? unusual : []) {
                    try db.execute(sql: "INSERT INTO \(collation.name) VALUES (?)", arguments: [word])
                }
            }
            // Every row found through the index by its own value, as by a full scan.
            for collation in own {
                for word in stride(from: 0, to: unusual.count, by: 5).map({ unusual[$0] }) {
                    let indexed = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(collation.name) INDEXED BY \(collation.name)_text WHERE text = ?", arguments: [word])
                    let scanned = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(collation.name) NOT INDEXED WHERE text = ?", arguments: [word])
                    #expect(indexed == scanned && indexed != 0, "\(collation.name): \(word.debugDescription)")
                }
            }
        }
        #expect(try queue.read { try String.fetchAll($0, sql: "PRAGMA integrity_check") } == ["ok"])
        try queue.backup(to: directory.path("online.db"), key: key)
        try queue.close()
        let report = try DatabaseFile.decrypt(path: path, key: key, to: .file(directory.path("plain.db")))
        #expect(report.verification.placeholderCollations.isEmpty)
    }

    @Test func theToolsCompareGRDBsCollationsInBinaryOrder() throws {
        let db = try Connection(path: path, key: key)
        try db.executeScript("""
            CREATE TABLE word(text TEXT COLLATE swiftLocalizedCompare);
            CREATE INDEX word_text ON word(text);
            INSERT INTO word VALUES ('b'), ('B'), ('a'), ('A');
            """)
        let appOrder = try String.fetchAll(db, sql: "SELECT text FROM word ORDER BY text")
        let localized: [String] = ["a", "A", "b", "B"].sorted { (lhs: String, rhs: String) -> Bool in lhs.localizedCompare(rhs) == .orderedAscending }
        #expect(appOrder == localized)
        #expect(appOrder != ["A", "B", "a", "b"])
        try db.close()
        // A tool reading the file whatever its collations uses a stand-in in byte order, and says so:
        // the index was built in the order of the app's Foundation and locale.
        let reader = try DatabaseFile.openForReading(path: path, key: key)
        #expect(try String.fetchAll(reader, sql: "SELECT text FROM word ORDER BY text COLLATE swiftCompare") == ["A", "B", "a", "b"])
        #expect(reader.placeholderCollations == ["swiftCompare"])
        try reader.close()
        let report = try DatabaseFile.verify(path: path, key: key)
        #expect(report.placeholderCollations.names == ["swiftLocalizedCompare"])
        #expect(report.placeholderCollations.indexes == ["word_text"])
    }

    @Test func aSchemaUnderTheCollationNeedsItAtEveryOpen() throws {
        let db = try Connection(path: path, key: key)
        try db.add(collation: Self.byLength)
        try db.executeScript("""
            CREATE TABLE word(text TEXT COLLATE bylength UNIQUE);
            CREATE INDEX word_text ON word(text);
            INSERT INTO word VALUES ('banana'), ('fig'), ('apple'), ('kiwi');
            """)
        // The column's collation applies without COLLATE in the query, through its index.
        #expect(try String.fetchAll(db, sql: "SELECT text FROM word ORDER BY text") == ["fig", "kiwi", "apple", "banana"])
        #expect(try String.fetchAll(db, sql: "SELECT text FROM word WHERE text > 'zzzz' ORDER BY text") == ["apple", "banana"])
        try db.close()

        // Without the collation, statements that need it fail, and say which one is missing.
        let without = try Connection(path: path, key: key)
        let error = try #require(throws: DatabaseError.self) { try without.fetchAll(sql: "SELECT text FROM word ORDER BY text") }
        #expect(error.message == "no such collation sequence: bylength")
        #expect(without.placeholderCollations.isEmpty)
        try without.close()

        let with = try Connection(path: path, key: key)
        defer { try? with.close() }
        try with.add(collation: Self.byLength)
        #expect(try with.fetchScalar(String.self, sql: "PRAGMA integrity_check") == "ok")
        #expect(try String.fetchAll(with, sql: "SELECT text FROM word ORDER BY text DESC") == ["banana", "apple", "kiwi", "fig"])
    }

    @Test func aRemovedCollationIsGoneAndItsCapturesAreReleased() throws {
        final class Token: Sendable {}
        weak var released: Token?
        let db = try Connection(path: path, key: key)
        defer { try? db.close() }
        do {
            let token = Token()
            released = token
            let collation = DatabaseCollation("tokened") { lhs, rhs in withExtendedLifetime(token) { lhs.compare(rhs) } }
            try db.add(collation: collation)
            #expect(try db.fetchScalar(Bool.self, sql: "SELECT 'a' < 'b' COLLATE tokened") == true)
            try db.remove(collation: collation)
        }
        #expect(released == nil)
        let error = try #require(throws: DatabaseError.self) { try db.execute(sql: "SELECT 'a' < 'b' COLLATE tokened") }
        #expect(error.message == "no such collation sequence: tokened")
    }

    @Test func closingTheConnectionReleasesItsCollations() throws {
        final class Token: Sendable {}
        weak var released: Token?
        let db = try Connection(path: path, key: key)
        do {
            let token = Token()
            released = token
            try db.add(collation: DatabaseCollation("tokened") { lhs, rhs in withExtendedLifetime(token) { lhs.compare(rhs) } })
        }
        #expect(released != nil)
        try db.close()
        #expect(released == nil)
    }

    @Test func replacingACollationReleasesTheOneItReplaces() throws {
        final class Token: Sendable {}
        weak var first: Token?
        let db = try Connection(path: path, key: key)
        defer { try? db.close() }
        do {
            let token = Token()
            first = token
            try db.add(collation: DatabaseCollation("same") { lhs, rhs in withExtendedLifetime(token) { lhs.compare(rhs) } })
        }
        // Reversed, under the same name in other letter case.
        try db.add(collation: DatabaseCollation("SAME") { lhs, rhs in rhs.compare(lhs) })
        #expect(first == nil)
        #expect(try db.fetchScalar(Bool.self, sql: "SELECT 'a' < 'b' COLLATE same") == false)
    }
}
