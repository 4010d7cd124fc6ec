import CipherStore
import Foundation
import TestSupport
import Synchronization
import Testing

/// kill -9 a process in the middle of a migration (after an earlier one committed): the next
/// migrate puts the database back, byte for byte, before anything else.
@Suite(.serialized) struct MigrationCrashTests {
    static let child = CLI.executable.deletingLastPathComponent().appendingPathComponent("interrupted-migration")
    static let passphrase = "migration crash key"

    @Test(arguments: ["delete", "wal"])
    func killedMigrationIsUndoneByteForByteByTheNextMigrate(mode: String) throws {
        let workspace = try TemporaryDirectory()
        let path = workspace.path("app.db")
        let key = try DatabaseKey.passphrase(Self.passphrase)
        var base = DatabaseMigrator()
        base.registerMigration("v0 base") { db in
            try db.execute(sql: "CREATE TABLE base(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            for n in 0..<200 { try db.execute(sql: "INSERT INTO base(body) VALUES (?)", arguments: ["row \(n)"]) }
        }
        let queue = try DatabaseQueue(path: path, key: key, configuration: Configuration(journalMode: JournalMode(rawValue: mode)!))
        try base.migrate(queue)
        try queue.inDatabase { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try queue.close()
        let before = fileBytes(path)

        let process = Process()
        process.executableURL = Self.child
        process.arguments = [path, mode]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        let printed = Mutex(Data())
        output.fileHandleForReading.readabilityHandler = { handle in
            let chunk = handle.availableData
            printed.withLock { $0.append(chunk) }
        }
        try process.run()
        input.fileHandleForWriting.write(Data("\(Self.passphrase)\n".utf8))
        try input.fileHandleForWriting.close()
        let deadline = ContinuousClock.now + .seconds(60)
        while !printed.withLock({ String(decoding: $0, as: UTF8.self).contains("migrating") }), process.isRunning,
              ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
        #expect(printed.withLock { String(decoding: $0, as: UTF8.self) }.contains("migrating"), "the child never reached the second migration")
        #expect(FileManager.default.fileExists(atPath: path + ".migration-snapshot"))
        #expect(FileManager.default.fileExists(atPath: path + ".migration-in-progress"))

        // The next migrate, with nothing of its own to apply, puts the snapshot back first.
        let reopened = try DatabaseQueue(path: path, key: key)
        try base.migrate(reopened)
        #expect(fileBytes(path) == before)
        #expect(!FileManager.default.fileExists(atPath: path + ".migration-snapshot"))
        #expect(!FileManager.default.fileExists(atPath: path + ".migration-in-progress"))
        try reopened.read { (db: Connection) throws in
            #expect(try !db.tableExists("added"))
            #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM base") == 200)
            #expect(try db.fetchScalar(String.self, sql: "PRAGMA integrity_check") == "ok")
            #expect(try base.appliedMigrations(db) == ["v0 base"])
        }
        try reopened.close()
    }
}
