import CipherStore
import Foundation
import TestSupport
import Testing

/// What the tool prints reads as written for its user: options, not Swift parameters; "1 row";
/// MiB for powers of 1024; one prefix per message; the exit codes in `--help`.
@Suite struct WordingTests {
    let workspace: TemporaryDirectory
    let source: String
    let keyFile: String

    init() throws {
        workspace = try TemporaryDirectory()
        source = workspace.path("one.db")
        keyFile = try workspace.keyFile("app.key", "wording key\n")
        let db = try Connection(path: source, key: nil)
        try db.execute(sql: "PRAGMA page_size = \(SQLCipherLibrary.defaultPageSize)")
        try db.executeScript("CREATE TABLE only(x); INSERT INTO only VALUES (1);")
        try db.close()
    }

    @Test func anExistingOutputNamesTheOptionNotTheParameter() throws {
        let output = workspace.path("out.db")
        try Data("old".utf8).write(to: URL(fileURLWithPath: output))
        let result = try CLI.run(["encrypt", source, "-o", output, "--key-file", keyFile])
        #expect(result.status == 64)
        #expect(result.errorOutput.contains("pass --force to replace it"), "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("overwrite"), "\(result.errorOutput)")
    }

    @Test func otherHardLinksNameTheOptionsNotTheParameter() throws {
        try FileManager.default.linkItem(atPath: source, toPath: workspace.path("other.db"))
        let result = try CLI.run(["encrypt", source, "--in-place", "--key-file", keyFile])
        #expect(result.status == 64)
        #expect(result.errorOutput.contains("write to a new file with --output, or pass --force"), "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("replacingOtherLinks"), "\(result.errorOutput)")
    }

    @Test func theLibrarySaysTheSwiftParameters() {
        #expect(DatabaseFileError.outputExists(path: "a.db").description.contains("`overwrite: true`"))
        #expect(!DatabaseFileError.outputExists(path: "a.db").description.contains("--force"))
        let links = DatabaseFileError.sourceHasOtherNames(path: "a.db", nameCount: 2, namesFound: ["b.db"]).description
        #expect(links.contains("`replacingOtherLinks: true`") && !links.contains("--"), "\(links)")
    }

    @Test func everyRemedyIsSpelledByTheCallerNotRewritten() throws {
        // Each way out a message offers comes from the library as a Remedy: a caller's own
        // spelling replaces it whole, and nothing of the Swift spelling is left.
        let marked: (Remedy) -> String = { "<\($0)>" }
        let messages = [
            DatabaseFileError.outputExists(path: "a.db").message(spelling: marked),
            DatabaseFileError.sourceHasOtherNames(path: "a.db", nameCount: 2, namesFound: ["b.db"]).message(spelling: marked),
            CipherStoreError.passphraseShapedLikeRawKey.message(spelling: marked),
            DatabaseFileError.outputIsSource(path: "a.db").message(spelling: marked),
            DatabaseFileError.damaged(path: "a.db", detail: "a page is lost").message(spelling: marked),
            CipherStoreError.wrongKey(path: "a.db").message(spelling: marked),
            BackupError.targetDamaged(path: "a.db", detail: "malformed").message(spelling: marked),
            BackupError.targetUnreadable(path: "a.db", detail: "a wrong key").message(spelling: marked),
            try keyPragmaRefusal().message(spelling: marked),
            RepairError.nothingReadable(path: "a.db", pageCount: 3).message(spelling: marked),
            BackupError.plaintextRefused.message(spelling: marked),
            DatabaseError(resultCode: .SQLITE_BUSY, message: "database is locked").message(spelling: marked),
        ]
        // SQLCipher 4 alone says how to open and upgrade a SQLCipher 3 file, in the wrong-key message.
        let wrongKey = CipherStoreError.wrongKey(path: "a.db").message(spelling: marked)
        let versionSpecific: [(Remedy, String)] = SQLCipherLibrary.sqlcipherMajorVersion >= 4 ? [(.sqlcipher3Settings, wrongKey), (.upgrade, wrongKey)] : []
        #expect(messages.count + 2 == Remedy.allCases.count)
        for (remedy, message) in zip(Remedy.allCases, messages) + versionSpecific {
            #expect(message.contains("<\(remedy)>"), "\(message)")
            #expect(!message.contains(remedy.swiftSpelling), "\(message)")
        }
        #expect(CipherStoreError.passphraseShapedLikeRawKey.description.contains(Remedy.rawKey.swiftSpelling))
        // A remedy the caller does not offer is left out, sentence and all.
        let none = DatabaseFileError.outputExists(path: "a.db").message { _ in nil }
        #expect(none.hasSuffix("Choose another output.") && !none.contains("overwrite"), "\(none)")
        #expect(CipherStoreError.passphraseShapedLikeRawKey.message { _ in nil }.hasSuffix("Choose another passphrase."))
        #expect(DatabaseFileError.outputIsSource(path: "a.db").message { _ in nil }.hasSuffix("Choose another output."))
        #expect(DatabaseFileError.damaged(path: "a.db", detail: "a page is lost").message { _ in nil }.hasSuffix("whether a copy is sound)."))
        #expect(CipherStoreError.passphraseShapedLikeRawKey.keyProblem(spelling: \.swiftSpelling)?.hasPrefix("the passphrase has the form") == true)
        #expect(CipherStoreError.connectionClosed.keyProblem(spelling: \.swiftSpelling) == nil)
    }

