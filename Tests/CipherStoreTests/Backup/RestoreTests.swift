@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// A restore checks the backup, then replaces the database as the in-place conversions do.
@Suite struct RestoreTests {
    let directory: TemporaryDirectory
    let path: String
    let backupPath: String
    let key: DatabaseKey

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.path("app.db")
        backupPath = directory.path("app-backup.db")
        key = try DatabaseKey.rawKey(hex: String(repeating: "7e", count: 32))
    }

    func notes(_ path: String, key: DatabaseKey? = nil) throws -> [String] {
        let queue = try DatabaseQueue(path: path, key: key ?? self.key)
        defer { try? queue.close() }
        return try queue.read { try String.fetchAll($0, sql: "SELECT body FROM note ORDER BY rowid") }
    }

    /// A database with one note, backed up, then given a second note.
    func makeDatabaseAndBackup(wal: Bool = false) throws {
        let queue = try DatabaseQueue(path: path, key: key)
        if wal { _ = try queue.inDatabase { try $0.fetchScalar(String.self, sql: "PRAGMA journal_mode = WAL") } }
        try queue.write { try $0.executeScript("CREATE TABLE note(body TEXT); INSERT INTO note VALUES ('backed up');") }
        try queue.backup(to: backupPath, key: key)
        try queue.write { try $0.execute(sql: "INSERT INTO note VALUES ('after the backup')") }
        try queue.close()
    }

    @Test(arguments: [false, true])
    func aRestoreBringsBackTheBackedUpStateUnderTheSameKey(wal: Bool) throws {
        try makeDatabaseAndBackup(wal: wal)
        #expect(try notes(path) == ["backed up", "after the backup"])
        let report = try DatabaseBackup.restore(backup: backupPath, key: key, over: path)
        #expect(report.outputPath == path)
        #expect(report.verification.tables.map(\.rowCount) == [1])
        #expect(try notes(path) == ["backed up"])
        // The backup is untouched, and nothing is left beside the database.
        #expect(try notes(backupPath) == ["backed up"])
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains(".tmp") || $0.hasSuffix("-journal") }
        #expect(left == [])
    }

    @Test func aMissingDatabaseIsCreatedFromTheBackup() throws {
        try makeDatabaseAndBackup()
        try FileManager.default.removeItem(atPath: path)
        try DatabaseBackup.restore(backup: backupPath, key: key, over: path)
        #expect(try notes(path) == ["backed up"])
    }

    @Test func aWrongKeyOrADamagedBackupChangesNothing() throws {
        try makeDatabaseAndBackup()
        let before = fileBytes(path)
        let wrong = try DatabaseKey.rawKey(hex: String(repeating: "11", count: 32))
        #expect(throws: CipherStoreError.wrongKey(path: backupPath)) {
            try DatabaseBackup.restore(backup: backupPath, key: wrong, over: path)
        }
        // Damage past the first page of the backup: found by the integrity check, before anything is written.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: backupPath))
        try handle.seek(toOffset: UInt64(SQLCipherLibrary.defaultPageSize + 300))
        try handle.write(contentsOf: Data(repeating: 0x42, count: 40))
        try handle.close()
        #expect(throws: (any Error).self) { try DatabaseBackup.restore(backup: backupPath, key: key, over: path) }
        #expect(fileBytes(path) == before)
    }

    @Test func aDatabaseInUseByAnotherConnectionIsRefusedUntouched() throws {
        try makeDatabaseAndBackup(wal: true)
        // A WAL database another connection has open cannot be left for the swap.
        let pool = try DatabasePool(path: path, key: key)
        _ = try pool.read { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM note") }
        #expect(throws: DatabaseFileError.self) {
            try DatabaseBackup.restore(backup: backupPath, key: key, over: path, options: DatabaseFileOptions(busyTimeout: 0.2))
        }
        #expect(try pool.read { try String.fetchAll($0, sql: "SELECT body FROM note ORDER BY rowid") } == ["backed up", "after the backup"])
        try pool.close()
        // Once it is closed, the restore goes through.
        try DatabaseBackup.restore(backup: backupPath, key: key, over: path)
        #expect(try notes(path) == ["backed up"])
    }

    @Test func aRefusedRestoreLeavesTheDatabasesWALAsItWas() throws {
        try makeDatabaseAndBackup(wal: true)
        // A log another connection left, with a commit in it.
        let holder = try Connection(path: path, key: key)
        try holder.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        try holder.execute(sql: "INSERT INTO note VALUES ('in the log')")
        let wal = fileBytes(path + "-wal")
        #expect(!wal.isEmpty)
        let wrong = try DatabaseKey.rawKey(hex: String(repeating: "99", count: 32))
        #expect(throws: BackupError.self) { try DatabaseBackup.restore(backup: backupPath, key: key, over: path, currentKey: wrong) }
        #expect(fileBytes(path + "-wal") == wal)
        try holder.close()
    }

    @Test func aBackupOfADamagedDatabaseIsRefusedAsDamage() throws {
        try SampleDatabases.makeLarge(at: path, rows: 3_000, key: key)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64(20 * SQLCipherLibrary.defaultPageSize + 300))
        try handle.write(contentsOf: Data(repeating: 0x5A, count: 32))
        try handle.close()
        #expect {
            try DatabaseBackup.backup(path: path, key: key, to: backupPath)
        } throws: { error in
            if case DatabaseFileError.damaged(let damaged, _) = error { return damaged == path }
            return false
        }
        #expect(!FileManager.default.fileExists(atPath: backupPath))
    }

    @Test func aDatabaseWhoseFirstPageIsDamagedIsReplacedOnlyWhenAsked() throws {
        try makeDatabaseAndBackup()
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seek(toOffset: 100)
        try handle.write(contentsOf: Data(repeating: 0, count: 200))
        try handle.close()
        let damaged = fileBytes(path)
        #expect(throws: BackupError.self) { try DatabaseBackup.restore(backup: backupPath, key: key, over: path) }
        #expect(fileBytes(path) == damaged)
        try DatabaseBackup.restore(backup: backupPath, key: key, over: path, replacingUnreadable: true)
        #expect(try notes(path) == ["backed up"])
    }

    @Test func aSlotDatabaseGetsTheBackupsSlotFileOnlyWhenItsOwnNoLongerOpensIt() throws {
        let db = try Connection(path: path, key: nil)
        try db.executeScript("CREATE TABLE note(body TEXT); INSERT INTO note VALUES ('backed up');")
        try db.close()
        let first = try Passphrase("first restore passphrase"), second = try Passphrase("second restore passphrase")
        let kdf = KeySlotKDF.scrypt(log2N: 14, blockSize: 1, parallelism: 1)
        try KeySlots.encrypt(path: path, passphrase: first, kdf: kdf)
        let dataKey = try DatabaseKey.slots(passphrase: first, path: path)
        let queue = try DatabaseQueue(path: path, key: dataKey)
        try queue.backup(to: backupPath, key: dataKey)
        try queue.write { try $0.execute(sql: "INSERT INTO note VALUES ('after the backup')") }
        try queue.close()

        // Same data key: the database's own slot file is kept, with the passphrase changed since.
        try KeySlots.changePassphrase(path: path, from: first, to: second)
        var report = try DatabaseBackup.restore(backup: backupPath, key: dataKey, over: path)
        #expect(report.slotFilePath == KeySlots.slotFilePath(forDatabase: path))
        #expect(try notes(path, key: DatabaseKey.slots(passphrase: second, path: path)) == ["backed up"])

        // After a rotation the database's slot file opens only the new data key: the backup's comes back.
        try KeySlots.rotateDataKey(path: path, keeping: [second])
        #expect(throws: BackupError.self) { try DatabaseBackup.restore(backup: backupPath, key: dataKey, over: path) }
        report = try DatabaseBackup.restore(backup: backupPath, key: dataKey, over: path,
                                            currentKey: DatabaseKey.slots(passphrase: second, path: path))
        #expect(report.slotFilePath == KeySlots.slotFilePath(forDatabase: path))
        #expect(try notes(path, key: DatabaseKey.slots(passphrase: first, path: path)) == ["backed up"])
    }
}
