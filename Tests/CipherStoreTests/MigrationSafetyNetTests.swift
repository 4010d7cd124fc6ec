import CipherStore
import Crypto
import Foundation
import TestSupport
import Testing

/// The migrator's snapshot: a migration that throws leaves the file byte for byte as it was
/// before the migrations, and a successful run leaves no snapshot unless asked to.
@Suite struct MigrationSafetyNetTests {
    struct BrokenMigration: Error, Equatable {}

    static let passphrase = "safety net"

    /// A database at "v0 base" (a table with rows), checkpointed so that its file holds every
    /// commit; returns the queue and the file's SHA-256.
    static func baseDatabase(_ path: String, mode: JournalMode) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: path, key: .passphrase(passphrase), configuration: Configuration(journalMode: mode))
        var base = DatabaseMigrator()
        base.registerMigration("v0 base") { db in
            try db.execute(sql: "CREATE TABLE base(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
            for n in 0..<200 { try db.execute(sql: "INSERT INTO base(body) VALUES (?)", arguments: ["row \(n)"]) }
        }
        try base.migrate(queue)
        if mode == .wal { try queue.inDatabase { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") } }
        return queue
    }

    static func sha256(_ path: String) -> String {
        SHA256.hash(data: fileBytes(path)).map { String(format: "%02x", $0) }.joined()
    }

    /// v0, then three migrations: the second writes, then throws.
    static func failingMigrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v0 base") { _ in }
        migrator.registerMigration("v1 added") { db in
            try db.execute(sql: "CREATE TABLE added(x)")
            try db.execute(sql: "INSERT INTO base(body) VALUES ('from v1')")
        }
        migrator.registerMigration("v2 broken") { db in
            try db.execute(sql: "UPDATE base SET body = 'changed'")
            throw BrokenMigration()
        }
        migrator.registerMigration("v3 never") { db in try db.execute(sql: "CREATE TABLE never(x)") }
        return migrator
    }

    /// The state before the migrations, seen through `queue`'s own connection.
    static func expectBaseState(_ queue: DatabaseQueue) throws {
        try queue.read { (db: Connection) throws in
            #expect(try !db.tableExists("added"))
            #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM base") == 200)
            #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM base WHERE body = 'changed'") == 0)
            #expect(try DatabaseMigrator().appliedMigrations(db) == ["v0 base"])
        }
    }

    @Test(arguments: [JournalMode.delete, .wal])
    func migrationThatThrowsAtStepTwoOfThreeLeavesTheFileByteForByte(mode: JournalMode) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        let queue = try Self.baseDatabase(path, mode: mode)
        let before = Self.sha256(path)
        do {
            try Self.failingMigrator().migrate(queue)
            Issue.record("the migration did not throw")
        } catch MigrationError.failedAndRestored(let migration, let underlying) {
            #expect(migration == "v2 broken")
            #expect(underlying as? BrokenMigration == BrokenMigration())
        }
        #expect(Self.sha256(path) == before)
        #expect(sizeOfFile(path + "-wal") == 0)
        #expect(!FileManager.default.fileExists(atPath: path + ".migration-snapshot"))
        #expect(!FileManager.default.fileExists(atPath: path + ".migration-in-progress"))
        // The queue that ran the migrations sees the restored file, not its cached pages.
        try Self.expectBaseState(queue)
        try queue.close()
        // And the file opens with its key, whole.
        let reopened = try DatabaseQueue(path: path, key: .passphrase(Self.passphrase))
        #expect(try reopened.read { db in try db.fetchScalar(String.self, sql: "PRAGMA integrity_check") } == "ok")
        try Self.expectBaseState(reopened)
    }

    @Test func restoredErrorNamesTheMigrationSaysRestoredAndStillMatchesItsResultCode() throws {
        let directory = try TemporaryDirectory()
        let queue = try Self.baseDatabase(directory.path("app.db"), mode: .delete)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v0 base") { _ in }
        migrator.registerMigration("v1 unique") { db in try db.execute(sql: "INSERT INTO base(id, body) VALUES (1, 'dup')") }
        do {
            try migrator.migrate(queue)
            Issue.record("the migration did not throw")
        } catch ResultCode.SQLITE_CONSTRAINT {
            // Still matched by its result code, through the wrapper.
        }
        do {
            try migrator.migrate(queue)
        } catch let error as MigrationError {
            #expect("\(error)".contains("'v1 unique'"))
            #expect("\(error)".contains("restored to its state before the migrations"))
            #expect(!"\(error)".contains(Self.passphrase))
            #expect((error.underlyingError as? DatabaseError)?.resultCode.primaryResultCode == .SQLITE_CONSTRAINT)
        }
    }

    @Test func successRemovesTheSnapshotAndKeepsItWhenAsked() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        let queue = try Self.baseDatabase(path, mode: .delete)
        let before = Self.sha256(path)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v0 base") { _ in }
        migrator.registerMigration("v1 added") { db in try db.execute(sql: "CREATE TABLE added(x)") }
        migrator.keepsSnapshotAfterMigration = true
        try migrator.migrate(queue)
        #expect(Self.sha256(path + ".migration-snapshot") == before)
        #expect(!FileManager.default.fileExists(atPath: path + ".migration-in-progress"))
        // The kept snapshot is a database of its own, encrypted with the same key.
        let copy = try DatabaseQueue(path: path + ".migration-snapshot", key: .passphrase(Self.passphrase),
                                     configuration: Configuration(readOnly: true))
        try Self.expectBaseState(copy)
        try copy.close()

        migrator.registerMigration("v2 more") { db in try db.execute(sql: "CREATE TABLE more(x)") }
        migrator.keepsSnapshotAfterMigration = false
        try migrator.migrate(queue)
        #expect(!FileManager.default.fileExists(atPath: path + ".migration-snapshot"))
        #expect(try migrator.appliedMigrations(queue) == ["v0 base", "v1 added", "v2 more"])
        // Nothing pending: no snapshot is taken, and the file is not written.
        let migrated = Self.sha256(path)
        try migrator.migrate(queue)
        #expect(Self.sha256(path) == migrated)
    }

    @Test func poolRestoresAndItsReadersSeeTheRestoredFile() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        try Self.baseDatabase(path, mode: .wal).close()
        let pool = try DatabasePool(path: path, key: .passphrase(Self.passphrase))
        #expect(try await pool.read { db in try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM base") } == 200)
        try await pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        let before = Self.sha256(path)
        await #expect(throws: MigrationError.self) { try await Self.failingMigrator().migrate(pool) }
        #expect(Self.sha256(path) == before)
        let state = try await pool.read { (db: Connection) throws in
            (try db.tableExists("added"), try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM base WHERE body = 'changed'"))
        }
        #expect(state.0 == false && state.1 == 0)
        try pool.close()
    }

    @Test func inMemoryDatabaseRethrowsTheMigrationErrorUnchanged() throws {
        let queue = try DatabaseQueue(location: .inMemory, key: nil)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { _ in throw BrokenMigration() }
        #expect(throws: BrokenMigration()) { try migrator.migrate(queue) }
    }
}

/// The size of a file; 0 when it does not exist.
private func sizeOfFile(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
}
