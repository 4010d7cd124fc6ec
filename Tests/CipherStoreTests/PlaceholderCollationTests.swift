import CipherStore
import Foundation
import TestSupport
import Testing

/// The library's tools on a file whose schema names a collation they do not have: a stand-in
/// in binary order lets them read and check it, and they say so; the rest of the file is
/// checked as before, and an app's backup uses the app's own collation.
@Suite struct PlaceholderCollationTests {
    let directory: TemporaryDirectory
    let path: String
    let key: DatabaseKey

    /// Reverse byte order: what a binary stand-in gets exactly wrong.
    static let myapp = DatabaseCollation("myapp") { lhs, rhs in rhs.compare(lhs) }

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.path("collated.db")
        key = try DatabaseKey.rawKey(hex: String(repeating: "8e", count: 32))
        let db = try Connection(path: path, key: key)
        try db.add(collation: Self.myapp)
        try db.executeScript("""
            CREATE TABLE word(id INTEGER PRIMARY KEY, text TEXT COLLATE myapp UNIQUE, n INTEGER);
            CREATE INDEX word_n ON word(n);
            WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 500)
            INSERT INTO word(text, n) SELECT printf('w%04d', i), i FROM c;
            """)
        try db.close()
    }

    @Test func verifyChecksEverythingButTheIndexesUnderTheStandIn() throws {
        let report = try DatabaseFile.verify(path: path, key: key)
        #expect(report.placeholderCollations.names == ["myapp"])
        #expect(report.placeholderCollations.indexes == ["sqlite_autoindex_word_1"])
        #expect(report.tables.first { $0.name == "word" }?.rowCount == 500)
    }

    @Test func anIndexNotUnderTheStandInIsStillCheckedAndFoundDamaged() throws {
        // word_n declared BINARY over n, but its entries put in reverse order: a damaged index
        // that no stand-in explains.
        let db = try Connection(path: path, key: key)
        try db.add(collation: Self.myapp)
        try db.executeScript("""
            DROP INDEX word_n;
            CREATE INDEX word_n ON word(CAST(n AS TEXT) COLLATE myapp);
            PRAGMA writable_schema = ON;
            UPDATE sqlite_master SET sql = replace(sql, 'COLLATE myapp', 'COLLATE BINARY') WHERE name = 'word_n';
            """)
        try db.close()
        let error = try #require(throws: DatabaseFileError.self) { try DatabaseFile.verify(path: path, key: key) }
        #expect("\(error)".contains("word_n"), "\(error)")
    }

    @Test func readingThroughTheStandInNamesIt() throws {
        let db = try DatabaseFile.openForReading(path: path, key: key)
        defer { try? db.close() }
        #expect(db.placeholderCollations.isEmpty)
        #expect(try String.fetchAll(db, sql: "SELECT text FROM word NOT INDEXED ORDER BY text LIMIT 2") == ["w0001", "w0002"])
        #expect(db.placeholderCollations == ["myapp"])
        #expect(try PlaceholderCollations(db) == PlaceholderCollations(db))
        #expect(try PlaceholderCollations(db).indexes == ["sqlite_autoindex_word_1"])
    }

    @Test func aBackupByTheToolNamesTheStandInAndOneByTheAppDoesNot() throws {
        let toolCopy = directory.path("tool-copy.db")
        let report = try DatabaseBackup.backup(path: path, key: key, to: toolCopy)
        #expect(report.verification.placeholderCollations.names == ["myapp"])
        #expect(report.verification.placeholderCollations.indexes == ["sqlite_autoindex_word_1"])

        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.add(collation: Self.myapp) }
        let queue = try DatabaseQueue(path: path, key: key, configuration: configuration)
        defer { try? queue.close() }
        let appReport = try queue.backup(to: directory.path("app-copy.db"), key: key)
        #expect(appReport.verification.placeholderCollations.isEmpty)
    }

    @Test func aBackupAndARestoreGivenTheAppsCollationCheckTheIndexesUnderIt() throws {
        var options = DatabaseFileOptions()
        options.prepareDatabase { db in try db.add(collation: Self.myapp) }
        let copy = directory.path("copy.db")
        let backup = try DatabaseBackup.backup(path: path, key: key, to: copy, options: options)
        #expect(backup.verification.placeholderCollations.isEmpty)
        let restored = directory.path("restored.db")
        let restore = try DatabaseBackup.restore(backup: copy, key: key, over: restored, options: options)
        #expect(restore.verification.placeholderCollations.isEmpty)
        let db = try Connection(path: restored, key: key)
        defer { try? db.close() }
        try db.add(collation: Self.myapp)
        #expect(try db.fetchScalar(String.self, sql: "PRAGMA integrity_check") == "ok")
        #expect(try String.fetchAll(db, sql: "SELECT text FROM word ORDER BY text LIMIT 2") == ["w0500", "w0499"])
    }

    @Test func theAppsCollationMakesTheBackupsCheckFindAnIndexOutOfItsOrder() throws {
        // The app's collation now sorts the other way round from the one the index was built
        // under: a stand-in cannot tell, the app's collation can.
        var options = DatabaseFileOptions()
        options.prepareDatabase { db in try db.add(collation: DatabaseCollation("myapp") { lhs, rhs in lhs.compare(rhs) }) }
        let withoutIt = try DatabaseBackup.backup(path: path, key: key, to: directory.path("unchecked.db"))
        #expect(withoutIt.verification.placeholderCollations.indexes == ["sqlite_autoindex_word_1"])
        let copy = directory.path("checked.db")
        let error = try #require(throws: DatabaseFileError.self) {
            try DatabaseBackup.backup(path: path, key: key, to: copy, options: options)
        }
        // Named as what it may be: the app's collation changed, or damage. Not a copy that went wrong.
        guard case .indexesNotInAppOrder(let named, let indexes, _) = error else { Issue.record("\(error)"); return }
        #expect(named == path)
        #expect(indexes == ["sqlite_autoindex_word_1"])
        #expect("\(error)".contains("Either the app's collation orders otherwise than the one the file was built with"), "\(error)")
        #expect("\(error)".contains("the contents of the other indexes were not all checked"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: copy))

        // A restore of the unchecked copy says the same of the backup, and replaces nothing.
        let target = directory.path("target.db")
        try Data("not touched".utf8).write(to: URL(fileURLWithPath: target))
        let restoreError = try #require(throws: DatabaseFileError.self) {
            try DatabaseBackup.restore(backup: directory.path("unchecked.db"), key: key, over: target, replacingUnreadable: true, options: options)
        }
        guard case .indexesNotInAppOrder(let backup, _, _) = restoreError else { Issue.record("\(restoreError)"); return }
        #expect(backup == directory.path("unchecked.db"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == Data("not touched".utf8))
    }

    @Test func aRepairGivenTheAppsCollationBuildsItsIndexesInTheAppsOrder() throws {
        var options = DatabaseFileOptions()
        options.prepareDatabase { db in try db.add(collation: Self.myapp) }
        let repaired = directory.path("repaired.db")
        let report = try DatabaseRepair.salvage(path: path, key: key, to: repaired, options: options)
        #expect(report.isComplete)
        #expect(report.placeholderCollations.isEmpty)
        let standIn = directory.path("repaired-with-stand-in.db")
        #expect(try DatabaseRepair.salvage(path: path, key: key, to: standIn).placeholderCollations.names == ["myapp"])

        for (file, inAppOrder) in [(repaired, true), (standIn, false)] {
            let db = try Connection(path: file, key: key)
            defer { try? db.close() }
            try db.add(collation: Self.myapp)
            #expect((try db.fetchScalar(String.self, sql: "PRAGMA integrity_check") == "ok") == inAppOrder, "\(file)")
            #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM word WHERE text = 'w0250'") == (inAppOrder ? 1 : 0), "\(file)")
        }
    }

    @Test func everyToolSpellsACollationAsTheSchemaFirstWritesIt() throws {
        let file = directory.path("spelled.db")
        let db = try Connection(path: file, key: key)
        try db.add(collation: DatabaseCollation("mycoll") { lhs, rhs in lhs.compare(rhs) })
        try db.executeScript("""
            CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT, body TEXT COLLATE MyColl);
            CREATE INDEX note_title ON note(title COLLATE MYCOLL);
            INSERT INTO note(title, body) VALUES ('b', 'y'), ('a', 'x');
            """)
        try db.close()
        let reports = [
            try DatabaseFile.verify(path: file, key: key).placeholderCollations,
            try DatabaseBackup.backup(path: file, key: key, to: directory.path("spelled-copy.db")).verification.placeholderCollations,
            try DatabaseRepair.salvage(path: file, key: key, to: directory.path("spelled-repaired.db")).placeholderCollations,
        ]
        for report in reports {
            #expect(report.names == ["MyColl"])
            #expect(report.indexes == ["note_title"])
        }
        // A query of the app's that spells it otherwise: the connection names it as met, the
        // report as the schema writes it.
        let reader = try DatabaseFile.openForReading(path: file, key: key)
        defer { try? reader.close() }
        _ = try String.fetchAll(reader, sql: "SELECT body FROM note ORDER BY body COLLATE mYcOlL")
        #expect(reader.placeholderCollations == ["mYcOlL"])
        #expect(try PlaceholderCollations(reader).names == ["MyColl"])
    }

    @Test func aConversionWithoutTheAppsCollationChangesNothingAndNamesIt() throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let copy = directory.path("plain.db")
        let error = try #require(throws: DatabaseFileError.self) {
            try DatabaseFile.decrypt(path: path, key: key, to: .file(copy))
        }
        #expect(error == .missingCollation(path: path, collation: "myapp"), "\(error)")
        #expect("\(error)".contains("Nothing was changed. Run this from the app, with the collation added (DatabaseFileOptions.prepareDatabase)."), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: copy))
        #expect(throws: DatabaseFileError.missingCollation(path: path, collation: "myapp")) {
            try DatabaseFile.changeKey(path: path, oldKey: key, newKey: key)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == ["collated.db"])
    }

    @Test func aConversionWithTheAppsCollationBuildsItsOrder() throws {
        var options = DatabaseFileOptions()
        options.prepareDatabase { db in try db.add(collation: Self.myapp) }
        let copy = directory.path("plain.db")
        let report = try DatabaseFile.decrypt(path: path, key: key, to: .file(copy), options: options)
        #expect(report.verification.placeholderCollations.isEmpty)
        let plain = try Connection(path: copy, key: nil)
        defer { try? plain.close() }
        try plain.add(collation: Self.myapp)
        #expect(try plain.fetchScalar(String.self, sql: "PRAGMA integrity_check") == "ok")
        #expect(try String.fetchAll(plain, sql: "SELECT text FROM word ORDER BY text LIMIT 2") == ["w0500", "w0499"])
    }

    @Test func aKeyUnderACollationWhoseOrderChangedIsComparedRowForRow() throws {
        // A WITHOUT ROWID table's rows live in its key's order: here the app's (reverse) in the
        // source, and byte order in the copy, as when a collation's order changes between
        // versions (GRDB's swiftCompare and this library's). The content check compares the
        // rows, not the orders.
        let db = try Connection(path: path, key: key)
        try db.add(collation: Self.myapp)
        try db.executeScript("""
            CREATE TABLE tag(name TEXT COLLATE myapp PRIMARY KEY, uses INTEGER) WITHOUT ROWID;
            INSERT INTO tag SELECT text, n FROM word;
            """)
        try db.close()
        var options = DatabaseFileOptions()
        options.prepareDatabase { db in try db.add(collation: DatabaseCollation("myapp") { lhs, rhs in lhs.compare(rhs) }) }
        let copy = directory.path("plain.db")
        try DatabaseFile.decrypt(path: path, key: key, to: .file(copy), options: options)
        let plain = try Connection(path: copy, key: nil)
        defer { try? plain.close() }
        try plain.add(collation: DatabaseCollation("myapp") { lhs, rhs in lhs.compare(rhs) })
        #expect(try plain.fetchScalar(String.self, sql: "PRAGMA integrity_check") == "ok")
        let rows = try Row.fetchAll(plain, sql: "SELECT name, uses FROM tag ORDER BY name")
        #expect(rows.count == 500)
        #expect(rows.first.map { $0["name"] as String } == "w0001")
        #expect(rows.allSatisfy { ($0["name"] as String) == String(format: "w%04d", $0["uses"] as Int) })
    }

    /// Case-insensitive: coarser than the byte order the keys below were made unique under.
    static let caseless = DatabaseCollation("myapp") { lhs, rhs in lhs.lowercased().compare(rhs.lowercased()) }

    @Test(arguments: ["CREATE TABLE tag(name TEXT COLLATE myapp PRIMARY KEY, uses INTEGER) WITHOUT ROWID",
                      "CREATE TABLE tag(id INTEGER PRIMARY KEY, name TEXT COLLATE myapp UNIQUE, uses INTEGER)"])
    func keysThatACoarserCollationMakesEqualAreRefusedNotVerified(table: String) throws {
        let source = directory.path("tags.db")
        let db = try Connection(path: source, key: key)
        try db.add(collation: DatabaseCollation("myapp") { lhs, rhs in lhs.compare(rhs) })
        try db.executeScript("""
            \(table);
            INSERT INTO tag(name, uses) VALUES ('a', 1), ('A', 2), ('b', 3), ('B', 4);
            """)
        try db.close()
        let before = fileBytes(source)
        var options = DatabaseFileOptions()
        options.prepareDatabase { db in try db.add(collation: Self.caseless) }
        let copy = directory.path("tags-plain.db")
        let error = try #require(throws: DatabaseFileError.self) {
            try DatabaseFile.decrypt(path: source, key: key, to: .file(copy), options: options)
        }
        guard case .keysNotUnique(let path, _) = error else { Issue.record("\(error)"); return }
        #expect(path == source)
        #expect("\(error)".contains("Give the rewrite the collation the file was built with"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: copy))
        #expect(fileBytes(source) == before)
    }

    @Test func aPoolsKeyChangeRewritesWithThePoolsCollations() throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.add(collation: Self.myapp) }
        let pool = try DatabasePool(path: path, key: key, configuration: configuration)
        defer { try? pool.close() }
        let newKey = try DatabaseKey.rawKey(hex: String(repeating: "4d", count: 32))
        try pool.changeKey(to: newKey)
        #expect(try pool.read { try String.fetchAll($0, sql: "SELECT text FROM word ORDER BY text LIMIT 2") } == ["w0500", "w0499"])
        #expect(try pool.read { try $0.fetchScalar(String.self, sql: "PRAGMA integrity_check") } == "ok")
    }

    @Test func anAppsOwnConnectionsNeverUseAStandIn() throws {
        let queue = try DatabaseQueue(path: path, key: key)
        defer { try? queue.close() }
        let error = try #require(throws: DatabaseError.self) {
            try queue.read { try String.fetchAll($0, sql: "SELECT text FROM word ORDER BY text") }
        }
        #expect(error.message == "no such collation sequence: myapp")
    }
}
