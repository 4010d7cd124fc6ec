import CipherStore
import Foundation
import TestSupport
import Testing

/// `cipherstore repair` and what lies beside the damaged file: a hot journal is rolled back
/// (no uncommitted row comes out), a log is read only when it can be this database's, and a
/// file cut short is counted as lost without listing pages that are not there.
@Suite struct RepairLogCLITests {
    static let rawKey = String(repeating: "3e", count: 32)
    static let committedRows = 20_000
    let workspace: TemporaryDirectory
    let database: String
    let keyFile: String

    init() throws {
        workspace = try TemporaryDirectory()
        database = workspace.path("app.db")
        keyFile = try workspace.keyFile("app.key", Self.rawKey)
        let db = try Connection(path: database, key: .rawKey(hex: Self.rawKey))
        try db.executeScript("""
            CREATE TABLE t(a, b);
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(Self.committedRows))
            INSERT INTO t SELECT x, 'committed ' || x FROM c;
            """)
        try db.close()
    }

    func json(_ result: ProcessResult) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
    }

    /// Rows of `t` in `path`: all, changed by the transaction that never committed, added by it.
    func rows(_ path: String) throws -> [Int] {
        let db = try Connection(path: path, key: .rawKey(hex: Self.rawKey))
        defer { try? db.close() }
        let row = try #require(try db.fetchOne(sql: "SELECT count(*), total(b = 'uncommitted'), total(b = 'never committed') FROM t"))
        return [try row.value(Int.self, at: 0), Int(try row.value(Double.self, at: 1)), Int(try row.value(Double.self, at: 2))]
    }

    @Test func aWriterKilledMidTransactionLeavesAJournalTheRepairRollsBack() throws {
        // The shell writes its changed pages into the file before committing (a 5-page cache)
        // and is killed while the transaction is open.
        let (shell, input, _) = try SQLCipherShell.start(database: database)
        input.write(Data("""
            PRAGMA key = "x'\(Self.rawKey)'";
            PRAGMA cache_size = 5;
            BEGIN;
            UPDATE t SET b = 'uncommitted' WHERE a % 7 = 0;
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000) INSERT INTO t SELECT x + 100000, 'never committed' FROM c;

            """.utf8))
        let journal = database + "-journal"
        var size: Int64 = -1
        let deadline = Date().addingTimeInterval(60)
        // Until the journal stops growing: both statements have run.
        while Date() < deadline {
            usleep(300_000)
            let now = (try? FileManager.default.attributesOfItem(atPath: journal)[.size] as? Int64) ?? 0
            if now > 100_000 && now == size { break }
            size = now
        }
        kill(shell.processIdentifier, SIGKILL)
        shell.waitUntilExit()
        try #require(FileManager.default.fileExists(atPath: journal), "the killed shell left no journal")

        // What the file holds without the journal: the uncommitted rows (a copy, read alone).
        let withoutJournal = workspace.path("alone.db")
        try FileManager.default.copyItem(atPath: database, toPath: withoutJournal)
        let alone = try CLI.run(["repair", withoutJournal, "-o", workspace.path("alone-out.db"), "--raw-key", "--key-file", keyFile])
        #expect(alone.status == 0 || alone.status == 68)
        #expect(try rows(workspace.path("alone-out.db"))[1] > 0, "the file alone should hold uncommitted rows")

        let output = workspace.path("out.db")
        let result = try CLI.run(["repair", database, "-o", output, "--raw-key", "--key-file", keyFile, "--json"])
        #expect(result.status == 0, "\(result.errorOutput)")
        let object = try json(result)
        #expect(object["complete"] as? Bool == true)
        #expect((object["notes"] as? [String])?.first?.contains("never committed") == true)
        #expect(try rows(output) == [Self.committedRows, 0, 0])
        // SQLite's own rollback, on the original with its journal, agrees.
        #expect(try rows(database) == [Self.committedRows, 0, 0])
    }

    @Test func aLogOfAnotherDatabaseIsNotReadAndIsNamed() throws {
        let other = workspace.path("other.db")
        let otherKey = String(repeating: "a7", count: 32)
        let db = try Connection(path: other, key: .rawKey(hex: otherKey))
        try db.executeScript("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE t(a, b); INSERT INTO t VALUES (1, 'other');")
        let log = fileBytes(other + "-wal")
        try db.close()
        try #require(log.count > 32)
        try log.write(to: URL(fileURLWithPath: database + "-wal"))
        let output = workspace.path("out.db")
        let result = try CLI.run(["repair", database, "-o", output, "--raw-key", "--key-file", keyFile, "--json"])
        #expect(result.status == 68, "\(result.errorOutput)")
        let problems = try #require(try json(result)["problems"] as? [String])
        #expect(problems.contains { $0.contains("none of which decrypts with this key: it is not this database's log") }, "\(problems)")
        #expect(try rows(output) == [Self.committedRows, 0, 0])
    }

    @Test func aCraftedLogClaimingMillionsOfPagesIsRefusedAtOnce() throws {
        // Checksums need no key: a log of one frame that says the database has 200,000,000
        // pages after its commit.
        let pageSize = SQLCipherLibrary.defaultPageSize
        let log = craftedWAL(pageSize: pageSize, frames: [(1, [UInt8](repeating: 0, count: pageSize))], sizeAfterCommit: 200_000_000)
        try Data(log).write(to: URL(fileURLWithPath: database + "-wal"))

        let started = Date()
        let output = workspace.path("out.db")
        let result = try CLI.run(["repair", database, "-o", output, "--raw-key", "--key-file", keyFile, "--json"])
        #expect(Date().timeIntervalSince(started) < 60)
        #expect(result.status == 68, "\(result.errorOutput)")
        let object = try json(result)
        let problems = try #require(object["problems"] as? [String])
        #expect(problems.contains { $0.contains("says the database has 200000000 pages after its last commit") }, "\(problems)")
        #expect(try rows(output) == [Self.committedRows, 0, 0])
    }

    @Test func aFileCutShortCountsItsMissingPagesWithoutListingThem() throws {
        let pageSize = SQLCipherLibrary.defaultPageSize
        let pages = try #require(FileManager.default.attributesOfItem(atPath: database)[.size] as? Int) / pageSize
        try #require(truncate(database, off_t((pages - 5) * pageSize)) == 0)
        let result = try CLI.run(["repair", database, "-o", workspace.path("out.db"), "--raw-key", "--key-file", keyFile, "--json"])
        #expect(result.status == 68, "\(result.errorOutput)")
        let object = try json(result)
        #expect(object["pagesMissingAtEnd"] as? Int == 5)
        #expect(object["pageCount"] as? Int == pages)
        #expect((object["pagesLost"] as? [Int])?.allSatisfy { $0 <= pages - 5 } == true)
        #expect((object["score"] as? Double ?? 1) < 1)
        let text = try CLI.run(["repair", database, "-o", workspace.path("again.db"), "--raw-key", "--key-file", keyFile])
        #expect(text.output.contains("the file holds \(pages - 5): it was cut short, or its header is damaged"), "\(text.output)")
        #expect(!text.output.contains("score 100.0 %"))
    }
}

