import CipherStore
import Foundation
import TestSupport
import Testing

/// `cipherstore repair`: what it says and the exit code that goes with it.
@Suite struct RepairCLITests {
    static let rawKey = String(repeating: "6b", count: 32)
    let workspace: TemporaryDirectory
    let database: String
    let output: String
    let keyFile: String

    init() throws {
        workspace = try TemporaryDirectory()
        database = workspace.path("damaged.db")
        output = workspace.path("salvaged.db")
        keyFile = try workspace.keyFile("app.key", Self.rawKey)
        let db = try Connection(path: database, key: .rawKey(hex: Self.rawKey))
        try db.executeScript("""
            CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
            INSERT INTO note SELECT i, printf('note %d', i) FROM n;
            """)
        try db.close()
    }

    /// Flips bytes in the middle of page `page`.
    func damage(page: Int, of path: String) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64((page - 1) * SQLCipherLibrary.defaultPageSize + 200))
        try handle.write(contentsOf: Data(repeating: 0xEE, count: 16))
        try handle.close()
    }

    func json(_ result: ProcessResult) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
    }

    @Test func anIntactFileIsRepairedWholeAndADamagedOneExits68WithTheReport() throws {
        var result = try CLI.run(["repair", database, "-o", output, "--raw-key", "--key-file", keyFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.contains("2000 rows"))

        try damage(page: 3, of: database)
        result = try CLI.run(["repair", database, "-o", workspace.path("second.db"), "--raw-key", "--key-file", keyFile, "--json"])
        #expect(result.status == 68, "\(result.errorOutput)")
        let object = try json(result)
        #expect(object["ok"] as? Bool == true)
        #expect(object["complete"] as? Bool == false)
        #expect(object["pagesLost"] as? [Int] == [3])
        let rows = try #require(object["rows"] as? Int)
        #expect(rows > 0 && rows < 2000)
        #expect(result.errorOutput.contains("could not be read"))
        let check = try CLI.run(["verify", workspace.path("second.db"), "--raw-key", "--key-file", keyFile])
        #expect(check.status == 0, "\(check.errorOutput)")
    }

    @Test func anUndamagedFileWithASchemaCopyIsReportedWithoutTheCopysCounts() throws {
        // The backup's schema copy records each table's row count; it stood in for nothing here.
        let copy = workspace.path("copy.db")
        let backup = try CLI.run(["backup", database, "-o", copy, "--raw-key", "--key-file", keyFile])
        try #require(backup.status == 0, "\(backup.errorOutput)")
        try #require(FileManager.default.fileExists(atPath: copy + ".schema"))
        let result = try CLI.run(["repair", copy, "-o", output, "--raw-key", "--key-file", keyFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.contains("  note: 2000 rows\n") || result.output.hasSuffix("  note: 2000 rows"), "\(result.output)")
        #expect(!result.output.contains("schema copy"), "\(result.output)")
        #expect(result.errorOutput.isEmpty, "\(result.errorOutput)")
    }

    @Test func rowsNotPutBackWithNoPageLostAreNotCalledUnreadable() throws {
        let db = try Connection(path: database, key: .rawKey(hex: Self.rawKey))
        try db.executeScript("CREATE TABLE pair(a PRIMARY KEY, b) WITHOUT ROWID; INSERT INTO pair VALUES (1, 2);")
        try db.close()
        let result = try CLI.run(["repair", database, "-o", output, "--raw-key", "--key-file", keyFile])
        #expect(result.status == 68, "\(result.errorOutput)")
        #expect(result.output.contains("0 of "), "\(result.output)")
        #expect(result.errorOutput.contains("no page was lost, but not everything could be put back"), "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("could not be read"), "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("damaged file"), "\(result.errorOutput)")
    }

    @Test func aWrongKeyAndAPlaintextFileGetTheirOwnCodesAndWriteNothing() throws {
        let wrong = try workspace.keyFile("wrong.key", String(repeating: "00", count: 32))
        var result = try CLI.run(["repair", database, "-o", output, "--raw-key", "--key-file", wrong, "--json"])
        #expect(result.status == 65)
        #expect(try json(result)["ok"] as? Bool == false)
        let plaintext = workspace.path("plain.db")
        let db = try Connection(path: plaintext, key: nil)
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.close()
        result = try CLI.run(["repair", plaintext, "-o", output, "--raw-key", "--key-file", keyFile])
        #expect(result.status == 66)
        #expect(result.errorOutput.contains("a repair reads encrypted databases only") && !result.errorOutput.contains("key was given"), "\(result.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func aSlotDatabaseIsRepairedWithItsPassphraseAndKeepsItsSlots() throws {
        let slots = workspace.path("slots.db")
        let passphrase = try workspace.keyFile("passphrase", "repair slot passphrase")
        let db = try Connection(path: slots, key: nil)
        try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES ('slot row');")
        try db.close()
        #expect(try CLI.run(["keys", "init", slots, "--new-key-file", passphrase, "--slot-kdf-ms", "10"]).status == 0)
        let result = try CLI.run(["repair", slots, "-o", output, "--key-file", passphrase])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(FileManager.default.fileExists(atPath: output + ".keys"))
        let verify = try CLI.run(["verify", output, "--key-file", passphrase])
        #expect(verify.status == 0, "\(verify.errorOutput)")

        // Its salt damaged: the passphrase still opens a slot, whose recorded salt reads every
        // page (a page's HMAC covers its encrypted bytes, not the salt before them).
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: slots))
        try handle.write(contentsOf: Data(repeating: 0x42, count: 16))
        try handle.close()
        let salvaged = workspace.path("salt.db")
        let damaged = try CLI.run(["repair", slots, "-o", salvaged, "--key-file", passphrase, "--json"])
        #expect(damaged.status == 0, "\(damaged.errorOutput)")
        #expect(damaged.errorOutput.contains("salt"), "\(damaged.errorOutput)")
        let object = try json(damaged)
        #expect(object["pagesLost"] as? [Int] == [])
        #expect(object["rows"] as? Int == 1)
        // The new database has the slot's salt, and the slot file beside it: the passphrase opens it.
        #expect(object["slotFile"] as? String == salvaged + ".keys")
        let reopened = try CLI.run(["verify", salvaged, "--key-file", passphrase])
        #expect(reopened.status == 0, "\(reopened.errorOutput)")
    }

    @Test func aFileMadeByEncryptAndWrittenByTheShellIsRepairedIntoItsTablesWhenPageOneIsLost() throws {
        let plain = workspace.path("plain.db")
        let db = try Connection(path: plain, key: nil)
        try db.executeScript("""
            CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);
            CREATE TABLE tag(label TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
            INSERT INTO note SELECT i, printf('note %d', i) FROM n;
            """)
        try db.close()
        let encrypted = workspace.path("made.db")
        var result = try CLI.run(["encrypt", plain, "-o", encrypted, "--raw-key", "--key-file", keyFile, "--json"])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(try json(result)["schemaCopy"] as? String == encrypted + ".schema")
        // Another SQLCipher client writes rows, and keeps no copy: the count in the copy is the
        // one at encryption time, the rows come back all the same.
        let shell = try SQLCipherShell.run(database: encrypted, script: "PRAGMA key = \"x'\(Self.rawKey)'\";\nINSERT INTO tag VALUES ('added');\n")
        #expect(shell.status == 0, "\(shell.errorOutput)")

        try damage(page: 1, of: encrypted)
        result = try CLI.run(["repair", encrypted, "-o", output, "--raw-key", "--key-file", keyFile, "--json"])
        #expect(result.status == 68, "\(result.errorOutput)")
        let object = try json(result)
        #expect(object["schemaRecovered"] as? Bool == false)
        #expect(object["schemaFromCopy"] as? Bool == true)
        #expect(object["schemaCopyTaken"] is String)
        let tables = try #require(object["tables"] as? [[String: Any]])
        #expect(tables.map { $0["name"] as? String } == ["note", "tag"])
        #expect(tables.map { $0["rows"] as? Int } == [500, 1])
        #expect(tables.map { $0["expectedRows"] as? Int } == [500, 0])

        result = try CLI.run(["repair", encrypted, "-o", workspace.path("text.db"), "--raw-key", "--key-file", keyFile])
        #expect(result.output.contains("schema copy"), "\(result.output)")
        #expect(result.output.contains("note: 500 rows of 500"), "\(result.output)")
    }

    @Test func aWriteThroughQueryKeepsTheSchemaCopyCurrent() throws {
        let plain = workspace.path("plain.db")
        let db = try Connection(path: plain, key: nil)
        try db.executeScript("CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO note(body) VALUES ('a');")
        try db.close()
        let encrypted = workspace.path("queried.db")
        #expect(try CLI.run(["encrypt", plain, "-o", encrypted, "--raw-key", "--key-file", keyFile]).status == 0)
        var result = try CLI.run(["query", encrypted, "CREATE TABLE audit(actor TEXT, at, action)", "--write", "--raw-key", "--key-file", keyFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        result = try CLI.run(["query", encrypted, "INSERT INTO audit VALUES ('me', 1, 'LOGIN')", "--write", "--raw-key", "--key-file", keyFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        try damage(page: 1, of: encrypted)
        result = try CLI.run(["repair", encrypted, "-o", output, "--raw-key", "--key-file", keyFile, "--json"])
        let tables = try #require(try json(result)["tables"] as? [[String: Any]])
        #expect(Set(tables.compactMap { $0["name"] as? String }) == ["note", "audit"])
        #expect(tables.first { $0["name"] as? String == "audit" }?["expectedRows"] as? Int == 1)
    }
}
