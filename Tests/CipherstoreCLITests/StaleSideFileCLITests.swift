import CipherStore
import Foundation
import TestSupport
import Testing

/// A journal or write-ahead log lying beside the name a command publishes to is never applied
/// to the new file: `backup -o`, `repair -o`, `encrypt -o` and `restore` move it aside first
/// (and say so), and refuse when another process has it open.
///
/// The stale log is a real one: the `-wal` of a WAL writer killed before any checkpoint.
@Suite(.serialized) struct StaleSideFileCLITests {
    static let passphrase = "stale log passphrase"
    let workspace: TemporaryDirectory
    let keyFile: String
    /// The killed writer's log, copied before anything checkpointed it.
    let staleLog: Data
    /// A backup of the writer's database with every commit the writer reported.
    let backup: String
    let committedRows: Int

    init() throws {
        workspace = try TemporaryDirectory()
        keyFile = try workspace.keyFile("app.key", Self.passphrase)
        let (_, commits) = try PowerLossCLITests.runWriter(in: workspace.url.path, passphrase: Self.passphrase, commits: 30, environment: [:])
        try #require(commits >= 30)
        let database = workspace.path("app.db")
        staleLog = fileBytes(database + "-wal")
        try #require(staleLog.count > 32, "the killed writer left no log")
        backup = workspace.path("backup.db")
        let result = try CLI.run(["backup", database, "-o", backup, "--key-file", keyFile])
        try #require(result.status == 0, "\(result.errorOutput)")
        committedRows = try Self.rows(in: backup)
        try #require(committedRows >= 30)
    }

    /// Opens `path` as an app would (replaying any log beside it), checks it and counts its rows.
    static func rows(in path: String) throws -> Int {
        let db = try Connection(path: path, key: .passphrase(passphrase))
        defer { try? db.close() }
        #expect(try String.fetchAll(db, sql: "PRAGMA integrity_check") == ["ok"])
        return try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM entry") ?? -1
    }

    func placeStaleLog(beside path: String, suffix: String = "-wal") throws {
        try staleLog.write(to: URL(fileURLWithPath: path + suffix))
    }

    @Test func aBackupToANameWithAStaleLogBesideItIsNotReplayedOver() throws {
        let output = workspace.path("copy.db")
        try placeStaleLog(beside: output)
        try Data(count: 32_768).write(to: URL(fileURLWithPath: output + "-shm"))
        let result = try CLI.run(["backup", backup, "-o", output, "--key-file", keyFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("moved \(output)-wal aside to \(output)-wal.stale-"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("removed \(output)-shm"))
        #expect(!FileManager.default.fileExists(atPath: output + "-wal"))
        // Kept, not deleted: it may be the only copy of another database's commits.
        let aside = try #require(try FileManager.default.contentsOfDirectory(atPath: workspace.url.path).first { $0.hasPrefix("copy.db-wal.stale-") })
        #expect(fileBytes(workspace.path(aside)) == staleLog)
        #expect(try Self.rows(in: output) == committedRows)
    }

    @Test func aRestoreToAMissingDatabaseWithAStaleLogBesideItIsNotReplayedOver() throws {
        let target = workspace.path("gone.db")
        try placeStaleLog(beside: target)
        let result = try CLI.run(["restore", backup, "--to", target, "--key-file", keyFile, "--json"])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("moved \(target)-wal aside"))
        #expect(try Self.rows(in: target) == committedRows)
    }

    @Test(arguments: ["-wal", "-journal"])
    func aForcedRestoreOverADamagedDatabaseDropsItsLogOrHotJournal(suffix: String) throws {
        let target = workspace.path("damaged.db")
        // A first page that no key opens: the restore cannot lock or read it, so nothing
        // checkpoints or rolls back what lies beside it.
        var bytes = fileBytes(backup)
        for index in 100..<400 { bytes[index] ^= 0x5A }
        try bytes.write(to: URL(fileURLWithPath: target))
        try placeStaleLog(beside: target, suffix: suffix)
        var result = try CLI.run(["restore", backup, "--to", target, "--key-file", keyFile])
        #expect(result.status != 0, "an unreadable database is replaced only with --force")
        result = try CLI.run(["restore", backup, "--to", target, "--key-file", keyFile, "--force"])
        #expect(result.status == 0, "\(result.errorOutput)")
        // A log is never read; a log's bytes under a journal's name are no journal, and are kept
        // aside as well rather than deleted by SQLite's first open.
        #expect(result.errorOutput.contains(suffix == "-wal" ? "moved \(target)\(suffix) aside" : "found \(target)\(suffix) beside the database"),
                "\(result.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: target + suffix))
        #expect(try Self.rows(in: target) == committedRows)
    }

    @Test func aRepairToANameWithAStaleLogBesideItIsNotReplayedOver() throws {
        let output = workspace.path("repaired.db")
        try placeStaleLog(beside: output)
        let result = try CLI.run(["repair", backup, "-o", output, "--key-file", keyFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("moved \(output)-wal aside"))
        #expect(try Self.rows(in: output) == committedRows)
    }

    @Test func anEncryptionToANameWithAStaleLogBesideItIsNotReplayedOver() throws {
        let plaintext = workspace.path("plain.db")
        let decrypted = try CLI.run(["decrypt", backup, "-o", plaintext, "--key-file", keyFile])
        try #require(decrypted.status == 0, "\(decrypted.errorOutput)")
        let output = workspace.path("encrypted.db")
        try placeStaleLog(beside: output)
        let result = try CLI.run(["encrypt", plaintext, "-o", output, "--key-file", keyFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("moved \(output)-wal aside"))
        #expect(try Self.rows(in: output) == committedRows)
    }

    @Test func aLogAnotherProcessHasOpenIsLeftAndNothingIsPublished() throws {
        let output = workspace.path("held.db")
        try placeStaleLog(beside: output)
        // Another process holding the log: it could write into it after the new file took the name.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/bin/sh")
        holder.arguments = ["-c", "exec sleep 30 < \"$0\"", output + "-wal"]
        try holder.run()
        defer { kill(holder.processIdentifier, SIGKILL); holder.waitUntilExit() }
        var opened = false
        for _ in 0..<100 where !opened {
            opened = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(holder.processIdentifier)/fd"))?.count ?? 0 > 0
                && fileBytes("/proc/\(holder.processIdentifier)/comm").contains("sleep")
            if !opened { usleep(20_000) }
        }
        let result = try CLI.run(["backup", backup, "-o", output, "--key-file", keyFile])
        #expect(result.status == 74, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("process \(holder.processIdentifier) (sleep) has '\(output)-wal' open"))
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(fileBytes(output + "-wal") == staleLog)
    }
}