    /// The error SQLite gives a `PRAGMA rekey` in SQL text.
    func keyPragmaRefusal() throws -> DatabaseError {
        let db = try Connection(path: source, key: nil)
        defer { try? db.close() }
        do {
            try db.execute(sql: "PRAGMA rekey = 'other'")
        } catch let error as DatabaseError {
            return error
        }
        throw CipherStoreError.invalidConfiguration(reason: "PRAGMA rekey was not refused")
    }

    @Test func messagesTheToolPrintsNameItsCommandsNotSwiftAPIs() throws {
        let keyFile = try workspace.keyFile("raw.key", String(repeating: "3c", count: 32))
        let encrypted = workspace.path("enc.db")
        try #require(try CLI.run(["encrypt", source, "-o", encrypted, "--raw-key", "--key-file", keyFile]).status == 0)
        let swiftNames = ["DatabaseFile", "DatabaseKey", "CipherSettings", "KeySlots", "Configuration.", "DatabaseRepair", "overwrite:"]
        let pragma = try CLI.run(["query", encrypted, "PRAGMA rekey = 'other'", "--write", "--raw-key", "--key-file", keyFile])
        #expect(pragma.status == 1, "\(pragma.errorOutput)")
        #expect(pragma.errorOutput.contains("change it with `cipherstore rekey`"), "\(pragma.errorOutput)")
        let wrong = try workspace.keyFile("wrong.key", String(repeating: "00", count: 32))
        let repair = try CLI.run(["repair", encrypted, "-o", workspace.path("r.db"), "--raw-key", "--key-file", wrong])
        #expect(repair.errorOutput.contains("pass --salt"), "\(repair.errorOutput)")
        let verify = try CLI.run(["verify", encrypted, "--raw-key", "--key-file", wrong])
        #expect(verify.status == 65, "\(verify.errorOutput)")
        for output in [pragma.errorOutput, repair.errorOutput, verify.errorOutput] {
            for name in swiftNames { #expect(!output.contains(name), "\(name) in \(output)") }
        }
    }

    @Test func oneTableOneRowAndMebibytes() throws {
        let encrypt = try CLI.run(["encrypt", source, "-o", workspace.path("enc.db"), "--key-file", keyFile])
        #expect(encrypt.status == 0, "\(encrypt.errorOutput)")
        #expect(encrypt.output.contains(": 1 table, 1 row, "), "\(encrypt.output)")
        #expect(encrypt.output.contains(" MiB in "), "\(encrypt.output)")
        #expect(!encrypt.output.contains(" MB"), "\(encrypt.output)")

        let verify = try CLI.run(["verify", source])
        #expect(verify.status == 0, "\(verify.errorOutput)")
        #expect(verify.output.contains("  only: 1 row\n") || verify.output.hasSuffix("  only: 1 row"), "\(verify.output)")
        #expect(!verify.output.contains("1 rows") && !verify.output.contains("1 tables"), "\(verify.output)")
    }

    @Test func anUnusableKeyIsNamedOnce() throws {
        let result = try CLI.run(["encrypt", source, "-o", workspace.path("x.db"), "--raw-key", "--key-stdin"], input: "abc\n")
        #expect(result.status == 64)
        #expect(result.errorOutput.contains("The key cannot be used: a raw key must be 64 hexadecimal digits"), "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("Invalid key"), "\(result.errorOutput)")
        let encrypted = workspace.path("enc.db")
        #expect(try CLI.run(["encrypt", source, "-o", encrypted, "--key-file", keyFile]).status == 0)
        let rekey = try CLI.run(["rekey", encrypted, "--in-place", "--old-key-file", keyFile, "--new-raw-key", "--new-key-stdin"], input: "xyz\n")
        #expect(rekey.status == 64)
        #expect(rekey.errorOutput.contains("The new key cannot be used: "), "\(rekey.errorOutput)")
    }

    @Test func aPassphraseShapedLikeARawKeyPointsToTheRawKeyOptionOfThatKey() throws {
        let result = try CLI.run(["encrypt", source, "-o", workspace.path("x.db"), "--key-stdin"], input: "x'00112233'\n")
        #expect(result.status == 64)
        #expect(result.errorOutput.contains("If it is a raw key, pass --raw-key and give its hex digits alone, without x'…'"), "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("DatabaseKey"), "\(result.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: workspace.path("x.db")))

        // rekey names the flag of the key that was shaped so.
        let encrypted = workspace.path("enc.db")
        #expect(try CLI.run(["encrypt", source, "-o", encrypted, "--key-file", keyFile]).status == 0)
        let rekey = try CLI.run(["rekey", encrypted, "--in-place", "--old-key-file", keyFile, "--new-key-stdin"], input: "x'0011'\n")
        #expect(rekey.status == 64)
        #expect(rekey.errorOutput.contains("The new key cannot be used: ") && rekey.errorOutput.contains("pass --new-raw-key and give"), "\(rekey.errorOutput)")

        // Following the advice works: the hex digits alone, with the raw-key flag.
        let hex = String(repeating: "5a", count: 32)
        let shaped = try CLI.run(["encrypt", source, "-o", workspace.path("raw.db"), "--key-stdin"], input: "x'\(hex)'\n")
        #expect(shaped.status == 64)
        let followed = try CLI.run(["encrypt", source, "-o", workspace.path("raw.db"), "--raw-key", "--key-stdin"], input: hex + "\n")
        #expect(followed.status == 0, "\(followed.errorOutput)")
    }

    @Test func commandsWithoutForceOrOutputOfferNeither() throws {
        // keys init rewrites in place and takes neither --force nor --output: the message
        // names only what that command can do.
        let linked = workspace.path("linked.db")
        try FileManager.default.copyItem(atPath: source, toPath: linked)
        try FileManager.default.linkItem(atPath: linked, toPath: workspace.path("second-name.db"))
        let passphrase = try workspace.keyFile("slot", "wording slot passphrase")
        let result = try CLI.run(["keys", "init", linked, "--new-key-file", passphrase, "--slot-kdf-ms", "10"])
        #expect(result.status == 64, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("Remove the other names first."), "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("--force") && !result.errorOutput.contains("--output"), "\(result.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: linked + ".keys"))
    }

    @Test func anEmptyArgumentIsAUsageError() throws {
        for command in [["encrypt", "", "--in-place"], ["verify", ""], ["info", ""], ["query", source, ""]] {
            let result = try CLI.run(command + ["--key-file", keyFile])
            #expect(result.status == 64, "\(command): \(result.errorOutput)")
            #expect(result.errorOutput.contains("An argument is empty"), "\(result.errorOutput)")
        }
    }

    @Test func everyHelpListsEveryExitCode() throws {
        for command in [[], ["encrypt"], ["decrypt"], ["rekey"], ["verify"], ["query"]] {
            let help = try CLI.run(command + ["--help"]).output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            for code in ["0 success", "64 usage error", "65 wrong key", "66 not a database", "67 damaged", "74 I/O failure", "130 cancelled"] {
                #expect(help.contains(code), "\(command): \(code)")
            }
        }
    }

    @Test func theTopLevelHelpListsEveryExitCodeTheToolUses() throws {
        let help = try CLI.run(["--help"]).output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for code in ["0 success", "1 the SQL statement failed (query", "64 usage error", "65 wrong key", "66 not a database", "67 damaged",
                     "68 repaired, but not everything could be read or put back (repair", "74 I/O failure",
                     "75 done but not confirmed on disk", "130 cancelled", "143 by SIGTERM", "129 by SIGHUP", "131 by SIGQUIT"] {
            #expect(help.contains(code), "\(code)")
        }
    }

    @Test func twoStatementsInExecuteSayWhatToDoInstead() throws {
        let db = try Connection(path: source, key: nil)
        defer { try? db.close() }
        do {
            try db.execute(sql: "INSERT INTO only VALUES (?); INSERT INTO only VALUES (?)", arguments: [2, 3])
            Issue.record("two statements ran")
        } catch let error as CipherStoreError {
            #expect(error.description.contains("more than one statement"), "\(error)")
            #expect(error.description.contains("executeScript"), "\(error)")
            #expect(!error.description.lowercased().contains("one value per parameter"), "\(error)")
        }
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM only") == 1)
        let query = try CLI.run(["query", source, "SELECT 1; SELECT 2"])
        #expect(query.status == 1)
        #expect(query.errorOutput.contains("more than one"), "\(query.errorOutput)")
        #expect(!query.errorOutput.lowercased().contains("one value per parameter"), "\(query.errorOutput)")
    }
}
