import CipherStore
import Foundation
import TestSupport
import Testing

/// `--json`: one object on standard output, the same shape on success and failure, the exit
/// code unchanged, and never a key.
@Suite struct JSONOutputTests {
    let workspace: TemporaryDirectory
    let source: String
    let keyFile: String
    let passphrase = "json passphrase ☂"

    init() throws {
        workspace = try TemporaryDirectory()
        source = workspace.path("plain.db")
        keyFile = try workspace.keyFile("app.key", passphrase + "\n")
        let db = try Connection(path: source, key: nil)
        try db.execute(sql: "PRAGMA page_size = \(SQLCipherLibrary.defaultPageSize)")
        try db.executeScript("""
            CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);
            CREATE TABLE tag(name TEXT);
            INSERT INTO note(body) VALUES ('a'), ('b'), ('c');
            INSERT INTO tag VALUES ('x');
            """)
        try db.close()
    }

    /// The one object standard output holds, with nothing before or after it.
    func object(_ result: ProcessResult) throws -> [String: Any] {
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        try #require(lines.count == 2 && lines[1].isEmpty, "one line of JSON expected, got: \(result.output)")
        let parsed = try JSONSerialization.jsonObject(with: Data(lines[0].utf8))
        return try #require(parsed as? [String: Any])
    }

    func expectFailure(_ result: ProcessResult, command: String, kind: String, status: Int32) throws {
        #expect(result.status == status, "\(result.errorOutput)")
        let json = try object(result)
        #expect(json["ok"] as? Bool == false)
        #expect(json["command"] as? String == command)
        let error = try #require(json["error"] as? [String: Any])
        #expect(error["kind"] as? String == kind, "\(error)")
        #expect(error["exitCode"] as? Int == Int(status))
        let message = try #require(error["message"] as? String)
        // The same text as on standard error, where a human reads it.
        #expect(!message.isEmpty && result.errorOutput.contains(message))
        #expect(!result.output.contains(passphrase))
    }

    @Test func verifySuccessHasTheReportsFacts() throws {
        let result = try CLI.run(["verify", source, "--json"])
        #expect(result.status == 0, "\(result.errorOutput)")
        let json = try object(result)
        #expect(json["ok"] as? Bool == true)
        #expect(json["command"] as? String == "verify")
        #expect(json["path"] as? String == source)
        #expect(json["verified"] as? Bool == true)
        #expect(json["encrypted"] as? Bool == false)
        #expect(json["rows"] as? Int == 4)
        #expect(json["pageSize"] as? Int == SQLCipherLibrary.defaultPageSize)
        #expect(json["kdfIterations"] is NSNull)
        let tables = try #require(json["tables"] as? [[String: Any]])
        #expect(tables.map { $0["name"] as? String } == ["note", "tag"])
        #expect(tables.map { $0["rows"] as? Int } == [3, 1])
    }

    @Test func verifyFailuresPrintTheFailureObject() throws {
        let encrypted = workspace.path("enc.db")
        #expect(try CLI.run(["encrypt", source, "-o", encrypted, "--key-file", keyFile]).status == 0)
        let wrong = try workspace.keyFile("wrong.key", "wrong key")
        try expectFailure(try CLI.run(["verify", encrypted, "--key-file", wrong, "--json"]), command: "verify", kind: "wrongKey", status: 65)
        try expectFailure(try CLI.run(["verify", workspace.path("missing.db"), "--json"]), command: "verify", kind: "sourceMissing", status: 74)
        try expectFailure(try CLI.run(["verify", encrypted, "--key-env", "CIPHERSTORE_UNSET_VARIABLE", "--json"]), command: "verify", kind: "usage", status: 64)
    }

