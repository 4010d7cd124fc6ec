import CipherStore
import Foundation
import TestSupport
import Testing

@Suite struct CLITests {
    let workspace: TemporaryDirectory
    let source: String
    let keyFile: String

    init() throws {
        workspace = try TemporaryDirectory()
        source = workspace.path("legacy.db")
        keyFile = try workspace.keyFile("app.key", "correct horse ☂\n")
        let db = try Connection(path: source, key: nil)
        try db.execute(sql: "PRAGMA page_size = \(SQLCipherLibrary.defaultPageSize)")
        try db.executeScript("""
            CREATE TABLE user(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE);
            INSERT INTO user(name) VALUES ('Binger'), ('冰儿');
            PRAGMA user_version = 3;
            """)
        try db.close()
    }

    @Test func encryptVerifyRekeyDecryptEndToEnd() throws {
        let encrypted = workspace.path("app.db")
        let encrypt = try CLI.run(["encrypt", source, "--output", encrypted, "--key-file", keyFile])
        #expect(encrypt.status == 0, "\(encrypt.errorOutput)")
        #expect(encrypt.output.contains("verified"))
        #expect(encrypt.errorOutput.contains("plaintext original"))
        #expect(DatabaseFileInfo.inspect(path: encrypted).kind == .encrypted)

        let verify = try CLI.run(["verify", encrypted, "--key-env", "APP_KEY", "--json"], environment: ["APP_KEY": "correct horse ☂"])
        #expect(verify.status == 0, "\(verify.errorOutput)")
        let json = try JSONSerialization.jsonObject(with: Data(verify.output.utf8)) as? [String: Any]
        #expect(json?["encrypted"] as? Bool == true)
        #expect(json?["userVersion"] as? Int == 3)

        let rekey = try CLI.run(["rotate-key", encrypted, "--in-place", "--old-key-stdin", "--new-key-stdin", "--kdf-iterations", "10000", "--full-check"],
                                input: "correct horse ☂\nnew key\n")
        #expect(rekey.status == 0, "\(rekey.errorOutput)")
        #expect(rekey.output.contains("every page read back"))
        #expect(try CLI.run(["verify", encrypted, "--key-file", keyFile]).status == 65)
        let newKey = try DatabaseKey.passphrase("new key")
        let reopened = try Connection(path: encrypted, key: newKey, configuration: Configuration(cipher: CipherSettings(kdfIterations: 10_000)))
        #expect(try reopened.fetchScalar(String.self, sql: "SELECT name FROM user WHERE id = 2") == "冰儿")

        let decrypted = workspace.path("export.db")
        let decrypt = try CLI.run(["decrypt", encrypted, "-o", decrypted, "--key-stdin", "--kdf-iterations", "10000"], input: "new key\n")
        #expect(decrypt.status == 0, "\(decrypt.errorOutput)")
        #expect(decrypt.errorOutput.contains("PLAINTEXT"))
        #expect(DatabaseFileInfo.inspect(path: decrypted).kind == .plaintext)
    }

    @Test func inPlaceEncryptionWithBackupSaysTheBackupIsPlaintext() throws {
        let original = fileBytes(source)
        let result = try CLI.run(["encrypt-existing-db", source, "--in-place", "--keep-backup", "--key-file", keyFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("PLAINTEXT"))
        #expect(fileBytes(source + ".plaintext-backup") == original)
        #expect(DatabaseFileInfo.inspect(path: source).kind == .encrypted)
    }

    @Test func wrongKeyExitsWith65AndChangesNothing() throws {
        let encrypted = workspace.path("app.db")
        try CLI.run(["encrypt", source, "-o", encrypted, "--key-file", keyFile])
        let before = fileBytes(encrypted)
        let wrong = try workspace.keyFile("wrong.key", "not the key")
        for arguments in [["verify", encrypted, "--key-file", wrong],
                          ["rekey", encrypted, "--in-place", "--old-key-file", wrong, "--new-key-file", keyFile],
                          ["decrypt", encrypted, "-o", workspace.path("x.db"), "--key-file", wrong]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 65, "\(arguments[0]): \(result.errorOutput)")
            #expect(result.errorOutput.contains("key is wrong"))
            #expect(!result.errorOutput.contains("not the key"))
        }
        #expect(fileBytes(encrypted) == before)
        #expect(!FileManager.default.fileExists(atPath: workspace.path("x.db")))
    }

