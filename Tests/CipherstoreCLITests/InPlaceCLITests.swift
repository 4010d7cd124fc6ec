import CipherStore
import Foundation
import TestSupport
import Testing

/// In-place commands never lose another process's write, act on the file a link names, and
/// tell a damaged file from a wrong key the same way in every command.
@Suite struct InPlaceCLITests {
    let workspace: TemporaryDirectory
    let source: String
    let keyFile: String
    let key: DatabaseKey

    init() throws {
        workspace = try TemporaryDirectory()
        source = workspace.path("app.db")
        keyFile = try workspace.keyFile("app.key", "in place ☂\n")
        key = try DatabaseKey.passphrase("in place ☂")
    }

    private func makePlaintext(journalMode: String, rows: Int = 10) throws {
        let db = try Connection(path: source, key: nil)
        try db.execute(sql: "PRAGMA page_size = \(SQLCipherLibrary.defaultPageSize)")
        try db.execute(sql: "PRAGMA journal_mode = \(journalMode)")
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT)")
        try db.execute(sql: """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
            INSERT INTO t(body) SELECT printf('%01000d', i) FROM n
            """, arguments: [rows])
        try db.close()
    }

    /// The `sqlcipher` shell on the plaintext source, reading its script from a pipe kept open.
    private func startShell() throws -> (Process, FileHandle, Pipe) {
        try SQLCipherShell.start(database: source)
    }

    private func count(_ path: String, key: DatabaseKey?, where condition: String = "1") throws -> Int {
        let db = try Connection(path: path, key: key)
        defer { try? db.close() }
        return try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM t WHERE \(condition)") ?? -1
    }

    @Test func aWALDatabaseAnotherProcessHasOpenIsRefusedAndItsWriteKept() throws {
        try makePlaintext(journalMode: "WAL")
        let (shell, input, errors) = try startShell()
        input.write(Data(".timeout 30000\nSELECT count(*) FROM t;\n".utf8))
        try #require(SQLCipherShell.waitUntil(shell, hasOpen: source))

        // The process is named first; past that with --force, the WAL check refuses all the same.
        let refused = try CLI.run(["encrypt", source, "--in-place", "--key-file", keyFile])
        #expect(refused.status == 64, "\(refused.errorOutput)")
        #expect(refused.errorOutput.contains("process \(shell.processIdentifier) (sqlcipher) has '\(source)' open"))
        let result = try CLI.run(["encrypt", source, "--in-place", "--key-file", keyFile, "--force"])
        #expect(result.status == 74, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("in use"))
        #expect(result.errorOutput.contains("WAL mode"))

        input.write(Data("INSERT INTO t(body) VALUES ('late');\n".utf8))
        try input.close()
        shell.waitUntilExit()
        let shellErrors = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(shell.terminationStatus == 0, "\(shellErrors)")
        #expect(DatabaseFileInfo.inspect(path: source).kind == .plaintext)
        #expect(try count(source, key: nil, where: "body = 'late'") == 1)
    }

    /// A writer that starts while the conversion runs either lands in the result or fails
    /// with an error — never reports success for a row that is gone.
    ///
    /// `--force` skips the check for other processes: on a slow machine the conversion may
    /// reach it after the writer has opened the file, and would then refuse (tested above)
    /// instead of racing the writer, which is what this test is for.
    @Test(arguments: ["WAL", "DELETE", "TRUNCATE", "PERSIST", "MEMORY", "OFF"])
    func aConcurrentWriterIsNeverLostSilently(journalMode: String) throws {
        try makePlaintext(journalMode: journalMode, rows: 20_000)
        let (conversion, output, conversionErrors) = try CLI.start(["encrypt", source, "--in-place", "--force", "--key-file", keyFile])
        Thread.sleep(forTimeInterval: 0.3)
        let (shell, input, errors) = try startShell()
        // MEMORY and OFF belong to the connection, not the file: the writer sets them itself.
        let pragma = ["MEMORY", "OFF"].contains(journalMode) ? "PRAGMA journal_mode = \(journalMode);\n" : ""
        input.write(Data(".timeout 30000\n\(pragma)INSERT INTO t(body) VALUES ('late');\n".utf8))
        try input.close()
        shell.waitUntilExit()
        let shellErrors = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let result = ProcessResult.collect(conversion, output: output, errors: conversionErrors)

        let encrypted = result.status == 0
        if !encrypted { #expect(result.status == 74, "\(result.errorOutput)") }
        let rows = try count(source, key: encrypted ? key : nil, where: "body = 'late'")
        if shell.terminationStatus == 0 && shellErrors.isEmpty {
            #expect(rows == 1, "the shell reported success, the row must be there")
        } else {
            #expect(rows == 0)
            #expect(shellErrors.contains("readonly") || shellErrors.contains("locked") || shellErrors.contains("not a database"), "\(shellErrors)")
        }
        #expect(try count(source, key: encrypted ? key : nil) >= 20_000)
    }

    @Test func aSymbolicLinkIsEncryptedAtItsTarget() throws {
        try makePlaintext(journalMode: "DELETE")
        let link = workspace.path("link.db")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: source)
        let result = try CLI.run(["encrypt", link, "--in-place", "--key-file", keyFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(DatabaseFileInfo.inspect(path: source).kind == .encrypted)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == source)
    }

    @Test func aSecondHardLinkIsNamedAndForceReplacesThisNameOnly() throws {
        try makePlaintext(journalMode: "DELETE")
        let other = workspace.path("other.db")
        try FileManager.default.linkItem(atPath: source, toPath: other)
        let refused = try CLI.run(["encrypt", source, "--in-place", "--key-file", keyFile])
        #expect(refused.status == 64, "\(refused.errorOutput)")
        #expect(refused.errorOutput.contains("2 names"))
        #expect(refused.errorOutput.contains(other))
        #expect(DatabaseFileInfo.inspect(path: source).kind == .plaintext)

        let inode = try #require(try FileManager.default.attributesOfItem(atPath: other)[.systemFileNumber] as? Int)
        let forced = try CLI.run(["encrypt", source, "--in-place", "--force", "--key-file", keyFile])
        #expect(forced.status == 0, "\(forced.errorOutput)")
        #expect(DatabaseFileInfo.inspect(path: source).kind == .encrypted)
        #expect(DatabaseFileInfo.inspect(path: other).kind == .plaintext)
        // The other name still holds the plaintext: the command says so, and how to find it.
        #expect(forced.errorOutput.contains("1 other name(s) of the original (hard links) still hold the PLAINTEXT"), "\(forced.errorOutput)")
        #expect(forced.errorOutput.contains("-inum \(inode)"), "\(forced.errorOutput)")
    }

    @Test func bytesAppendedToAnEncryptedFileGiveTheSameAnswerInEveryCommand() throws {
        try makePlaintext(journalMode: "DELETE")
        let encrypted = workspace.path("enc.db")
        #expect(try CLI.run(["encrypt", source, "-o", encrypted, "--key-file", keyFile]).status == 0)
        let handle = try #require(FileHandle(forWritingAtPath: encrypted))
        handle.seekToEndOfFile()
        handle.write(Data(repeating: 7, count: 33))
        try handle.close()
        let wrongKey = try workspace.keyFile("wrong.key", "wrong\n")

        for command in [["verify", encrypted], ["decrypt", encrypted, "-o", workspace.path("d.db")]] {
            let damaged = try CLI.run(command + ["--key-file", keyFile])
            #expect(damaged.status == 67, "\(command[0]): \(damaged.errorOutput)")
            #expect(damaged.errorOutput.contains("damaged"), "\(command[0]): \(damaged.errorOutput)")
            let wrong = try CLI.run(command + ["--key-file", wrongKey])
            #expect(wrong.status == 65, "\(command[0]): \(wrong.errorOutput)")
        }
        let rekey = try CLI.run(["rekey", encrypted, "-o", workspace.path("r.db"), "--old-key-file", keyFile, "--new-key-file", wrongKey])
        #expect(rekey.status == 67, "\(rekey.errorOutput)")
        let rekeyWrong = try CLI.run(["rekey", encrypted, "-o", workspace.path("r.db"), "--old-key-file", wrongKey, "--new-key-file", keyFile])
        #expect(rekeyWrong.status == 65, "\(rekeyWrong.errorOutput)")
    }
}

