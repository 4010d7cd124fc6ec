import CipherStore
import Foundation
import TestSupport
import Testing

/// `cipherstore upgrade`: a SQLCipher 3 file into SQLCipher 4's format on SQLCipher 4, and a
/// clear refusal on SQLCipher 3.
@Suite struct UpgradeCLITests {
    let workspace: TemporaryDirectory
    let keyFile: String
    let path: String
    let key: DatabaseKey

    /// A SQLCipher 3 file with `user_version` and an AUTOINCREMENT table, made with SQLCipher
    /// 3's settings by whichever SQLCipher is linked.
    init() throws {
        workspace = try TemporaryDirectory()
        keyFile = try workspace.keyFile("k.key", "three to four\n")
        key = try DatabaseKey.passphrase("three to four")
        path = workspace.path("v3.db")
        let db = try Connection(path: path, key: key, configuration: Configuration(cipher: .sqlcipher3))
        try db.executeScript("""
            PRAGMA user_version = 3;
            CREATE TABLE t(id INTEGER PRIMARY KEY AUTOINCREMENT, x TEXT);
            INSERT INTO t(x) VALUES ('one'), ('two');
            """)
        try db.close()
    }

    @Test(.enabled(if: SQLCipherLibrary.sqlcipherMajorVersion >= 4, "SQLCipher 4 only; counterpart: upgradeExplainsThatItNeedsSQLCipher4"))
    func aSlotDatabaseUpgradesWithItsPassphraseAndStillOpensThroughItsSlotFile() throws {
        let slots = workspace.path("slots.db")
        let plaintext = try Connection(path: slots, key: nil)
        try plaintext.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2);")
        try plaintext.close()
        let passphraseFile = try workspace.keyFile("slot.key", "slot passphrase\n")
        let made = try CLI.run(["keys", "init", slots, "--new-key-file", passphraseFile, "--sqlcipher3", "--slot-kdf-ms", "5"])
        #expect(made.status == 0, "\(made.errorOutput)")
        let upgraded = try CLI.run(["upgrade", slots, "--in-place", "--key-file", passphraseFile])
        #expect(upgraded.status == 0, "\(upgraded.errorOutput)")
        // The salt is kept, so the slot file still belongs to the database: default settings now.
        let query = try CLI.run(["query", slots, "SELECT count(*) FROM t", "--key-file", passphraseFile, "--format", "csv"])
        #expect(query.status == 0, "\(query.errorOutput)")
        #expect(query.output.contains("2"), "\(query.output)")
        let asThree = try CLI.run(["verify", slots, "--key-file", passphraseFile, "--sqlcipher3"])
        #expect(asThree.status == 65, "\(asThree.output)")
    }

    @Test(.enabled(if: SQLCipherLibrary.sqlcipherMajorVersion >= 4, "SQLCipher 4 only; counterpart: upgradeExplainsThatItNeedsSQLCipher4"))
    func upgradeInPlaceAndToANewFile() throws {
        let copy = workspace.path("copy.db")
        try FileManager.default.copyItem(atPath: path, toPath: copy)

        let inPlace = try CLI.run(["upgrade", path, "--in-place", "--key-file", keyFile])
        #expect(inPlace.status == 0, "\(inPlace.errorOutput)")
        #expect(inPlace.output.contains("Upgraded to SQLCipher 4's format \(path)"), "\(inPlace.output)")
        #expect(inPlace.output.contains("Page size 4096 bytes, 256000 KDF iterations"), "\(inPlace.output)")
        let db = try Connection(path: path, key: key)
        #expect(try db.fetchScalar(Int.self, sql: "PRAGMA user_version") == 3)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT seq FROM sqlite_sequence") == 2)
        try db.close()
        let verified = try CLI.run(["verify", path, "--key-file", keyFile])
        #expect(verified.status == 0, "\(verified.errorOutput)")

        let output = workspace.path("v4.db")
        let json = try CLI.run(["upgrade", copy, "--output", output, "--key-file", keyFile, "--json"])
        #expect(json.status == 0, "\(json.errorOutput)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(object["command"] as? String == "upgrade")
        #expect(object["output"] as? String == output)
        #expect(object["pageSize"] as? Int == 4096 && object["kdfIterations"] as? Int == 256_000)
        #expect(object["userVersion"] as? Int == 3)
        // The source is left as it was: still SQLCipher 3.
        _ = try Connection(path: copy, key: key, configuration: Configuration(cipher: .sqlcipher3))

        // Upgrading again: the file is in SQLCipher 4's format already, which is said, not a wrong key.
        let before = fileBytes(output)
        let again = try CLI.run(["upgrade", output, "--in-place", "--key-file", keyFile])
        #expect(again.status == 66 && again.errorOutput.contains("is in SQLCipher 4's format already"), "\(again.errorOutput)")
        #expect(fileBytes(output) == before)
        // A wrong key is still a wrong key.
        let wrongKey = try workspace.keyFile("wrong.key", String(repeating: "0f", count: 32))
        #expect(try CLI.run(["upgrade", output, "--in-place", "--key-file", wrongKey]).status == 65)
    }

    @Test(.enabled(if: SQLCipherLibrary.sqlcipherMajorVersion >= 4, "SQLCipher 4 only; counterpart: upgradeExplainsThatItNeedsSQLCipher4"))
    func aCustomSourcePageSizeIsGivenWithOldPageSize() throws {
        let custom = workspace.path("custom.db")
        var settings = CipherSettings.sqlcipher3
        settings.pageSize = 4096
        let db = try Connection(path: custom, key: key, configuration: Configuration(cipher: settings))
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.close()
        let before = fileBytes(custom)
        let wrong = try CLI.run(["upgrade", custom, "--in-place", "--key-file", keyFile])
        #expect(wrong.status == 65, "\(wrong.errorOutput)")
        #expect(fileBytes(custom) == before)
        let right = try CLI.run(["upgrade", custom, "--in-place", "--key-file", keyFile, "--old-page-size", "4096"])
        #expect(right.status == 0, "\(right.errorOutput)")
        _ = try Connection(path: custom, key: key)
    }

    @Test(.enabled(if: SQLCipherLibrary.sqlcipherMajorVersion == 3, "SQLCipher 3 only; counterpart: upgradeInPlaceAndToANewFile"))
    func upgradeExplainsThatItNeedsSQLCipher4() throws {
        let before = fileBytes(path)
        let result = try CLI.run(["upgrade", path, "--in-place", "--key-file", keyFile])
        #expect(result.status == 64, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("needs SQLCipher 4"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains(SQLCipherLibrary.sqlcipherVersion ?? "?"), "\(result.errorOutput)")
        let json = try CLI.run(["upgrade", path, "--output", workspace.path("out.db"), "--key-file", keyFile, "--json"])
        #expect(json.status == 64)
        #expect(json.output.contains(#""kind":"sqlcipher4Required""#), "\(json.output)")
        #expect(fileBytes(path) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.url.path).sorted() == ["k.key", "v3.db"])
    }
}
