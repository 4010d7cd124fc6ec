import CipherStore
import Foundation
import TestSupport
import Testing

/// The `async` forms of `inDatabase`, `inTransaction`, the migrator's `migrate`,
/// `DatabaseKey.slots` and a pool's `changeKey`: each one, called from `async` code, changes
/// the encrypted file on disk as its blocking form does.
@Suite(.timeLimit(.minutes(5))) struct AsyncAccessTests {
    let directory: TemporaryDirectory
    let path: String
    let key: DatabaseKey

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.path("db.sqlite")
        key = try DatabaseKey.rawKey(hex: String(repeating: "5e", count: 32))
    }

    /// The values of `t.n`, read by a connection opened afresh.
    func storedValues(key: DatabaseKey) throws -> [Int] {
        let db = try Connection(path: path, key: key)
        defer { try? db.close() }
        return try db.fetchAll(sql: "SELECT n FROM t ORDER BY n").map { try $0.value(Int.self, at: 0) }
    }

    @Test func queueInDatabaseAndInTransactionWriteWhatTheyCommitAndNothingElse() async throws {
        let queue = try DatabaseQueue(path: path, key: key)
        // The block runs on the queue's own thread, not on one of the cooperative pool's.
        let ranInTask = try await queue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE t(n INTEGER)")
            return withUnsafeCurrentTask { $0 != nil }
        }
        #expect(ranInTask == false)
        #expect(try await queue.inDatabase { $0.isInTransaction } == false)
        try await queue.inTransaction { db in
            #expect(db.isInTransaction)
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            return .commit
        }
        try await queue.inTransaction(.immediate) { db in
            try db.execute(sql: "INSERT INTO t VALUES (2)")
            return .rollback
        }
        await #expect(throws: CipherStoreError.invalidConfiguration(reason: "refused")) {
            try await queue.inTransaction { db in
                try db.execute(sql: "INSERT INTO t VALUES (3)")
                throw CipherStoreError.invalidConfiguration(reason: "refused")
            }
        }
        try queue.close()
        #expect(try storedValues(key: key) == [1])
    }

    @Test func poolInTransactionWritesWhatItCommitsAlsoThroughTheProtocol() async throws {
        let pool = try DatabasePool(path: path, key: key)
        try await pool.write { try $0.execute(sql: "CREATE TABLE t(n INTEGER)") }
        try await pool.inTransaction { db in
            try db.execute(sql: "INSERT INTO t VALUES (1)")
            return .commit
        }
        let writer: any DatabaseWriter = pool
        try await writer.inTransaction(.immediate) { db in
            try db.execute(sql: "INSERT INTO t VALUES (2)")
            return .commit
        }
        try await writer.inTransaction(.deferred) { db in
            try db.execute(sql: "INSERT INTO t VALUES (3)")
            return .rollback
        }
        try pool.close()
        #expect(try storedValues(key: key) == [1, 2])
    }

    @Test func asyncMigrateAppliesEachMigrationOnce() async throws {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1 table") { db in try db.execute(sql: "CREATE TABLE t(n INTEGER)") }
        migrator.registerMigration("v2 first row") { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        let queue = try DatabaseQueue(path: path, key: key)
        try await migrator.migrate(queue)
        #expect(try await migrator.appliedMigrations(queue) == ["v1 table", "v2 first row"])
        // A second run finds nothing to do: the row-inserting migration does not run again.
        try await migrator.migrate(queue)
        try queue.close()
        #expect(try storedValues(key: key) == [1])

        let pool = try DatabasePool(path: path, key: key)
        try await migrator.migrate(pool)
        #expect(try await migrator.appliedMigrations(pool) == ["v1 table", "v2 first row"])
        try pool.close()
        #expect(try storedValues(key: key) == [1])
    }

    @Test func asyncMigrateAdoptsUserVersion() async throws {
        let queue = try DatabaseQueue(path: path, key: key)
        try await queue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE t(n INTEGER)")
            try db.execute(sql: "PRAGMA user_version = 1")
        }
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1 table") { db in try db.execute(sql: "CREATE TABLE t(n INTEGER)") }
        migrator.registerMigration("v2 first row") { db in try db.execute(sql: "INSERT INTO t VALUES (2)") }
        try await migrator.migrate(queue, adoptingUserVersion: true)
        try await migrator.migrate(queue, adoptingUserVersion: true)
        #expect(try await migrator.appliedMigrations(queue) == ["v1 table", "v2 first row"])
        try queue.close()
        #expect(try storedValues(key: key) == [2])
    }

    @Test func asyncSlotsDerivesTheKeyThatOpensTheDatabase() async throws {
        try SampleDatabases.makeLarge(at: path, rows: 50)
        let passphrase = try Passphrase(bytes: Array("async slots passphrase".utf8))
        let other = try Passphrase(bytes: Array("not this database's passphrase".utf8))
        try await KeySlots.encrypt(path: path, passphrase: passphrase, kdf: .scrypt(log2N: 14, blockSize: 1, parallelism: 1))
        let slotKey = try await DatabaseKey.slots(passphrase: passphrase, path: path)
        let queue = try DatabaseQueue(path: path, key: slotKey)
        let tables = try await queue.read { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'table'") }
        #expect((tables ?? 0) > 0)
        try queue.close()
        await #expect(throws: (any Error).self) { _ = try await DatabaseKey.slots(passphrase: other, path: path) }
    }

    @Test func asyncPoolChangeKeyRotatesTheFileSoOnlyTheNewKeyOpensIt() async throws {
        let oldKey = try DatabaseKey.passphrase("old async passphrase")
        let newKey = try DatabaseKey.passphrase("new async passphrase")
        let pool = try DatabasePool(path: path, key: oldKey)
        try await pool.write { db in
            try db.execute(sql: "CREATE TABLE t(n INTEGER)")
            try db.execute(sql: "INSERT INTO t VALUES (1), (2)")
        }
        let report = try await pool.changeKey(to: newKey)
        #expect(report.verification.isEncrypted)
        // The pool goes on, with the new key.
        try await pool.write { try $0.execute(sql: "INSERT INTO t VALUES (3)") }
        try pool.close()
        #expect(throws: CipherStoreError.wrongKey(path: path)) { try storedValues(key: oldKey) }
        #expect(try storedValues(key: newKey) == [1, 2, 3])
    }

    @Test func aPoolChangeKeyFromACancelledTaskChangesNothing() async throws {
        let oldKey = try DatabaseKey.passphrase("old async passphrase")
        let pool = try DatabasePool(path: path, key: oldKey)
        try await pool.write { db in
            try db.execute(sql: "CREATE TABLE t(n INTEGER)")
            try db.execute(sql: "INSERT INTO t VALUES (1)")
        }
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await pool.changeKey(to: .passphrase("new async passphrase"))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await pool.read { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") } == 1)
        try pool.close()
        #expect(try storedValues(key: oldKey) == [1])
    }
}
