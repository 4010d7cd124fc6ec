import CipherStore
import Foundation
import TestSupport
import Testing

/// A file whose schema names the app's own collation (`COLLATE myapp`), made by the library
/// with the real collation, then handled by the tool, which does not have it: `verify`,
/// `backup`, `query` and `repair` still work, and each says on standard error what was
/// replaced by what, and what that means for its result.
@Suite struct MissingCollationCLITests {
    static let rawKey = String(repeating: "5c", count: 32)
    /// Reverse byte order: what the tool's binary stand-in gets exactly wrong.
    static let myapp = DatabaseCollation("myapp") { lhs, rhs in rhs.compare(lhs) }

    let workspace: TemporaryDirectory
    let database: String
    let keyFile: String

    init() throws {
        workspace = try TemporaryDirectory()
        database = workspace.path("app.db")
        keyFile = try workspace.keyFile("app.key", Self.rawKey)
        let db = try Connection(path: database, key: .rawKey(hex: Self.rawKey))
        try db.add(collation: Self.myapp)
        try db.executeScript("""
            CREATE TABLE contact(id INTEGER PRIMARY KEY, name TEXT COLLATE myapp, city TEXT);
            CREATE INDEX contact_name ON contact(name);
            CREATE INDEX contact_city ON contact(city);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
            INSERT INTO contact(name, city) SELECT printf('name %03d', i), printf('city %d', i % 7) FROM n;
            """)
        #expect(try String.fetchAll(db, sql: "SELECT name FROM contact ORDER BY name LIMIT 2") == ["name 300", "name 299"])
        try db.close()
    }

