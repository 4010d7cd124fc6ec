import CipherStore
import Foundation
import TestSupport
import Testing

/// `cipherstore backup` and `cipherstore restore`, end to end.
@Suite struct BackupCLITests {
    static let rawKey = String(repeating: "4d", count: 32)
    static let otherRawKey = String(repeating: "b2", count: 32)
    let workspace: TemporaryDirectory
    let database: String
    let keyFile: String
    let key: DatabaseKey

    init() throws {
        workspace = try TemporaryDirectory()
        database = workspace.path("app.db")
        keyFile = try workspace.keyFile("app.key", Self.rawKey)
        key = try DatabaseKey.rawKey(hex: Self.rawKey)
        let db = try Connection(path: database, key: key)
        try db.executeScript("""
            PRAGMA journal_mode = WAL;
            CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);
            INSERT INTO note(body) VALUES ('one'), ('two');
            """)
        try db.close()
    }

    func json(_ result: ProcessResult) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
    }

    func notes(_ path: String, key: DatabaseKey? = nil) throws -> [String] {
        let db = try Connection(path: path, key: key ?? self.key)
        defer { try? db.close() }
        return try String.fetchAll(db, sql: "SELECT body FROM note ORDER BY id")
    }

    @Test func aBackupAndARestoreRoundTripAndSayWhatTheyDid() throws {
        let backup = workspace.path("backup.db")
        var result = try CLI.run(["backup", database, "--output", backup, "--raw-key", "--key-file", keyFile, "--json"])
        #expect(result.status == 0, "\(result.errorOutput)")
        var object = try json(result)
        #expect(object["ok"] as? Bool == true)
        #expect(object["command"] as? String == "backup")
        #expect(object["output"] as? String == backup)
        #expect(object["rows"] as? Int == 2)
        #expect(object["slotFile"] is NSNull)
        #expect(try notes(backup) == ["one", "two"])

        // The same output again: refused, the backup kept.
        result = try CLI.run(["backup", database, "--output", backup, "--raw-key", "--key-file", keyFile])
        #expect(result.status == 64)
        #expect(result.errorOutput.contains("--force"))

        let db = try Connection(path: database, key: key)
        try db.execute(sql: "DELETE FROM note")
        try db.close()
        result = try CLI.run(["restore", backup, "--to", database, "--raw-key", "--key-file", keyFile, "--json"])
        #expect(result.status == 0, "\(result.errorOutput)")
        object = try json(result)
        #expect(object["command"] as? String == "restore")
        #expect(object["rows"] as? Int == 2)
        #expect(try notes(database) == ["one", "two"])
    }

    @Test func aDamagedSourceOrTargetIsCalledDamagedAndTheOptionsNamedAreThisCommandsOwn() throws {
        let db = try Connection(path: database, key: key)
        try db.execute(sql: "INSERT INTO note(body) SELECT printf('%0200d', value) FROM (WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < 2000) SELECT value FROM n)")
        try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        try db.close()
        let backup = workspace.path("backup.db")
        #expect(try CLI.run(["backup", database, "--output", backup, "--raw-key", "--key-file", keyFile]).status == 0)
        // Cut in the middle of the file, mid-page: the first page still opens with the key.
        let damaged = workspace.path("damaged.db")
        try FileManager.default.copyItem(atPath: backup, toPath: damaged)
        let handle = try #require(FileHandle(forUpdatingAtPath: damaged))
        try handle.truncate(atOffset: UInt64(try FileManager.default.attributesOfItem(atPath: damaged)[.size] as? Int ?? 0) / 2 + 100)
        try handle.close()
        let truncated = try Data(contentsOf: URL(fileURLWithPath: damaged))

        let copy = try CLI.run(["backup", damaged, "--output", workspace.path("copy.db"), "--raw-key", "--key-file", keyFile])
        #expect(copy.status == 67, "\(copy.errorOutput)")
        #expect(copy.errorOutput.contains("is damaged") && !copy.errorOutput.contains("newer"), "\(copy.errorOutput)")
        #expect(copy.errorOutput.contains("`cipherstore repair`") && !copy.errorOutput.contains("DatabaseRepair"), "\(copy.errorOutput)")

        let restore = try CLI.run(["restore", backup, "--to", damaged, "--raw-key", "--key-file", keyFile])
        #expect(restore.status == 67, "\(restore.errorOutput)")
        #expect(restore.errorOutput.contains("is damaged") && restore.errorOutput.contains("with --force"), "\(restore.errorOutput)")
        #expect(!restore.errorOutput.contains("replacingUnreadable"), "\(restore.errorOutput)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: damaged)) == truncated)
        // Following the advice works.
        let forced = try CLI.run(["restore", backup, "--to", damaged, "--raw-key", "--key-file", keyFile, "--force"])
        #expect(forced.status == 0, "\(forced.errorOutput)")
        #expect(try notes(damaged).count == 2002)

        let ontoItself = try CLI.run(["backup", database, "--output", database, "--raw-key", "--key-file", keyFile, "--force"])
        #expect(ontoItself.status == 64, "\(ontoItself.errorOutput)")
        #expect(ontoItself.errorOutput.contains("Choose another output.") && !ontoItself.errorOutput.contains("in-place")
                && !ontoItself.errorOutput.contains("inPlace"), "\(ontoItself.errorOutput)")
    }

    @Test func aPlaintextDatabaseIsBackedUpAndRestoredWithoutAKey() throws {
        let plaintext = workspace.path("plain.db")
        let db = try Connection(path: plaintext, key: nil)
        try db.executeScript("CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO note(body) VALUES ('p1'), ('p2');")
        try db.close()
        let backup = workspace.path("plain-backup.db")
        let made = try CLI.run(["backup", plaintext, "--output", backup])
        #expect(made.status == 0, "\(made.errorOutput)")
        #expect(DatabaseFileInfo.inspect(path: backup).kind == .plaintext)
        let restored = workspace.path("plain-restored.db")
        let restore = try CLI.run(["restore", backup, "--to", restored])
        #expect(restore.status == 0, "\(restore.errorOutput)")
        let check = try Connection(path: restored, key: nil)
        defer { try? check.close() }
        #expect(try String.fetchAll(check, sql: "SELECT body FROM note ORDER BY id") == ["p1", "p2"])
    }

    @Test func aBackupUnderAnotherKeyOpensInTheSQLCipherShellWithThatKeyOnly() throws {
        let backup = workspace.path("offsite.db")
        let otherKeyFile = try workspace.keyFile("offsite.key", Self.otherRawKey)
        let result = try CLI.run(["backup", database, "-o", backup, "--raw-key", "--key-file", keyFile, "--new-raw-key", "--new-key-file", otherKeyFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        let shell = try SQLCipherShell.run(database: backup, script: "PRAGMA key = \"x'\(Self.otherRawKey)'\";\nSELECT group_concat(body) FROM note;\n")
        #expect(shell.output.contains("one,two"), "\(shell.errorOutput)")
        let wrong = try CLI.run(["verify", backup, "--raw-key", "--key-file", keyFile])
        #expect(wrong.status == 65)
    }

    @Test func aPlaintextCopyIsWrittenOnlyWhenAskedAndSaysSo() throws {
        let copy = workspace.path("plain.db")
        var result = try CLI.run(["backup", database, "-o", copy, "--raw-key", "--key-file", keyFile, "--plaintext",
                                  "--new-raw-key", "--new-key-file", keyFile])
        #expect(result.status == 64)
        #expect(!FileManager.default.fileExists(atPath: copy))
        result = try CLI.run(["backup", database, "-o", copy, "--raw-key", "--key-file", keyFile, "--plaintext"])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("PLAINTEXT"))
        #expect(DatabaseFileInfo.inspect(path: copy).kind == .plaintext)
    }

    @Test func aRestoreOverADatabaseAnotherProcessHasOpenIsRefusedAndItsWriteKept() throws {
        let backup = workspace.path("backup.db")
        #expect(try CLI.run(["backup", database, "-o", backup, "--raw-key", "--key-file", keyFile]).status == 0)
        let (shell, input, errors) = try SQLCipherShell.start(database: database)
        input.write(Data("PRAGMA key = \"x'\(Self.rawKey)'\";\n.timeout 30000\nSELECT count(*) FROM note;\n".utf8))
        try #require(SQLCipherShell.waitUntil(shell, hasOpen: database))

        // The process is named first; past that with --force, the lock refuses all the same.
        let refused = try CLI.run(["restore", backup, "--to", database, "--raw-key", "--key-file", keyFile])
        #expect(refused.status == 64, "\(refused.errorOutput)")
        #expect(refused.errorOutput.contains("process \(shell.processIdentifier) (sqlcipher) has '\(database)' open"))
        let result = try CLI.run(["restore", backup, "--to", database, "--raw-key", "--key-file", keyFile, "--force"])
        #expect(result.status == 74, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("in use"))

        input.write(Data("INSERT INTO note(body) VALUES ('late');\n".utf8))
        try input.close()
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0, "\(String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))")
        #expect(try notes(database) == ["one", "two", "late"])
    }

    @Test func aSlotDatabaseIsBackedUpWithItsSlotFileAndRestoredWithThePassphrase() throws {
        let slots = workspace.path("slots.db")
        let passphraseFile = try workspace.keyFile("passphrase", "backup slot passphrase")
        let plain = try Connection(path: slots, key: nil)
        try plain.executeScript("CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO note(body) VALUES ('slot');")
        try plain.close()
        #expect(try CLI.run(["keys", "init", slots, "--new-key-file", passphraseFile, "--slot-kdf-ms", "10"]).status == 0)
        let backup = workspace.path("slots-backup.db")
        var result = try CLI.run(["backup", slots, "-o", backup, "--key-file", passphraseFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.contains(backup + ".keys"))
        #expect(try CLI.run(["verify", backup, "--key-file", passphraseFile]).status == 0)

        try FileManager.default.removeItem(atPath: slots)
        try FileManager.default.removeItem(atPath: slots + ".keys")
        result = try CLI.run(["restore", backup, "--to", slots, "--key-file", passphraseFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        let dataKey = try DatabaseKey.slots(passphrase: Passphrase("backup slot passphrase"), path: slots)
        #expect(try notes(slots, key: dataKey) == ["slot"])
    }

    /// After `keys rotate`, the database has another data key than its backup; the one
    /// passphrase that opens a slot of each slot file restores it with no other key option.
    @Test func aSlotDatabaseRestoresFromABackupTakenBeforeARotationWithThePassphraseAlone() throws {
        let slots = workspace.path("rotated.db")
        let passphraseFile = try workspace.keyFile("passphrase", "rotated slot passphrase")
        let plain = try Connection(path: slots, key: nil)
        try plain.executeScript("CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO note(body) VALUES ('before');")
        try plain.close()
        #expect(try CLI.run(["keys", "init", slots, "--new-key-file", passphraseFile, "--slot-kdf-ms", "10"]).status == 0)
        let backup = workspace.path("rotated-backup.db")
        #expect(try CLI.run(["backup", slots, "-o", backup, "--key-file", passphraseFile]).status == 0)
        #expect(try CLI.run(["query", slots, "INSERT INTO note(body) VALUES ('after')", "--key-file", passphraseFile, "--write"]).status == 0)
        let rotated = try CLI.run(["keys", "rotate", slots, "--key-file", passphraseFile])
        try #require(rotated.status == 0, "\(rotated.errorOutput)")
        let passphrase = try Passphrase("rotated slot passphrase")
        #expect(fileBytes(slots).prefix(16) != fileBytes(backup).prefix(16), "the rotation changed the data key and its salt")

        let result = try CLI.run(["restore", backup, "--to", slots, "--key-file", passphraseFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.contains("The backup's slot file was put beside it"), "\(result.output)")
        #expect(try notes(slots, key: DatabaseKey.slots(passphrase: passphrase, path: slots)) == ["before"])
        #expect(try CLI.run(["verify", slots, "--key-file", passphraseFile]).status == 0)
        // A passphrase that opens the backup only is still refused by the database it would replace.
        let other = try workspace.keyFile("other", "another passphrase")
        #expect(try CLI.run(["restore", backup, "--to", slots, "--key-file", other]).status == 65)
    }

    @Test func aBackupMadeASlotDatabaseOfItsOwnOpensWithItsPassphraseOnly() throws {
        let passphraseFile = try workspace.keyFile("offsite", "off-site backup passphrase")
        let backup = workspace.path("offsite.db")
        var result = try CLI.run(["backup", database, "-o", backup, "--raw-key", "--key-file", keyFile, "--new-key-file", passphraseFile,
                                  "--slot-database", "--slot-kdf-ms", "10", "--json"])
        #expect(result.status == 0, "\(result.errorOutput)")
        let object = try json(result)
        #expect(object["slotFile"] as? String == backup + ".keys")
        #expect(object["verified"] as? Bool == true && object["rows"] as? Int == 2)
        #expect(object["schemaCopy"] as? String == backup + ".schema")
        #expect(FileManager.default.fileExists(atPath: backup + ".keys"))
        let dataKey = try DatabaseKey.slots(passphrase: Passphrase("off-site backup passphrase"), path: backup)
        #expect(try notes(backup, key: dataKey) == ["one", "two"])
        // Not the database's key, and the passphrase alone is no SQLCipher key for it.
        #expect(try CLI.run(["verify", backup, "--raw-key", "--key-file", keyFile]).status == 65)
        result = try CLI.run(["keys", "list", backup])
        #expect(result.status == 0 && result.output.contains("passphrase"), "\(result.errorOutput)")

        // Refused without a passphrase, or with --force; nothing written.
        let refused = workspace.path("refused.db")
        result = try CLI.run(["backup", database, "-o", refused, "--raw-key", "--key-file", keyFile, "--slot-database"])
        #expect(result.status == 64 && result.errorOutput.contains("--slot-database needs"))
        result = try CLI.run(["backup", database, "-o", backup, "--raw-key", "--key-file", keyFile, "--new-key-file", passphraseFile, "--slot-database"])
        #expect(result.status == 64 && result.errorOutput.contains("Move it"), "\(result.errorOutput)")
        #expect(try notes(backup, key: dataKey) == ["one", "two"])
        #expect(!FileManager.default.fileExists(atPath: refused) && !FileManager.default.fileExists(atPath: refused + ".keys"))
    }
}
