import TestSupport
import CipherStore
import Testing

/// `read` on a queue is read-only and isolated; `inDatabase` runs a block without a transaction.
@Suite struct QueueReadOnlyTests {
    let directory: TemporaryDirectory
    let queue: DatabaseQueue

    init() throws {
        directory = try TemporaryDirectory()
        queue = try DatabaseQueue(path: directory.path("db.sqlite"), key: .passphrase("k"))
        try queue.inDatabase { try $0.execute(sql: "CREATE TABLE t(n INTEGER)") }
    }

    @Test func aWriteInsideReadFailsWithAClearErrorAndChangesNothing() throws {
        let error = #expect(throws: CipherStoreError.self) {
            try queue.read { db in try db.execute(sql: "INSERT INTO t VALUES (1)") }
        }
        #expect(error == .writeInsideRead(sql: "INSERT INTO t VALUES (1)"))
        #expect(error?.description.contains("write {") == true)
        #expect(try queue.inDatabase { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") } == 0)
        // The connection is usable for writes again afterwards.
        try queue.write { try $0.execute(sql: "INSERT INTO t VALUES (2)") }
        #expect(try queue.read { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") } == 1)
    }

    @Test func asyncReadRefusesWritesToo() async throws {
        await #expect(throws: CipherStoreError.writeInsideRead(sql: "DELETE FROM t")) {
            try await queue.read { db in try db.execute(sql: "DELETE FROM t") }
        }
    }

    @Test func readRunsInATransactionAndInDatabaseWithoutOne() throws {
        #expect(try queue.read { $0.isInTransaction })
        #expect(try queue.inDatabase { $0.isInTransaction } == false)
        try queue.inDatabase { try $0.execute(sql: "INSERT INTO t VALUES (3)") }
        #expect(try queue.read { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") } == 1)
    }

    @Test func transactionIsTheAsyncFormOfInTransaction() async throws {
        try await queue.transaction(.immediate) { db in
            try db.execute(sql: "INSERT INTO t VALUES (4)")
            return .commit
        }
        try await queue.transaction { db in
            try db.execute(sql: "INSERT INTO t VALUES (5)")
            return .rollback
        }
        #expect(try await queue.read { try $0.fetchAll(sql: "SELECT n FROM t").map { try $0.value(Int.self, at: 0) } } == [4])
    }

    @Test func aMigratorAndServicesTakeAnyWriter() throws {
        let writer: any DatabaseWriter = queue
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in try db.execute(sql: "CREATE TABLE u(x)") }
        try migrator.migrate(writer)
        #expect(try writer.writeWithoutTransaction { try migrator.appliedMigrations($0) } == ["v1"])
    }
}
