import CipherStore
import Foundation
import TestSupport
import Testing

/// `cipherstore query`: one statement on an encrypted file, its key kept out of SQL.
@Suite struct QueryTests {
    let workspace: TemporaryDirectory
    let database: String
    let keyFile: String

    init() throws {
        workspace = try TemporaryDirectory()
        database = workspace.path("app.db")
        keyFile = try workspace.keyFile("app.key", "query secret\n")
        let db = try Connection(path: database, key: .passphrase("query secret"))
        try db.executeScript("""
            CREATE TABLE user(id INTEGER PRIMARY KEY, name TEXT, photo BLOB, score REAL);
            INSERT INTO user VALUES (1, 'Binger', x'00ff', 1.5), (2, '冰儿, "quoted"', NULL, NULL);
            """)
        try db.close()
    }

    @Test func printsAnAlignedTableCSVAndJSON() throws {
        let table = try CLI.run(["query", database, "SELECT id, name, photo FROM user ORDER BY id", "--key-file", keyFile])
        #expect(table.status == 0, "\(table.errorOutput)")
        #expect(table.output == """
            id  name          photo
            --  ------------  -------
            1   Binger        x'00ff'
            2   冰儿, "quoted"  NULL
            (2 rows)

            """)

        let csv = try CLI.run(["query", database, "SELECT id, name, photo FROM user ORDER BY id", "--key-file", keyFile, "--format", "csv"])
        #expect(csv.output == "id,name,photo\n1,Binger,x'00ff'\n2,\"冰儿, \"\"quoted\"\"\",NULL\n")

        let json = try CLI.run(["query", database, "SELECT * FROM user ORDER BY id", "--key-file", keyFile, "--format", "json"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        #expect(rows.count == 2)
        #expect(rows[0]["photo"] as? String == "AP8=")
        #expect(rows[1]["name"] as? String == "冰儿, \"quoted\"")
        #expect(rows[1]["score"] is NSNull)
    }

    @Test func takesTheSQLFromStandardInput() throws {
        let result = try CLI.run(["query", database, "--key-file", keyFile, "--format", "csv"], input: "SELECT count(*) AS n FROM user\n")
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output == "n\n2\n")
        let both = try CLI.run(["query", database, "--key-stdin"], input: "query secret\nSELECT 1\n")
        #expect(both.status == 64)
        #expect(both.errorOutput.contains("cannot both come from standard input"))
    }

    @Test func isReadOnlyUnlessWriteIsGiven() throws {
        let before = fileBytes(database)
        let refused = try CLI.run(["query", database, "DELETE FROM user", "--key-file", keyFile])
        #expect(refused.status == 1)
        #expect(refused.errorOutput.contains("Add --write"))
        #expect(fileBytes(database) == before)

        let written = try CLI.run(["query", database, "DELETE FROM user WHERE id = 1", "--key-file", keyFile, "--write"])
        #expect(written.status == 0, "\(written.errorOutput)")
        #expect(written.errorOutput.contains("1 row changed"))
        let count = try CLI.run(["query", database, "SELECT count(*) FROM user", "--key-file", keyFile, "--format", "csv"])
        #expect(count.output.hasSuffix("\n1\n"))
    }

    @Test func aFailedWriteIsRolledBackAndBadSQLExplained() throws {
        let before = fileBytes(database)
        let failed = try CLI.run(["query", database, "INSERT INTO user(id, name) VALUES (1, 'duplicate')", "--key-file", keyFile, "--write"])
        #expect(failed.status == 1)
        #expect(failed.errorOutput.contains("UNIQUE constraint failed"))
        #expect(failed.errorOutput.contains("rolled back"))
        #expect(fileBytes(database) == before)

        let syntax = try CLI.run(["query", database, "SELEC 1", "--key-file", keyFile])
        #expect(syntax.status == 1)
        #expect(syntax.errorOutput.contains("syntax error"))
        let two = try CLI.run(["query", database, "SELECT 1; SELECT 2", "--key-file", keyFile])
        #expect(two.status == 1)
        #expect(two.errorOutput.contains("one statement per query"))
        let wrongKey = try CLI.run(["query", database, "SELECT 1", "--key-file", try workspace.keyFile("wrong.key", "nope\n")])
        #expect(wrongKey.status == 65)
    }

    /// SQLCipher would run `PRAGMA rekey` while preparing it, before any read-only check.
    @Test func aKeyPragmaIsRefusedWithOrWithoutWrite() throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        for extra in [[], ["--write"]] {
            let result = try CLI.run(["query", database, "PRAGMA rekey = 'hacked'", "--key-file", keyFile] + extra)
            #expect(result.status == 1, "\(result.errorOutput)")
            #expect(result.errorOutput.contains("refused in SQL text"))
            #expect(!result.errorOutput.contains("hacked"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before)
        let verify = try CLI.run(["verify", database, "--key-file", keyFile])
        #expect(verify.status == 0, "\(verify.errorOutput)")
    }

    /// The checks every command makes: query on a damaged, missing or special file fails as verify does.
    @Test func attachIsRefusedAndCreatesNoFileWhilePragmasThatOnlyReadRun() throws {
        let attached = workspace.path("attached.db")
        for write in [false, true] {
            let result = try CLI.run(["query", database, "ATTACH DATABASE '\(attached)' AS other", "--key-file", keyFile] + (write ? ["--write"] : []))
            #expect(result.status == 1, "\(result.output)")
            #expect(result.errorOutput.contains("ATTACH and DETACH are refused"), "\(result.errorOutput)")
        }
        #expect(!FileManager.default.fileExists(atPath: attached))
        let mode = try CLI.run(["query", database, "PRAGMA journal_mode", "--key-file", keyFile, "--format", "csv"])
        #expect(mode.status == 0, "\(mode.errorOutput)")
        #expect(mode.output == "journal_mode\ndelete\n")
        let set = try CLI.run(["query", database, "PRAGMA journal_mode = WAL", "--key-file", keyFile])
        #expect(set.status == 1, "\(set.output)")
        #expect(set.errorOutput.contains("would change the database"), "\(set.errorOutput)")
    }

    @Test func aDamagedPageIsDamageNotAPartialResult() throws {
        let big = workspace.path("big.db")
        let db = try Connection(path: big, key: .passphrase("query secret"))
        try db.execute(sql: "CREATE TABLE t(x TEXT)")
        try db.execute(sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) INSERT INTO t SELECT printf('%0500d', i) FROM n")
        try db.close()
        // Flip a byte in the middle of the file: a page the query reads fails its HMAC.
        let handle = try #require(FileHandle(forUpdatingAtPath: big))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 2)
        let byte = try #require(try handle.read(upToCount: 1)).first!
        try handle.seek(toOffset: size / 2)
        handle.write(Data([byte ^ 0xFF]))
        try handle.close()
        let result = try CLI.run(["query", big, "SELECT count(*), max(x) FROM t", "--key-file", keyFile])
        #expect(result.status == 67, "\(result.output) \(result.errorOutput)")
        #expect(result.errorOutput.contains("is damaged"), "\(result.errorOutput)")
        #expect(!result.output.contains("row"), "a closing row count reads as a complete result: \(result.output)")
    }

    @Test func makesTheChecksOfEveryOtherCommand() throws {
        let appended = workspace.path("appended.db")
        try FileManager.default.copyItem(atPath: database, toPath: appended)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: appended))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("garbage".utf8))
        try handle.close()
        let damaged = try CLI.run(["query", appended, "SELECT count(*) FROM user", "--key-file", keyFile])
        #expect(damaged.status == 67, "\(damaged.errorOutput)")
        #expect(damaged.output.isEmpty)

        let missing = workspace.path("missing.db")
        let write = try CLI.run(["query", missing, "DELETE FROM session", "--write", "--key-file", keyFile])
        #expect(write.status == 74, "\(write.errorOutput)")
        #expect(write.errorOutput.contains("does not exist"))
        #expect(!FileManager.default.fileExists(atPath: missing))

        let device = try CLI.run(["query", "/dev/zero", "SELECT count(*) FROM sqlite_master", "--key-file", keyFile])
        #expect(device.status == 74, "\(device.errorOutput)")
        #expect(device.errorOutput.contains("character device"))
        #expect(device.output.isEmpty)
    }

    @Test func leavesNoLogFilesBesideAWALDatabase() throws {
        let db = try Connection(path: database, key: .passphrase("query secret"), configuration: Configuration(journalMode: .wal))
        try db.close()
        let result = try CLI.run(["query", database, "SELECT count(*) FROM user", "--key-file", keyFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: database + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: database + "-shm"))
    }
    @Test func jsonGivesOneObjectOnSuccessAndOnFailure() throws {
        var result = try CLI.run(["query", database, "SELECT id, name, photo FROM user ORDER BY id", "--key-file", keyFile, "--json"])
        #expect(result.status == 0, "\(result.errorOutput)")
        var object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(object["ok"] as? Bool == true && object["command"] as? String == "query")
        #expect(object["columns"] as? [String] == ["id", "name", "photo"])
        let rows = try #require(object["rows"] as? [[Any]])
        #expect(rows.map { $0[0] as? Int } == [1, 2])
        #expect(rows[0][2] as? String == "AP8=" && rows[1][2] is NSNull)
        #expect(object["rowCount"] as? Int == 2)
        // Two columns of one name both come through, in order.
        result = try CLI.run(["query", database, "SELECT 1 AS a, 2 AS a", "--key-file", keyFile, "--json"])
        object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(object["columns"] as? [String] == ["a", "a"])
        #expect((object["rows"] as? [[Int]]) == [[1, 2]])
        result = try CLI.run(["query", database, "SELECT 1", "--key-file", keyFile, "--json", "--format", "csv"])
        #expect(result.status == 64)

        result = try CLI.run(["query", database, "DELETE FROM user WHERE id = 2", "--write", "--key-file", keyFile, "--json"])
        object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(object["changes"] as? Int == 1 && object["rowCount"] as? Int == 0)
        #expect(!result.errorOutput.contains("changed"), "the count belongs in the object")

        for (sql, exitCode) in [("SELEKT 1", 1), ("DELETE FROM user", 1)] {
            result = try CLI.run(["query", database, sql, "--key-file", keyFile, "--json"])
            #expect(result.status == Int32(exitCode))
            object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any], "\(result.output)")
            #expect(object["ok"] as? Bool == false)
            let error = try #require(object["error"] as? [String: Any])
            #expect(error["exitCode"] as? Int == exitCode && (error["message"] as? String)?.contains("Nothing was changed") == true)
        }
        result = try CLI.run(["query", database, "SELECT 1", "--key-file", workspace.keyFile("wrong.key", "wrong secret"), "--json"])
        #expect(result.status == 65)
        object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect((object["error"] as? [String: Any])?["kind"] as? String == "wrongKey")
    }
}

/// `info` and the plain-language messages of the other commands.
@Suite struct MessagesTests {
    @Test func infoOnAMissingFileSaysOnlyThat() throws {
        let workspace = try TemporaryDirectory()
        let result = try CLI.run(["info", workspace.path("missing.db")])
        #expect(result.status == 74)
        #expect(result.output.isEmpty, "\(result.output)")
        #expect(result.errorOutput.contains("missing"))
    }

    @Test func infoMentionsALogHoldingChanges() throws {
        let workspace = try TemporaryDirectory()
        let path = workspace.path("wal.db")
        let db = try Connection(path: path, key: nil, configuration: Configuration(journalMode: .wal))
        try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        try db.execute(sql: "CREATE TABLE t(x)")
        let result = try CLI.run(["info", path])
        try db.close()
        #expect(result.status == 0)
        #expect(result.output.contains("wal.db-wal holds"), "\(result.output)")
    }

    @Test func decryptingAPlaintextFileSaysItIsAlreadyPlaintext() throws {
        let workspace = try TemporaryDirectory()
        let path = workspace.path("plain.db")
        try Connection(path: path, key: nil).execute(sql: "CREATE TABLE t(x)")
        let result = try CLI.run(["decrypt", path, "-o", workspace.path("o.db"), "--key-file", try workspace.keyFile("k", "key\n")])
        #expect(result.status == 66)
        #expect(result.errorOutput.contains("already plaintext"), "\(result.errorOutput)")
    }

    @Test func everyHelpListsTheCancelledExitCode() throws {
        for command in ["encrypt", "decrypt", "rekey", "verify", "query"] {
            let help = try CLI.run([command, "--help"])
            #expect(help.output.contains("130 cancelled"), "\(command)")
        }
    }
}

/// `cipherstore query` under a memory limit (run on its own, as the other memory suites:
/// AddressSanitizer cannot run under `ulimit -v`).
@Suite struct QueryMemoryTests {
    let workspace: TemporaryDirectory
    let database: String
    let keyFile: String

    init() throws {
        workspace = try TemporaryDirectory()
        database = workspace.path("big.db")
        keyFile = try workspace.keyFile("query.key", "query secret\n")
    }

    /// 300,000 rows (60 MB of CSV) print under a 1.5 GB address-space limit: rows are streamed.
    @Test func streamsALargeResult() throws {
        let db = try Connection(path: database, key: .passphrase("query secret"))
        try db.execute(sql: "CREATE TABLE big(body TEXT)")
        try db.execute(sql: """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000)
            INSERT INTO big SELECT printf('%0200d', i) FROM n
            """)
        try db.close()
        let result = try CLI.run(["query", database, "SELECT body FROM big", "--key-file", keyFile, "--format", "csv"],
                                 wrapper: ["ulimit -v 1500000"])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.utf8.count > 60_000_000)
    }

}