    @Test func encryptRekeyDecryptSucceedWithTheSummarysFacts() throws {
        let encrypted = workspace.path("enc.db")
        let encrypt = try CLI.run(["encrypt", source, "-o", encrypted, "--key-file", keyFile, "--kdf-iterations", "12000", "--json"])
        #expect(encrypt.status == 0, "\(encrypt.errorOutput)")
        let encrypted1 = try object(encrypt)
        #expect(encrypted1["ok"] as? Bool == true)
        #expect(encrypted1["command"] as? String == "encrypt")
        #expect(encrypted1["path"] as? String == source)
        #expect(encrypted1["output"] as? String == encrypted)
        #expect(encrypted1["encrypted"] as? Bool == true)
        #expect(encrypted1["rows"] as? Int == 4)
        #expect((encrypted1["tables"] as? [Any])?.count == 2)
        #expect(encrypted1["kdfIterations"] as? Int == 12_000)
        #expect(encrypted1["pageSize"] as? Int == SQLCipherLibrary.defaultPageSize)
        #expect(encrypted1["verified"] as? Bool == true)
        #expect(encrypted1["checks"] as? [String] == ["integrity check", "schema", "every row with its rowid"])
        #expect((encrypted1["outputBytes"] as? Int ?? 0) > 0)
        #expect((encrypted1["warnings"] as? [String])?.first?.contains("plaintext original") == true)
        // Warnings stay on standard error too; the human summary is not printed.
        #expect(encrypt.errorOutput.contains("plaintext original"))
        #expect(!encrypt.output.contains("Encrypted "))
        #expect(!encrypt.output.contains(passphrase))

        let newKey = try workspace.keyFile("new.key", "another passphrase\n")
        let rekey = try CLI.run(["rekey", encrypted, "--in-place", "--old-key-file", keyFile, "--old-kdf-iterations", "12000",
                                 "--new-key-file", newKey, "--full-check", "--json"])
        #expect(rekey.status == 0, "\(rekey.errorOutput)")
        let rekeyed = try object(rekey)
        #expect(rekeyed["command"] as? String == "rekey")
        #expect(rekeyed["output"] as? String == encrypted)
        #expect(rekeyed["checks"] as? [String] == ["integrity check", "schema", "every row with its rowid", "every page read back"])
        #expect(rekeyed["kdfIterations"] as? Int != nil)

        let decrypted = workspace.path("out.db")
        let decrypt = try CLI.run(["decrypt", encrypted, "-o", decrypted, "--key-file", newKey,
                                   "--kdf-iterations", String(rekeyed["kdfIterations"] as? Int ?? 0), "--json"])
        #expect(decrypt.status == 0, "\(decrypt.errorOutput)")
        let plain = try object(decrypt)
        #expect(plain["command"] as? String == "decrypt")
        #expect(plain["encrypted"] as? Bool == false)
        #expect(plain["kdfIterations"] is NSNull)
        #expect(plain["rows"] as? Int == 4)
        #expect((plain["warnings"] as? [String])?.contains { $0.contains("PLAINTEXT") } == true)
    }

    @Test func conversionFailuresPrintTheFailureObjectWithTheSameExitCode() throws {
        let encrypted = workspace.path("enc.db")
        #expect(try CLI.run(["encrypt", source, "-o", encrypted, "--key-file", keyFile]).status == 0)
        let wrong = try workspace.keyFile("wrong.key", "wrong key")
        try expectFailure(try CLI.run(["encrypt", source, "-o", encrypted, "--key-file", keyFile, "--json"]),
                          command: "encrypt", kind: "outputExists", status: 64)
        try expectFailure(try CLI.run(["encrypt", encrypted, "-o", workspace.path("x.db"), "--key-file", keyFile, "--json"]),
                          command: "encrypt", kind: "alreadyEncrypted", status: 66)
        try expectFailure(try CLI.run(["decrypt", encrypted, "-o", workspace.path("y.db"), "--key-file", wrong, "--json"]),
                          command: "decrypt", kind: "wrongKey", status: 65)
        try expectFailure(try CLI.run(["rekey", encrypted, "--in-place", "--old-key-file", wrong, "--new-key-file", keyFile, "--json"]),
                          command: "rekey", kind: "wrongKey", status: 65)
        try expectFailure(try CLI.run(["encrypt", source, "-o", workspace.path("z.db"), "--raw-key", "--key-stdin", "--json"], input: "abc\n"),
                          command: "encrypt", kind: "usage", status: 64)
        #expect(!FileManager.default.fileExists(atPath: workspace.path("x.db")))
        #expect(!FileManager.default.fileExists(atPath: workspace.path("y.db")))
        #expect(!FileManager.default.fileExists(atPath: workspace.path("z.db")))
    }

