import CipherStore
import Foundation
import TestSupport
import Testing

/// `cipherstore keys …`, `encrypt --key-slots`, and slot databases opened by the other commands:
/// the real binary on real files, with the key-slot library checking the results.
@Suite struct KeySlotsCLITests {
    let workspace: TemporaryDirectory
    let database: String
    let slotFile: String
    let first = "first passphrase ☂"
    let second = "second passphrase"
    let firstFile: String
    let secondFile: String
    /// Slots calibrated to about 10 ms, so that the tests run quickly.
    static let fast = ["--slot-kdf-ms", "10"]

    init() throws {
        workspace = try TemporaryDirectory()
        database = workspace.path("app.db")
        slotFile = database + ".keys"
        firstFile = try workspace.keyFile("first.key", first + "\n")
        secondFile = try workspace.keyFile("second.key", second)
        let db = try Connection(path: database, key: nil)
        try db.execute(sql: "PRAGMA page_size = \(SQLCipherLibrary.defaultPageSize)")
        try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES ('row');")
        try db.close()
    }

    /// Whether `passphrase` opens the database through its slot file and reads its row.
    func opens(_ passphrase: String) -> Bool {
        guard let passphrase = try? Passphrase(passphrase),
              let key = try? DatabaseKey.slots(passphrase: passphrase, path: database),
              let db = try? Connection(path: database, key: key) else { return false }
        defer { try? db.close() }
        return (try? db.fetchScalar(String.self, sql: "SELECT x FROM t")) == "row"
    }

    /// The one JSON object on standard output.
    func object(_ result: ProcessResult) throws -> [String: Any] {
        let lines = result.output.split(separator: "\n")
        try #require(lines.count == 1, "standard output: \(result.output)")
        return try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
    }

    func initialise() throws {
        let result = try CLI.run(["keys", "init", database, "--new-key-file", firstFile] + Self.fast)
        try #require(result.status == 0, "\(result.errorOutput)")
    }