    @Test func verifyNamesGRDBsCollationsAsTheAppsOrder() throws {
        let db = try Connection(path: database, key: .rawKey(hex: Self.rawKey))
        try db.executeScript("""
            CREATE TABLE word(text TEXT COLLATE swiftLocalizedCompare, sortKey TEXT);
            CREATE INDEX word_text ON word(text);
            CREATE INDEX word_key ON word(sortKey COLLATE swiftLocalizedStandardCompare);
            INSERT INTO word VALUES ('b', 'file10'), ('B', 'file2'), ('a', 'file1'), ('A', 'File3');
            """)
        try db.close()
        let result = try CLI.run(["verify", database, "--raw-key", "--key-file", keyFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.contains("integrity check passed but for 3 indexes under collations of the app"), "\(result.output)")
        // The app's own is one the tool lacks; GRDB's it has, but their indexes are in the app's order.
        let warning = try #require(result.errorOutput.split(separator: "\n").first { $0.contains("the schema names") })
        #expect(warning.contains("the collation myapp, which this tool does not have, and GRDB's collations swiftLocalizedCompare and swiftLocalizedStandardCompare, whose order is the app's"), "\(warning)")
        #expect(warning.contains("they were replaced by stand-ins that compare as BINARY"), "\(warning)")
        #expect(warning.contains("(contact_name, word_key and word_text)"), "\(warning)")
        // Repair names them in the same order, though it meets them in another.
        let repaired = try CLI.run(["repair", database, "-o", workspace.path("repaired.db"), "--raw-key", "--key-file", keyFile])
        #expect(repaired.status == 0, "\(repaired.errorOutput)")
        #expect(repaired.errorOutput.contains("REINDEX myapp; REINDEX swiftLocalizedCompare; REINDEX swiftLocalizedStandardCompare in the app, which has myapp, swiftLocalizedCompare and swiftLocalizedStandardCompare"), "\(repaired.errorOutput)")
        // GRDB's alone, however the schema spells it: the tool says whose order it is.
        let grdbOnly = workspace.path("grdb.db")
        let other = try Connection(path: grdbOnly, key: .rawKey(hex: Self.rawKey))
        try other.executeScript("""
            CREATE TABLE word(text TEXT COLLATE SWIFTLOCALIZEDCOMPARE);
            CREATE INDEX word_text ON word(text);
            INSERT INTO word VALUES ('b'), ('B'), ('a'), ('A');
            """)
        try other.close()
        let grdb = try CLI.run(["verify", grdbOnly, "--raw-key", "--key-file", keyFile])
        #expect(grdb.status == 0, "\(grdb.errorOutput)")
        #expect(grdb.output.contains("integrity check passed but for 1 index under a collation of the app"), "\(grdb.output)")
        #expect(grdb.errorOutput.contains("the schema names GRDB's collation swiftLocalizedCompare, whose order is the app's (its locale, Foundation and library version), not necessarily this tool's: it was replaced by a stand-in"), "\(grdb.errorOutput)")
        #expect(!grdb.errorOutput.contains("does not have"), "\(grdb.errorOutput)")
    }

    /// Opens `path` as the app does, with its collation.
    func openAsTheApp(_ path: String) throws -> Connection {
        let db = try Connection(path: path, key: .rawKey(hex: Self.rawKey))
        try db.add(collation: Self.myapp)
        return db
    }

    @Test func verifyChecksTheRestAndSaysWhichIndexItCouldNotCheck() throws {
        let result = try CLI.run(["verify", database, "--raw-key", "--key-file", keyFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.contains("integrity check passed but for 1 index under a collation of the app, which this tool compares in byte order"), "\(result.output)")
        #expect(result.output.contains("contact: 300 rows"))
        let warning = result.errorOutput
        #expect(warning.contains("cipherstore: warning: the schema names the collation myapp, which this tool does not have"), "\(warning)")
        #expect(warning.contains("replaced by a stand-in that compares as BINARY (byte order)"))
        #expect(warning.contains("(contact_name) was set aside"))
        #expect(warning.contains("PRAGMA integrity_check in the app that has myapp"))
        #expect(!warning.contains("contact_city"))

        let json = try CLI.run(["verify", database, "--raw-key", "--key-file", keyFile, "--json"])
        #expect(json.status == 0, "\(json.errorOutput)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(object["placeholderCollations"] as? [String] == ["myapp"])
        #expect(object["indexesUnderPlaceholders"] as? [String] == ["contact_name"])
    }

    @Test func backupCopiesThePagesAsTheyAreAndSaysWhatItCouldNotCheck() throws {
        let backup = workspace.path("backup.db")
        let result = try CLI.run(["backup", database, "--output", backup, "--raw-key", "--key-file", keyFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("the schema names the collation myapp, which this tool does not have"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("copied as they are"))
        #expect(result.errorOutput.contains("contact_name"))
        // In the app, the copy's index under its collation is whole and in the app's order.
        let copy = try openAsTheApp(backup)
        defer { try? copy.close() }
        #expect(try copy.fetchScalar(String.self, sql: "PRAGMA integrity_check") == "ok")
        #expect(try String.fetchAll(copy, sql: "SELECT name FROM contact ORDER BY name LIMIT 2") == ["name 300", "name 299"])
        #expect(try copy.fetchScalar(Int.self, sql: "SELECT count(*) FROM contact WHERE name < 'name 003'") == 297)
    }

    @Test func queryReadsWithTheStandInAndSaysWhatThatMeans() throws {
        // A sort compares in byte order…
        let sorted = try CLI.run(["query", database, "SELECT name FROM contact NOT INDEXED ORDER BY name LIMIT 2", "--raw-key", "--key-file", keyFile, "--format", "csv"])
        #expect(sorted.status == 0, "\(sorted.errorOutput)")
        #expect(sorted.output == "name\nname 001\nname 002\n")
        #expect(sorted.errorOutput.contains("the schema names the collation myapp, which this tool does not have"), "\(sorted.errorOutput)")
        #expect(sorted.errorOutput.contains("comparisons, sorts, GROUP BY and DISTINCT on columns under it use byte order"))
        // …while an ORDER BY through the index follows the index, in the app's order: the
        // warning names it.
        let indexed = try CLI.run(["query", database, "SELECT name FROM contact ORDER BY name LIMIT 2", "--raw-key", "--key-file", keyFile, "--format", "csv"])
        #expect(indexed.status == 0, "\(indexed.errorOutput)")
        #expect(indexed.output == "name\nname 300\nname 299\n")
        #expect(indexed.errorOutput.contains("an index that uses it (contact_name) follows the index"), "\(indexed.errorOutput)")

        // A statement that does not need it says nothing.
        let plain = try CLI.run(["query", database, "SELECT count(*) FROM contact", "--raw-key", "--key-file", keyFile, "--format", "csv"])
        #expect(plain.status == 0 && plain.output == "count(*)\n300\n", "\(plain.errorOutput)")
        #expect(plain.errorOutput.isEmpty)
    }

    @Test func aWriteThatNeedsTheCollationIsRefusedAndChangesNothing() throws {
        let before = fileBytes(database)
        let result = try CLI.run(["query", database, "INSERT INTO contact(name) VALUES ('zed')", "--write", "--raw-key", "--key-file", keyFile])
        #expect(result.status == 1)
        #expect(result.errorOutput.contains("needs the collation myapp, which this tool does not have"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("Nothing was changed"))
        #expect(fileBytes(database) == before)
        // One that does not touch it goes through.
        let update = try CLI.run(["query", database, "UPDATE contact SET city = 'Paris' WHERE id = 1", "--write", "--raw-key", "--key-file", keyFile])
        #expect(update.status == 0, "\(update.errorOutput)")
        let app = try openAsTheApp(database)
        defer { try? app.close() }
        #expect(try app.fetchScalar(String.self, sql: "PRAGMA integrity_check") == "ok")
        #expect(try app.fetchScalar(Int.self, sql: "SELECT count(*) FROM contact") == 300)
    }

    @Test func repairKeepsEveryRowAndSaysToReindexInTheApp() throws {
        let output = workspace.path("repaired.db")
        let result = try CLI.run(["repair", database, "-o", output, "--raw-key", "--key-file", keyFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.contains("300 rows"))
        #expect(result.errorOutput.contains("the schema names the collation myapp, which this tool does not have"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("(contact_name) were built in byte order"))
        #expect(result.errorOutput.contains("REINDEX myapp"))

        let app = try openAsTheApp(output)
        defer { try? app.close() }
        #expect(try String.fetchAll(app, sql: "SELECT sql FROM sqlite_master WHERE name = 'contact'")
                == ["CREATE TABLE contact(id INTEGER PRIMARY KEY, name TEXT COLLATE myapp, city TEXT)"])
        // Built in byte order: the app's integrity check sees it until the REINDEX the warning asks for.
        #expect(try app.fetchScalar(String.self, sql: "PRAGMA integrity_check") != "ok")
        try app.execute(sql: "REINDEX myapp")
        #expect(try app.fetchScalar(String.self, sql: "PRAGMA integrity_check") == "ok")
        #expect(try app.fetchScalar(Int.self, sql: "SELECT count(*) FROM contact WHERE name < 'name 003'") == 297)
    }

    @Test func aConversionRefusesToBuildTheIndexInAnotherOrder() throws {
        let before = fileBytes(database)
        let plain = workspace.path("plain.db")
        let result = try CLI.run(["decrypt", database, "-o", plain, "--raw-key", "--key-file", keyFile])
        #expect(result.status == 66, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("names the collation myapp, which the app that made it registers and this program does not have"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("Nothing was changed."))
        #expect(fileBytes(database) == before)
        #expect(!FileManager.default.fileExists(atPath: plain))
    }

    @Test func namesThatAreNotPlainIdentifiersAreQuotedAsSQLTakesThem() throws {
        let path = workspace.path("spaced.db")
        let db = try Connection(path: path, key: .rawKey(hex: Self.rawKey))
        try db.add(collation: DatabaseCollation("my coll") { lhs, rhs in rhs.compare(lhs) })
        try db.executeScript("""
            CREATE TABLE "T A"(x TEXT COLLATE "my coll");
            CREATE INDEX "T A x" ON "T A"(x);
            INSERT INTO "T A" VALUES ('a'), ('b');
            """)
        try db.close()
        let result = try CLI.run(["repair", path, "-o", workspace.path("spaced-repaired.db"), "--raw-key", "--key-file", keyFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("(\"T A x\") were built in byte order"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("run REINDEX \"my coll\" in the app"), "\(result.errorOutput)")
    }
}