    @Test func optionsThatContradictEachOtherAreRefusedAsJSON() throws {
        try expectFailure(try CLI.run(["encrypt", source, "--key-file", keyFile, "--json"]), command: "encrypt", kind: "usage", status: 64)
        try expectFailure(try CLI.run(["decrypt", source, "-o", workspace.path("o.db"), "--in-place", "--key-file", keyFile, "--json"]),
                          command: "decrypt", kind: "usage", status: 64)
        try expectFailure(try CLI.run(["encrypt", source, "-o", workspace.path("o.db"), "--keep-backup", "--key-file", keyFile, "--json"]),
                          command: "encrypt", kind: "usage", status: 64)
        #expect(DatabaseFileInfo.inspect(path: source).kind == .plaintext)
        #expect(!FileManager.default.fileExists(atPath: workspace.path("o.db")))
    }

    /// Arguments the parser cannot read, and those refused before it runs, get the failure
    /// object too; help stays text.
    @Test func commandLinesThatCannotBeReadAreRefusedAsJSON() throws {
        let cases: [(arguments: [String], command: String, says: String)] = [
            (["verify", source, "--bogus", "--json"], "verify", "--bogus"),
            (["keys", "add", "--json"], "keys add", "Missing expected argument"),
            (["encrypt", "--json", "-odd.db"], "encrypt", "./-odd.db"),
            (["rekey", "", "--json"], "rekey", "empty"),
        ]
        for (arguments, command, says) in cases {
            let result = try CLI.run(arguments)
            try expectFailure(result, command: command, kind: "usage", status: 64)
            let json = try object(result)
            #expect(json["path"] is NSNull, "\(json)")
            let message = (json["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.contains(says), "\(json)")
        }
        // Without --json, text only; --help prints its text and exits 0.
        #expect(try CLI.run(["verify", source, "--bogus"]).output.isEmpty)
        let help = try CLI.run(["verify", "--help", "--json"])
        #expect(help.status == 0 && help.output.contains("USAGE"), "\(help.output)")
        // `help` takes no --json: the parser's text, no JSON object.
        let helpCommand = try CLI.run(["help", "verify", "--json"])
        #expect(!helpCommand.output.contains("{") && helpCommand.errorOutput.contains("--json"), "\(helpCommand.output)")
    }

    @Test func theREADMEShowsTheFieldsThereAre() throws {
        let readme = try String(contentsOf: ReadmeExampleTests.root.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "```json\n"))
        let end = try #require(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        let examples = try readme[start.upperBound..<end.lowerBound].components(separatedBy: "\n\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        try #require(examples.count == 2)

        let encrypt = try object(try CLI.run(["encrypt", source, "-o", workspace.path("enc.db"), "--key-file", keyFile, "--json"]))
        #expect(Set(examples[0].keys) == Set(encrypt.keys))
        let missing = try object(try CLI.run(["verify", workspace.path("missing.db"), "--json"]))
        #expect(Set(examples[1].keys) == Set(missing.keys))
        #expect(Set((examples[1]["error"] as? [String: Any])?.keys ?? [:].keys) == Set((missing["error"] as? [String: Any])?.keys ?? [:].keys))
    }

    @Test func helpDescribesTheShape() throws {
        for command in ["verify", "encrypt", "decrypt", "rekey"] {
            // Words joined again where the help text wraps.
            let help = try CLI.run([command, "--help"]).output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(help.contains("{\"ok\": false, \"command\": …, \"path\": …, \"error\": {\"kind\": …, \"message\": …, \"exitCode\": …}}"), "\(command)")
        }
    }
}