    @Test func aRotationNamesEverySlotItDropsAndDropsARecoveryKeyOnlyWhenTold() throws {
        try initialise()
        let added = try CLI.run(["keys", "add", database, "--key-file", firstFile, "--new-key-file", secondFile, "--label", "laptop"] + Self.fast)
        try #require(added.status == 0, "\(added.errorOutput)")
        let recovery = try object(CLI.run(["keys", "recovery", database, "--key-file", firstFile, "--json"]))
        let recoveryKey = try #require(recovery["recoveryKey"] as? String)
        let slots = fileBytes(slotFile), before = fileBytes(database)

        var result = try CLI.run(["keys", "rotate", database, "--key-file", firstFile])
        #expect(result.status == 64, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("would drop slot 2 (passphrase, “laptop”), slot 3 (recovery key, “recovery key”)"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("--keep-key-file") && result.errorOutput.contains("--drop-recovery-key"), "\(result.errorOutput)")
        #expect(fileBytes(slotFile) == slots && fileBytes(database) == before)
        #expect(opens(recoveryKey))

        result = try CLI.run(["keys", "rotate", database, "--key-file", firstFile, "--drop-recovery-key"])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.contains("1 slot kept:"), "\(result.output)")
        #expect(result.output.contains("2 slots dropped (they open nothing now):"), "\(result.output)")
        #expect(result.output.contains("laptop") && result.output.contains("recovery key"), "\(result.output)")
        #expect(opens(first) && !opens(second) && !opens(recoveryKey))
    }

    /// A --keep-key-file that opens no slot (the whole output of `keys recovery`, saved with
    /// `>`) is named as such before anything changes, not blamed on the cipher settings; a
    /// --key-file that opens no slot is a wrong key.
    @Test func aKeepKeyFileThatOpensNoSlotIsNamedAndNothingChanges() throws {
        try initialise()
        let saved = try CLI.run(["keys", "recovery", database, "--key-file", firstFile])
        try #require(saved.status == 0, "\(saved.errorOutput)")
        let prose = try workspace.keyFile("recovery.txt", saved.output)
        let slots = fileBytes(slotFile), before = fileBytes(database)
        var result = try CLI.run(["keys", "rotate", database, "--key-file", firstFile, "--keep-key-file", prose])
        #expect(result.status == 65, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("'\(prose)' (--keep-key-file) opens no slot") && result.errorOutput.contains("lines"), "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("cipher settings"), "\(result.errorOutput)")
        #expect(fileBytes(slotFile) == slots && fileBytes(database) == before)
        let wrong = try workspace.keyFile("wrong.key", "not a passphrase of it")
        result = try CLI.run(["keys", "rotate", database, "--key-file", wrong, "--drop-recovery-key"])
        #expect(result.status == 65 && result.errorOutput.contains("no slot of its slot file"), "\(result.errorOutput)")
        #expect(fileBytes(slotFile) == slots && fileBytes(database) == before)
    }

    @Test func aPassphraseChangeSaysItsTimeIsTheKeyDerivation() throws {
        try initialise()
        let help = try CLI.run(["keys", "change", "--help"]).output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(help.contains("Change a passphrase in the time of one key derivation (about 0.25 s)"), "\(help)")
        #expect(!help.contains("in milliseconds"), "\(help)")
        #expect(try !CLI.run(["keys", "--help"]).output.contains("in milliseconds"))
        let change = try CLI.run(["keys", "change", database, "--key-file", firstFile, "--new-key-file", secondFile])
        #expect(change.status == 0, "\(change.errorOutput)")
        #expect(change.output.contains(", the time of its key derivation (the database, "), "\(change.output)")
        #expect(opens(second))
    }

    @Test func everyKeysCommandRoundTrips() throws {
        try initialise()
        #expect(opens(first))
        let mode = try FileManager.default.attributesOfItem(atPath: slotFile)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // list: one slot, no secret.
        let list = try object(CLI.run(["keys", "list", database, "--json"]))
        #expect(list["ok"] as? Bool == true)
        #expect(list["command"] as? String == "keys list")
        let slots = try #require(list["slots"] as? [[String: Any]])
        #expect(slots.count == 1)
        #expect(slots.first?["kind"] as? String == "passphrase")
        #expect((slots.first?["kdf"] as? String)?.hasPrefix("scrypt(") == true)

        // verify, query and decrypt open it with the passphrase, automatically through the slot file.
        #expect(try CLI.run(["verify", database, "--key-file", firstFile]).status == 0)
        let query = try CLI.run(["query", database, "SELECT x FROM t", "--key-file", firstFile, "--format", "csv"])
        #expect(query.status == 0 && query.output.contains("row"), "\(query.errorOutput)")

        // change: the database file is not rewritten, the old passphrase opens nothing.
        let before = fileBytes(database)
        let change = try CLI.run(["keys", "change", database, "--key-file", firstFile, "--new-key-file", secondFile, "--json"])
        #expect(change.status == 0, "\(change.errorOutput)")
        let changed = try object(change)
        #expect((changed["milliseconds"] as? Double).map { $0 > 0 } == true)
        #expect(changed["databaseBytes"] as? Int == before.count)
        #expect(fileBytes(database) == before)
        #expect(opens(second) && !opens(first))
        #expect(change.errorOutput.contains("keys rotate"), "the warning about old copies of the slot file is missing")
        #expect(try CLI.run(["verify", database, "--key-file", firstFile]).status == 65)

        // add: both open.
        let add = try CLI.run(["keys", "add", database, "--key-file", secondFile, "--new-key-file", firstFile, "--label", "laptop"] + Self.fast)
        #expect(add.status == 0, "\(add.errorOutput)")
        #expect(add.output.contains("'laptop'"))
        #expect(opens(first) && opens(second))

        // recovery: printed once, opens like a passphrase.
        let recovery = try CLI.run(["keys", "recovery", database, "--key-file", secondFile])
        #expect(recovery.status == 0, "\(recovery.errorOutput)")
        let recoveryKey = try #require(recovery.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.count == 47 && $0.split(separator: "-").count == 8 })
        #expect(recovery.output.components(separatedBy: recoveryKey).count == 2, "printed more than once")
        #expect(!recovery.errorOutput.contains(recoveryKey))
        #expect(opens(recoveryKey))
        let recoveryFile = try workspace.keyFile("recovery.txt", recoveryKey.lowercased() + "\n")
        #expect(try CLI.run(["verify", database, "--key-file", recoveryFile]).status == 0)

        // remove the 'laptop' slot, authorised by a passphrase that stays.
        let laptop = try #require(try KeySlots.list(path: database).first { $0.label == "laptop" })
        let remove = try CLI.run(["keys", "remove", database, "--slot", "\(laptop.id)", "--key-file", secondFile])
        #expect(remove.status == 0, "\(remove.errorOutput)")
        #expect(!opens(first) && opens(second))

        // rotate, keeping the passphrase and the recovery key: a new file, both still open.
        let oldSalt = fileBytes(database).prefix(16)
        let rotate = try CLI.run(["keys", "rotate", database, "--key-file", secondFile, "--keep-key-file", recoveryFile, "--json"])
        #expect(rotate.status == 0, "\(rotate.errorOutput)")
        #expect((try object(rotate)["slots"] as? [[String: Any]])?.count == 2)
        #expect(fileBytes(database).prefix(16) != oldSalt)
        #expect(opens(second) && opens(recoveryKey))
    }

    @Test func rawKeyExportGoesOnlyWhereAskedAndOpensWithoutTheSlotFile() throws {
        try initialise()
        let nowhere = try CLI.run(["keys", "export-raw-key", database, "--key-file", firstFile])
        #expect(nowhere.status == 64)
        #expect(nowhere.output.isEmpty)

        let rawFile = workspace.path("app.rawkey")
        let toFile = try CLI.run(["keys", "export-raw-key", database, "--key-file", firstFile, "--to-file", rawFile])
        #expect(toFile.status == 0, "\(toFile.errorOutput)")
        #expect(toFile.errorOutput.contains("keep it offline"))
        let rawKey = String(decoding: fileBytes(rawFile), as: UTF8.self).trimmingCharacters(in: .newlines)
        #expect(rawKey.count == 96 && rawKey.allSatisfy(\.isHexDigit))
        #expect(!toFile.output.contains(rawKey) && !toFile.errorOutput.contains(rawKey))
        #expect(try FileManager.default.attributesOfItem(atPath: rawFile)[.posixPermissions] as? Int == 0o600)
        // Never over an existing file.
        #expect(try CLI.run(["keys", "export-raw-key", database, "--key-file", firstFile, "--to-file", rawFile]).status == 64)

        let toStandardOutput = try CLI.run(["keys", "export-raw-key", database, "--key-file", firstFile, "--to-stdout"])
        #expect(toStandardOutput.output == rawKey + "\n")
        #expect(toStandardOutput.errorOutput.contains("warning"))

        // Without the slot file, the raw key opens it (the sqlcipher shell's interop is the library's test).
        try FileManager.default.moveItem(atPath: slotFile, toPath: slotFile + ".away")
        #expect(try CLI.run(["verify", database, "--raw-key", "--key-file", rawFile]).status == 0)
        let missing = try CLI.run(["keys", "list", database, "--json"])
        #expect(missing.status == 74)
        let error = try #require(try object(missing)["error"] as? [String: Any])
        #expect(error["kind"] as? String == "slotFileMissing")
        #expect((error["message"] as? String)?.contains("expected at '\(slotFile)'") == true)
        // The file may never have been made: the message says how to make one.
        #expect((error["message"] as? String)?.contains("cipherstore keys init") == true)
    }

    @Test func encryptWithKeySlotsAndInfo() throws {
        let encrypt = try CLI.run(["encrypt", database, "--in-place", "--key-slots", "--key-file", firstFile] + Self.fast)
        #expect(encrypt.status == 0, "\(encrypt.errorOutput)")
        #expect(encrypt.output.contains(slotFile))
        #expect(opens(first))
        #expect(try CLI.run(["encrypt", workspace.path("x.db"), "-o", workspace.path("y.db"), "--key-slots", "--key-file", firstFile]).status == 64)

        let recovery = try CLI.run(["keys", "recovery", database, "--key-file", firstFile, "--json"])
        #expect(recovery.status == 0)
        #expect((try object(recovery)["recoveryKey"] as? String)?.count == 47)

        let info = try CLI.run(["info", database])
        #expect(info.status == 0)
        #expect(info.output.contains("uses key slots: 2 slots in \(slotFile), including 1 recovery key"), "\(info.output)")
        let infoJSON = try CLI.run(["info", "--json", database])
        let slots = try #require(try object(infoJSON)["keySlots"] as? [String: Any])
        #expect(slots["count"] as? Int == 2)
        #expect(slots["recoveryKeys"] as? Int == 1)
        #expect(slots["file"] as? String == slotFile)
        let plain = workspace.path("plain.db")
        let db = try Connection(path: plain, key: nil)
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.close()
        #expect(try object(CLI.run(["info", "--json", plain]))["keySlots"] is NSNull)
        #expect(!(try CLI.run(["info", plain]).output.contains("slots:")))
    }

    @Test func initConvertsAPassphraseDatabaseAndRekeyReadsSlotDatabases() throws {
        let encrypted = workspace.path("enc.db")
        #expect(try CLI.run(["encrypt", database, "-o", encrypted, "--key-file", secondFile, "--quiet"]).status == 0)
        // Both keys on standard input: the current one first.
        let convert = try CLI.run(["keys", "init", encrypted, "--key-stdin", "--new-key-stdin"] + Self.fast,
                                  input: "\(second)\n\(first)\n")
        #expect(convert.status == 0, "\(convert.errorOutput)")
        #expect(FileManager.default.fileExists(atPath: encrypted + ".keys"))
        #expect(try CLI.run(["verify", encrypted, "--key-file", firstFile]).status == 0)
        // A second init is refused, without asking for anything.
        let again = try CLI.run(["keys", "init", encrypted, "--new-key-file", firstFile])
        #expect(again.status == 64 && again.errorOutput.contains("already exists"))

        // rekey in place would orphan the slot file: refused, nothing changed.
        let before = fileBytes(encrypted)
        let inPlace = try CLI.run(["rekey", encrypted, "--in-place", "--old-key-file", firstFile, "--new-key-file", secondFile])
        #expect(inPlace.status == 64 && inPlace.errorOutput.contains("keys change"))
        #expect(fileBytes(encrypted) == before)
        // To a new file: a passphrase database, read through the slots.
        let exported = workspace.path("passphrase.db")
        let rekey = try CLI.run(["rekey", encrypted, "-o", exported, "--old-key-file", firstFile, "--new-key-file", secondFile, "--quiet"])
        #expect(rekey.status == 0, "\(rekey.errorOutput)")
        let db = try Connection(path: exported, key: .passphrase(second))
        #expect(try db.fetchScalar(String.self, sql: "SELECT x FROM t") == "row")
        try db.close()
    }

    @Test func badInputHasTheDocumentedExitCodesAndChangesNothing() throws {
        try initialise()
        let recovery = try object(CLI.run(["keys", "recovery", database, "--key-file", firstFile, "--json"]))
        let recoveryKey = try #require(recovery["recoveryKey"] as? String)
        let slots = fileBytes(slotFile)
        // Wrong passphrase: 65, kind wrongKey.
        let wrong = try CLI.run(["keys", "add", database, "--key-file", secondFile, "--new-key-file", secondFile, "--json"])
        #expect(wrong.status == 65)
        #expect((try object(wrong)["error"] as? [String: Any])?["kind"] as? String == "wrongKey")
        // A recovery key with a typo: 65, says so.
        let typed = recoveryKey.first == "A" ? "B" + recoveryKey.dropFirst() : "A" + recoveryKey.dropFirst()
        let typo = try workspace.keyFile("typo.txt", typed)
        let mistyped = try CLI.run(["verify", database, "--key-file", typo])
        #expect(mistyped.status == 65 && mistyped.errorOutput.contains("typo"), "\(mistyped.errorOutput)")
        // A removal authorised by the slot being removed: 64.
        let own = try CLI.run(["keys", "remove", database, "--slot", "1", "--key-file", firstFile, "--json"])
        #expect(own.status == 64)
        #expect((try object(own)["error"] as? [String: Any])?["kind"] as? String == "removalNeedsAnotherSlot")
        #expect(try CLI.run(["keys", "remove", database, "--slot", "9", "--key-file", firstFile]).status == 64)
        // A raw key opens no slot: 64.
        let raw = try CLI.run(["keys", "change", database, "--key-file", firstFile, "--raw-key", "--new-key-file", secondFile])
        #expect(raw.status == 64 && raw.errorOutput.contains("--raw-key"), "\(raw.errorOutput)")
        #expect(fileBytes(slotFile) == slots)

        // A damaged slot file (a bit flipped): 67.
        var flipped = slots
        flipped[flipped.count - 5] ^= 0x01
        try flipped.write(to: URL(fileURLWithPath: slotFile))
        let damaged = try CLI.run(["verify", database, "--key-file", firstFile, "--json"])
        #expect(damaged.status == 67, "\(damaged.errorOutput)")
        #expect((try object(damaged)["error"] as? [String: Any])?["kind"] as? String == "damaged")
        // Not a slot file: 66.
        try Data("not a slot file".utf8).write(to: URL(fileURLWithPath: slotFile))
        #expect(try CLI.run(["keys", "change", database, "--key-file", firstFile, "--new-key-file", secondFile]).status == 66)
        // Another database's slot file: 66.
        let other = workspace.path("other.db")
        let otherDB = try Connection(path: other, key: nil)
        try otherDB.executeScript("PRAGMA page_size = \(SQLCipherLibrary.defaultPageSize); CREATE TABLE t(x);")
        try otherDB.close()
        #expect(try CLI.run(["keys", "init", other, "--new-key-file", firstFile] + Self.fast).status == 0)
        try FileManager.default.removeItem(atPath: slotFile)
        try FileManager.default.copyItem(atPath: other + ".keys", toPath: slotFile)
        let foreign = try CLI.run(["verify", database, "--key-file", firstFile])
        #expect(foreign.status == 66 && foreign.errorOutput.contains("another database"), "\(foreign.errorOutput)")
        // Missing: 74, with the path where it was expected.
        try FileManager.default.removeItem(atPath: slotFile)
        let missing = try CLI.run(["keys", "add", database, "--key-file", firstFile, "--new-key-file", secondFile])
        #expect(missing.status == 74 && missing.errorOutput.contains("'\(slotFile)'"), "\(missing.errorOutput)")
    }

    @Test func theLastSlotIsNeverRemoved() throws {
        try initialise()
        let last = try CLI.run(["keys", "remove", database, "--slot", "1", "--key-file", firstFile, "--json"])
        #expect(last.status == 64)
        let error = try #require(try object(last)["error"] as? [String: Any])
        #expect(error["kind"] as? String == "lastSlot")
        #expect((error["message"] as? String)?.contains("Add another passphrase or a recovery key first") == true)
        #expect(opens(first))
    }

    /// With the recovery key as the current key (a forgotten passphrase), the new passphrase is
    /// added and the old one's slot stays: the command says so, and how to remove it. A
    /// passphrase that already has a slot is not added again.
    @Test func aChangeWithTheRecoveryKeySaysTheOldPassphraseStillOpens() throws {
        try initialise()
        let recovery = try CLI.run(["keys", "recovery", database, "--key-file", firstFile])
        let recoveryKey = try #require(recovery.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.count == 47 && $0.split(separator: "-").count == 8 })
        let recoveryFile = try workspace.keyFile("recovery.txt", recoveryKey + "\n")
        let change = try CLI.run(["keys", "change", database, "--key-file", recoveryFile, "--new-key-file", secondFile])
        #expect(change.status == 0, "\(change.errorOutput)")
        #expect(change.output.contains("Added the new passphrase") && !change.output.contains("Changed"), "\(change.output)")
        #expect(change.errorOutput.contains("keys remove"), "\(change.errorOutput)")
        #expect(opens(first) && opens(second) && opens(recoveryKey))

        let again = try CLI.run(["keys", "add", database, "--key-file", firstFile, "--new-key-file", secondFile, "--json"] + Self.fast)
        #expect(again.status == 64, "\(again.errorOutput)")
        #expect((try object(again)["error"] as? [String: Any])?["kind"] as? String == "passphraseAlreadyInSlot")
        #expect(try KeySlots.list(path: database).count == 3)
    }

    /// After `decrypt --in-place` the slot file may stay beside the now plaintext database:
    /// rekey says the file is not encrypted, not that it is a slot database.
    @Test func aStaleSlotFileBesideAPlaintextDatabaseIsNotTakenForASlotDatabase() throws {
        try initialise()
        let decrypt = try CLI.run(["decrypt", database, "--in-place", "--key-file", firstFile])
        #expect(decrypt.status == 0, "\(decrypt.errorOutput)")
        #expect(FileManager.default.fileExists(atPath: slotFile))
        let rekey = try CLI.run(["rekey", database, "--in-place", "--old-key-file", firstFile, "--new-key-file", secondFile])
        #expect(rekey.status != 0 && rekey.errorOutput.contains("not encrypted") && !rekey.errorOutput.contains("slot database"),
                "\(rekey.errorOutput)")
    }

    @Test func secretsAreNeverPrinted() throws {
        try initialise()
        var printed = ""
        for arguments in [["keys", "change", database, "--key-file", firstFile, "--new-key-file", secondFile],
                          ["keys", "add", database, "--key-file", secondFile, "--new-key-file", firstFile] + Self.fast,
                          ["keys", "list", database], ["verify", database, "--key-file", firstFile],
                          ["keys", "change", database, "--key-file", firstFile, "--new-key-file", firstFile, "--json"],
                          ["keys", "add", database, "--key-file", secondFile, "--new-key-file", secondFile, "--json"]] {
            let result = try CLI.run(arguments)
            printed += result.output + result.errorOutput
        }
        #expect(!printed.contains(first) && !printed.contains(second))
        #expect(!printed.contains("first passphrase"))
    }

    @Test func newPassphraseIsAskedTwiceWithoutEcho() throws {
        try initialise()
        let run = try Terminal.runCLI(["keys", "change", database, "--key-file", firstFile], typing: ["typed passphrase", "typed passphrase"])
        #expect(run.status == 0, "\(run.screen)")
        #expect(run.screen.contains("Enter the new passphrase: "))
        #expect(run.screen.contains("Enter the new passphrase again: "))
        #expect(!run.screen.contains("typed passphrase"), "echoed: \(run.screen)")
        #expect(opens("typed passphrase") && !opens(first))
    }

    /// Every keys command has its --help and its line in the README; the commands that open a
    /// database say in --help how they open a slot database.
    @Test func theKeysCommandsAreDocumented() throws {
        let readme = try String(contentsOf: ReadmeExampleTests.root.appendingPathComponent("README.md"), encoding: .utf8)
        for command in ["init", "list", "add", "change", "remove", "recovery", "rotate", "export-raw-key"] {
            let help = try CLI.run(["keys", command, "--help"])
            #expect(help.status == 0 && help.output.contains("Exit codes:"), "keys \(command)")
            #expect(readme.contains("cipherstore keys \(command) "), "README: keys \(command)")
        }
        for command in ["verify", "query", "decrypt", "rekey"] {
            #expect(try CLI.run([command, "--help"]).output.contains("slot file is used automatically"), "\(command) --help")
        }
        #expect(try CLI.run(["encrypt", "--help"]).output.contains("--key-slots"))
        #expect(readme.contains("| 66 | not a database, not encrypted, or already encrypted; a slot file"))
    }
    @Test func aRightPassphraseWithOtherSettingsIsToldWhichSettingsOpenTheDatabase() throws {
        let other = SQLCipherLibrary.defaultPageSize == 4096 ? "8192" : "4096"
        #expect(try CLI.run(["keys", "init", database, "--new-key-file", firstFile, "--page-size", other] + Self.fast).status == 0)
        let result = try CLI.run(["verify", database, "--key-file", firstFile, "--json"])
        #expect(result.status == 65)
        #expect(result.errorOutput.contains("The passphrase is right"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("--page-size \(other)"), "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("opens none"), "\(result.errorOutput)")
        // A wrong passphrase is still a wrong key.
        let wrong = try CLI.run(["verify", database, "--key-file", secondFile])
        #expect(wrong.status == 65 && !wrong.errorOutput.contains("The passphrase is right"), "\(wrong.errorOutput)")
        // And with the settings named, it opens.
        #expect(try CLI.run(["verify", database, "--key-file", firstFile, "--page-size", other]).status == 0)
        // rekey and keys rotate name the database's settings --old-…
        let rekey = try CLI.run(["rekey", database, "-o", workspace.path("rekeyed.db"), "--old-key-file", firstFile, "--new-key-file", secondFile])
        #expect(rekey.status == 65 && rekey.errorOutput.contains("--old-page-size \(other)"), "\(rekey.errorOutput)")
        let rotate = try CLI.run(["keys", "rotate", database, "--key-file", firstFile])
        #expect(rotate.status == 65 && rotate.errorOutput.contains("--old-page-size \(other)"), "\(rotate.errorOutput)")
        #expect(try CLI.run(["keys", "rotate", database, "--key-file", firstFile, "--old-page-size", other]).status == 0)
    }
}