/// What the repair says when page 1 is lost but the schema's other pages still name the
/// tables: that, and not "rows are in recovered_N tables"; and a loss never reads 100.0 %.
@Suite struct RepairReportWordingCLITests {
    @Test func aSchemaFoundOnPagesCutOffFromPageOneIsSaidSo() throws {
        let workspace = try TemporaryDirectory()
        let database = workspace.path("app.db")
        let rawKey = String(repeating: "7a", count: 32)
        let keyFile = try workspace.keyFile("app.key", rawKey)
        var script = ""
        for index in 0..<40 {
            script += "CREATE TABLE t\(index)(id INTEGER PRIMARY KEY, body TEXT, padding TEXT DEFAULT '\(String(repeating: "p", count: 40))');"
            script += "INSERT INTO t\(index)(body) VALUES ('row of t\(index)');"
        }
        let db = try Connection(path: database, key: .rawKey(hex: rawKey))
        try db.executeScript(script)
        try db.close()
        var bytes = fileBytes(database)
        for index in 100..<140 { bytes[index] ^= 0x3C }
        try bytes.write(to: URL(fileURLWithPath: database))

        let result = try CLI.run(["repair", database, "-o", workspace.path("out.db"), "--raw-key", "--key-file", keyFile])
        #expect(result.status == 68, "\(result.errorOutput)")
        #expect(result.output.contains("the tables named below were found on its pages cut off from page 1"), "\(result.output)")
        #expect(!result.output.contains("no schema copy opened with the key: rows are in recovered_N tables"))
        #expect(result.output.contains("t7: 1 row"))
        #expect(!result.output.contains("score 100.0 %"))
    }
}