    @Test func aKeyFileOthersCanReadIsWarnedAbout() throws {
        let quiet = try CLI.run(["encrypt", source, "-o", workspace.path("a.db"), "--key-file", keyFile])
        #expect(quiet.status == 0, "\(quiet.errorOutput)")
        #expect(!quiet.errorOutput.contains("readable by group or others"))

        let open = workspace.path("open.key")
        try Data("correct horse ☂\n".utf8).write(to: URL(fileURLWithPath: open))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: open)
        let warned = try CLI.run(["encrypt", source, "-o", workspace.path("b.db"), "--key-file", open])
        #expect(warned.status == 0, "\(warned.errorOutput)")
        #expect(warned.errorOutput.contains("readable by group or others"), "\(warned.errorOutput)")
        #expect(warned.errorOutput.contains("chmod 600"))
        #expect(!warned.errorOutput.contains("correct horse"))

        // A named pipe others may open lets them race the reader for the key: the same
        // advice. One only its owner may open is read without a warning, as a file is.
        for (mode, warns) in [("644", true), ("600", false)] {
            let fifo = workspace.path("key-\(mode).fifo")
            let output = workspace.path("piped-\(mode).db")
            let piped = try CLI.run(["encrypt", source, "-o", output, "--key-file", fifo],
                                    wrapper: ["mkfifo -m \(mode) \(fifo)", "(printf 'correct horse ☂\\n' > \(fifo) &)"])
            #expect(piped.status == 0, "\(piped.errorOutput)")
            #expect(piped.errorOutput.contains("readable by group or others") == warns, "\(mode): \(piped.errorOutput)")
            #expect(!piped.errorOutput.contains("correct horse"))
            let opened = try CLI.run(["verify", output, "--key-file", open])
            #expect(opened.status == 0, "\(opened.errorOutput)")
        }
    }

    @Test func badSourcesGetClearErrorsAndDistinctCodes() throws {
        let empty = workspace.path("empty.db")
        try Data().write(to: URL(fileURLWithPath: empty))
        let text = workspace.path("notes.txt")
        try Data(String(repeating: "plain text\n", count: 200).utf8).write(to: URL(fileURLWithPath: text))
        let encrypted = workspace.path("app.db")
        try CLI.run(["encrypt", source, "-o", encrypted, "--key-file", keyFile])
        let cases: [([String], Int32, String)] = [
            (["encrypt", workspace.path("missing.db"), "-o", workspace.path("o1.db"), "--key-file", keyFile], 74, "does not exist"),
            (["encrypt", workspace.url.path, "-o", workspace.path("o2.db"), "--key-file", keyFile], 74, "is a directory"),
            (["encrypt", empty, "-o", workspace.path("o3.db"), "--key-file", keyFile], 66, "empty"),
            (["encrypt", text, "-o", workspace.path("o4.db"), "--key-file", keyFile], 66, "not a database"),
            (["encrypt", encrypted, "-o", workspace.path("o5.db"), "--key-file", keyFile], 66, "already encrypted"),
            (["rekey", source, "--in-place", "--old-key-file", keyFile, "--new-key-file", keyFile], 66, "it has no key to change"),
            (["decrypt", source, "-o", workspace.path("o6.db"), "--key-file", keyFile], 66, "plaintext"),
            (["encrypt", source, "-o", workspace.path("no/such/dir/o7.db"), "--key-file", keyFile], 74, "missing or not writable"),
            (["encrypt", source, "-o", encrypted, "--key-file", keyFile], 64, "already exists"),
            (["encrypt", source, "-o", source, "--key-file", keyFile], 64, "is the source"),
            (["encrypt", source, "--key-file", keyFile], 64, "--output PATH or --in-place"),
            (["encrypt", source, "-o", workspace.path("o8.db"), "--key-file", workspace.path("nokey")], 74, "Cannot read the key file"),
            (["encrypt", source, "-o", workspace.path("o9.db"), "--key-env", "CIPHERSTORE_UNSET_VARIABLE"], 64, "is not set"),
            (["encrypt", source, "-o", workspace.path("o10.db"), "--key-file", keyFile, "--page-size", "1000"], 64, "power of two"),
        ]
        let sourceBefore = fileBytes(source)
        for (arguments, status, message) in cases {
            let result = try CLI.run(arguments)
            #expect(result.status == status, "\(arguments): \(result.errorOutput)")
            #expect(result.errorOutput.contains(message), "\(arguments): \(result.errorOutput)")
        }
        #expect(fileBytes(source) == sourceBefore)
        let created = try FileManager.default.contentsOfDirectory(atPath: workspace.url.path).filter { $0.hasPrefix("o") || $0.contains("cipherstore-") }
        #expect(created.isEmpty, "left behind: \(created)")
    }

    @Test func outputThatIsTheSourceThroughALinkIsRefused() throws {
        let symlink = workspace.path("symlink.db")
        let hardLink = workspace.path("hardlink.db")
        try FileManager.default.createSymbolicLink(atPath: symlink, withDestinationPath: source)
        try FileManager.default.linkItem(atPath: source, toPath: hardLink)
        for output in [symlink, hardLink] {
            let result = try CLI.run(["encrypt", source, "-o", output, "--force", "--key-file", keyFile])
            #expect(result.status == 64)
            #expect(result.errorOutput.contains("is the source"))
        }
        #expect(DatabaseFileInfo.inspect(path: source).kind == .plaintext)
    }

    @Test func forceReplacesAnExistingOutput() throws {
        let output = workspace.path("out.db")
        try Data("old".utf8).write(to: URL(fileURLWithPath: output))
        let result = try CLI.run(["encrypt", source, "-o", output, "--force", "--key-file", keyFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(DatabaseFileInfo.inspect(path: output).kind == .encrypted)
    }

    /// A STRICT table (SQLite 3.37) made by the system's sqlite3.
    private func makeStrictTable() throws -> String {
        let strict = workspace.path("strict.db")
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        make.arguments = ["sqlite3", strict, "CREATE TABLE t(x INTEGER) STRICT; INSERT INTO t VALUES (1);"]
        try make.run()
        make.waitUntilExit()
        try #require(make.terminationStatus == 0, "the system sqlite3 (3.37+) makes STRICT tables")
        return strict
    }

    @Test(.enabled(if: !linkedSQLiteHasStrictTables, "a SQLite before 3.37 only (SQLCipher 3.4.1); counterpart: strictTablesConvertWithANewerSQLite"))
    func tooNewSQLiteFeaturesAreReportedWithoutChanges() throws {
        let strict = try makeStrictTable()
        let before = fileBytes(strict)
        let result = try CLI.run(["encrypt", strict, "-o", workspace.path("o.db"), "--key-file", keyFile])
        #expect(result.status == 66, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("newer than the linked SQLite"))
        #expect(fileBytes(strict) == before)
        #expect(!FileManager.default.fileExists(atPath: workspace.path("o.db")))
    }

    @Test(.enabled(if: linkedSQLiteHasStrictTables, "SQLite 3.37 or later only (SQLCipher 4.6.1); counterpart: tooNewSQLiteFeaturesAreReportedWithoutChanges"))
    func strictTablesConvertWithANewerSQLite() throws {
        let strict = try makeStrictTable()
        let output = workspace.path("o.db")
        let result = try CLI.run(["encrypt", strict, "-o", output, "--key-file", keyFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        let db = try Connection(path: output, key: .passphrase("correct horse ☂"))
        #expect(try db.fetchScalar(String.self, sql: "SELECT sql FROM sqlite_master WHERE name = 't'")?.hasSuffix("STRICT") == true)
        #expect(throws: (any Error).self) { try db.execute(sql: "INSERT INTO t VALUES ('not an integer')") }
    }

    @Test func aSecondRunWhileTheSourceIsLockedIsRefused() throws {
        // A running conversion holds this same lock (BEGIN IMMEDIATE) on its source.
        let holder = try Connection(path: source, key: nil)
        try holder.beginTransaction(.immediate)
        let result = try CLI.run(["encrypt", source, "-o", workspace.path("o.db"), "--key-file", keyFile])
        #expect(result.status == 74)
        #expect(result.errorOutput.contains("in use"))
        try holder.rollback()
        #expect(!FileManager.default.fileExists(atPath: workspace.path("o.db")))
    }

    @Test func diskFullDuringTheWriteLeavesNothingBehind() throws {
        let large = workspace.path("large.db")
        let db = try Connection(path: large, key: nil)
        try db.execute(sql: "CREATE TABLE big(body TEXT)")
        try db.execute(sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) INSERT INTO big SELECT printf('%01000d', i) FROM n")
        try db.close()
        let before = fileBytes(large)
        // A file-size limit makes writes past 512 KB fail with EFBIG, as a full disk does.
        let result = try CLI.run(["encrypt", large, "-o", workspace.path("o.db"), "--key-file", keyFile],
                                 wrapper: ["trap '' XFSZ", "ulimit -f 512"])
        #expect(result.status == 74, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("The source was not changed. Check free space"))
        #expect(fileBytes(large) == before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: workspace.url.path).filter { $0.hasPrefix("o") || $0.contains("cipherstore-") }
        #expect(leftovers.isEmpty, "left behind: \(leftovers)")
    }

    @Test func everyCommandExplainsItselfWithAnExample() throws {
        for command in ["encrypt", "decrypt", "rekey", "verify", "info"] {
            let help = try CLI.run([command, "--help"])
            #expect(help.status == 0)
            #expect(help.output.contains("Example"), "\(command)")
        }
        #expect(try CLI.run(["--help"]).output.contains("65 wrong key"))
    }

    /// `encrypt --help` keeps the common options and the examples; the rarer options are in
    /// `--help-hidden`.
    @Test func encryptsHelpIsShortAndTheRareOptionsAreInHelpHidden() throws {
        let help = try CLI.run(["encrypt", "--help"])
        #expect(help.status == 0)
        let lines = help.output.split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(lines <= 100, "encrypt --help is \(lines) lines")
        for common in ["--output", "--in-place", "--key-file", "--key-stdin", "--key-slots", "--page-size", "--full-check", "Examples:", "help-hidden"] {
            #expect(help.output.contains(common), "\(common)")
        }
        let hidden = try CLI.run(["encrypt", "--help-hidden"])
        for rare in ["--plaintext-header", "--salt", "--kdf-algorithm", "--hmac-pgno", "--slot-kdf-ms", "--page-cache-mib"] {
            #expect(!help.output.contains(rare), "\(rare) in --help")
            #expect(hidden.output.contains(rare), "\(rare) in --help-hidden")
        }
    }

    @Test func infoTellsTheKindsApart() throws {
        let plain = try CLI.run(["info", source, "--json"])
        #expect(plain.output.contains("\"kind\":\"plaintext\""))
        #expect(plain.output.contains("\"ok\":true") && plain.output.contains("\"command\":\"info\""), "\(plain.output)")
        #expect(try CLI.run(["info", workspace.path("missing")]).status == 74)
        // The same shape as every other command's --json, on failure too.
        let missing = try CLI.run(["info", workspace.path("missing"), "--json"])
        #expect(missing.status == 74)
        let failure = try #require(try JSONSerialization.jsonObject(with: Data(missing.output.utf8)) as? [String: Any])
        #expect(failure["ok"] as? Bool == false)
        #expect((failure["error"] as? [String: Any])?["exitCode"] as? Int == 74)
    }
}

/// STRICT tables arrived in SQLite 3.37: SQLCipher 3.4.1 has SQLite 3.15.2, SQLCipher 4.6.1 has 3.46.1.
let linkedSQLiteHasStrictTables = SQLCipherLibrary.sqliteVersion.compare("3.37.0", options: .numeric) != .orderedAscending