@Suite struct ConversionSettingsCLITests {
    @Test func rekeyKeepsTheSourcesSettingsAndSaysWhichTheResultHas() throws {
        let workspace = try TemporaryDirectory()
        let path = workspace.path("strong.db")
        let oldKeyFile = try workspace.keyFile("old.key", "old secret\n")
        let newKeyFile = try workspace.keyFile("new.key", "new secret\n")
        let strong = CipherSettings(pageSize: 4096, kdfIterations: 256_000)
        let db = try Connection(path: path, key: .passphrase("old secret"), configuration: Configuration(cipher: strong))
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.close()

        let result = try CLI.run(["rekey", path, "--in-place", "--old-key-file", oldKeyFile, "--new-key-file", newKeyFile,
                                  "--old-page-size", "4096", "--old-kdf-iterations", "256000"])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.contains("Page size 4096 bytes, 256000 KDF iterations"), "\(result.output)")
        try Connection(path: path, key: .passphrase("new secret"), configuration: Configuration(cipher: strong)).close()
    }

    /// The page cache bounds the conversion's memory; a smaller one only costs time.
    @Test func aSmallPageCacheConvertsTheSameAndAnAbsurdOneIsRefused() throws {
        let workspace = try TemporaryDirectory()
        let source = workspace.path("plain.db")
        let keyFile = try workspace.keyFile("k.key", "small cache\n")
        let db = try Connection(path: source, key: nil)
        try db.execute(sql: "PRAGMA page_size = \(SQLCipherLibrary.defaultPageSize)")
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.execute(sql: """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
            INSERT INTO t SELECT printf('%0300d', i) FROM n
            """)
        try db.close()
        let result = try CLI.run(["encrypt", source, "-o", workspace.path("e.db"), "--key-file", keyFile, "--page-cache-mib", "1"])
        #expect(result.status == 0, "\(result.errorOutput)")
        let encrypted = try Connection(path: workspace.path("e.db"), key: .passphrase("small cache"))
        #expect(try encrypted.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") == 20000)
        try encrypted.close()
        let refused = try CLI.run(["encrypt", source, "-o", workspace.path("f.db"), "--key-file", keyFile, "--page-cache-mib", "0"])
        #expect(refused.status == 64)
        #expect(refused.errorOutput.contains("--page-cache-mib must be between 1 and 65536"))
        #expect(!FileManager.default.fileExists(atPath: workspace.path("f.db")))
    }

    /// The commonest source (SQLite's 4096-byte pages, 8192 here) becomes a file that opens with
    /// its key alone: in `verify`, in the linked SQLCipher's shell and through the library's
    /// defaults. `--page-size source` keeps the source's, and the result says what it needs.
    @Test func encryptMakesAFileThatOpensWithItsKeyAlone() throws {
        let workspace = try TemporaryDirectory()
        let source = workspace.path("plain.db")
        let keyFile = try workspace.keyFile("k.key", "page size\n")
        let db = try Connection(path: source, key: nil)
        try db.execute(sql: "PRAGMA page_size = 8192")
        try db.executeScript("""
            CREATE TABLE t(x); INSERT INTO t VALUES ('row');
            CREATE TABLE filler(b); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) INSERT INTO filler SELECT randomblob(100) FROM n;
            """)
        try db.close()
        let encrypted = workspace.path("e.db")
        let result = try CLI.run(["encrypt", source, "-o", encrypted, "--key-file", keyFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.contains("Page size \(SQLCipherLibrary.defaultPageSize) bytes"), "\(result.output)")
        // Smaller pages make a larger file: said from 5% up, with the way to keep the source's.
        let growth = Double(try fileSize(encrypted)) / Double(try fileSize(source)) - 1
        if SQLCipherLibrary.sqlcipherMajorVersion < 4 { #expect(growth > 0.05, "1024-byte pages hold less of each 8192-byte page") }
        #expect(result.errorOutput.contains("where the source had 8192-byte pages; it is \(Int(growth * 100))% larger") == (growth >= 0.05), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("--page-size source") == (growth >= 0.05))
        #expect(!result.errorOutput.contains("opens ONLY"), "\(result.errorOutput)")
        #expect(try CLI.run(["verify", encrypted, "--key-file", keyFile]).status == 0)
        let reopened = try Connection(path: encrypted, key: .passphrase("page size"))
        #expect(try reopened.fetchScalar(String.self, sql: "SELECT x FROM t") == "row")
        try reopened.close()

        let kept = workspace.path("kept.db")
        let keep = try CLI.run(["encrypt", source, "-o", kept, "--key-file", keyFile, "--page-size", "source"])
        #expect(keep.status == 0, "\(keep.errorOutput)")
        #expect(keep.output.contains("Page size 8192 bytes"), "\(keep.output)")
        #expect(keep.errorOutput.contains("opens ONLY with --page-size 8192"), "\(keep.errorOutput)")
        #expect(!keep.errorOutput.contains("larger than the source"), "\(keep.errorOutput)")
        #expect(try CLI.run(["verify", kept, "--key-file", keyFile]).status == 65)
        #expect(try CLI.run(["verify", kept, "--key-file", keyFile, "--page-size", "8192"]).status == 0)
        let json = try CLI.run(["encrypt", source, "-o", workspace.path("kept2.db"), "--key-file", keyFile, "--page-size", "source", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
        #expect(object?["opensOnlyWith"] as? [String] == ["--page-size 8192"], "\(json.output)")

        // A slot database made in place says it too, against the source's size before.
        let slotSource = workspace.path("slots.db")
        try FileManager.default.copyItem(atPath: source, toPath: slotSource)
        let sourceBytes = try fileSize(slotSource)
        let slots = try CLI.run(["encrypt", slotSource, "--in-place", "--key-slots", "--key-file", keyFile, "--slot-kdf-ms", "10"])
        #expect(slots.status == 0, "\(slots.errorOutput)")
        let slotGrowth = Double(try fileSize(slotSource)) / Double(sourceBytes) - 1
        if SQLCipherLibrary.sqlcipherMajorVersion < 4 { #expect(slotGrowth > 0.05) }
        #expect(slots.errorOutput.contains("it is \(Int(slotGrowth * 100))% larger than the source was") == (slotGrowth >= 0.05), "\(slots.errorOutput)")
    }

    /// A source in WAL mode has pages in its `-wal`: the size a result is compared with
    /// counts them, as the copy does.
    @Test func aWALSourcesSizeCountsItsWAL() throws {
        let workspace = try TemporaryDirectory()
        let source = workspace.path("wal.db")
        let keyFile = try workspace.keyFile("k.key", "wal size\n")
        // Kept open, with no checkpoint, so the rows stay in the WAL while the tool runs.
        let db = try Connection(path: source, key: nil)
        try db.executeScript("""
            PRAGMA page_size = 8192; PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;
            CREATE TABLE filler(b); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) INSERT INTO filler SELECT randomblob(100) FROM n;
            """)
        defer { try? db.close() }
        let walBytes = try fileSize(source + "-wal")
        #expect(walBytes > 10 * (try fileSize(source)), "the rows are in the WAL")
        let encrypted = workspace.path("e.db")
        let result = try CLI.run(["encrypt", source, "-o", encrypted, "--key-file", keyFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        let growth = Double(try fileSize(encrypted)) / Double(try fileSize(source) + walBytes) - 1
        #expect(growth < 1, "a WAL holds a page and a frame header per page: the result is not several times larger")
        #expect(result.errorOutput.contains("it is \(Int(growth * 100))% larger than the source was") == (growth >= 0.05), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("\(source)-wal beside it"), "\(result.errorOutput)")
    }
}

private func fileSize(_ path: String) throws -> Int64 {
    (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
}
