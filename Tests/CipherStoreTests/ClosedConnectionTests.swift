@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// One public way into a connection, named for the test report.
struct ConnectionEntryPoint: Sendable, CustomTestStringConvertible {
    let name: String
    let body: @Sendable (Connection) throws -> Void
    var testDescription: String { name }
}

private struct Note: Codable { var id: Int; var body: String }
private struct NewNote: Codable, RowIDRecord, FetchableRecord { var id: Int64?; var body: String }

/// A migrator with one migration, for the migrator's entry points.
private let migrator: DatabaseMigrator = {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1") { try $0.execute(sql: "CREATE TABLE v1(x)") }
    return migrator
}()

/// Every entry point of a closed connection throws `connectionClosed` instead of calling
/// SQLite with a freed handle (AddressSanitizer reports it under `make check-sanitizers`).
@Suite struct ClosedConnectionTests {
    static let entryPoints: [ConnectionEntryPoint] = [
        .init(name: "execute") { try $0.execute(sql: "INSERT INTO t VALUES (1)") },
        .init(name: "executeScript") { try $0.executeScript("INSERT INTO t VALUES (1); INSERT INTO t VALUES (2);") },
        .init(name: "makeStatement") { _ = try $0.makeStatement(sql: "SELECT x FROM t") },
        .init(name: "cachedStatement") { _ = try $0.cachedStatement(sql: "SELECT x FROM t") },
        .init(name: "fetchCursor") { _ = try $0.fetchCursor(sql: "SELECT x FROM t") },
        .init(name: "fetchAll") { _ = try $0.fetchAll(sql: "SELECT x FROM t") },
        .init(name: "fetchOne") { _ = try $0.fetchOne(sql: "SELECT x FROM t") },
        .init(name: "fetchScalar") { _ = try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") },
        .init(name: "fetchAll records") { _ = try $0.fetchAll(Note.self, sql: "SELECT 1 AS id, 'a' AS body") },
        .init(name: "fetchOne record") { _ = try $0.fetchOne(Note.self, sql: "SELECT 1 AS id, 'a' AS body") },
        .init(name: "fetchCursor records") { _ = try $0.fetchCursor(Note.self, sql: "SELECT 1 AS id, 'a' AS body") },
        .init(name: "insert record") { try $0.insert(Note(id: 1, body: "a"), into: "note") },
        .init(name: "update record") { try $0.update(Note(id: 1, body: "b"), in: "note") },
        .init(name: "insert record setting its id") { db in
            var note = NewNote(id: nil, body: "a")
            try db.insert(&note, into: "note")
        },
        .init(name: "delete record") { try $0.delete(Note(id: 1, body: "a"), from: "note") },
        .init(name: "deleteOne") { try $0.deleteOne(from: "note", key: 1) },
        .init(name: "Record.fetchAll") { _ = try NewNote.fetchAll($0, sql: "SELECT id, body FROM note") },
        .init(name: "Record.fetchOne") { _ = try NewNote.fetchOne($0, sql: "SELECT id, body FROM note") },
        .init(name: "migrator.migrate") { try migrator.migrate($0) },
        .init(name: "migrator.migrate adopting user_version") { try migrator.migrate($0, adoptingUserVersion: true) },
        .init(name: "migrator.markApplied") { try migrator.markApplied(["v1"], in: $0) },
        .init(name: "migrator.appliedMigrations") { _ = try migrator.appliedMigrations($0) },
        .init(name: "beginTransaction") { try $0.beginTransaction() },
        .init(name: "commit") { try $0.commit() },
        .init(name: "rollback") { try $0.rollback() },
        .init(name: "inTransaction") { db in try db.inTransaction { .commit } },
        .init(name: "inSavepoint") { db in try db.inSavepoint { .commit } },
        .init(name: "trace") { try $0.trace { _ in } },
        .init(name: "trace(nil)") { try $0.trace(nil) },
        .init(name: "tableExists") { _ = try $0.tableExists("t") },
        .init(name: "columnNames") { _ = try $0.columnNames(ofTable: "t") },
        .init(name: "userVersion") { _ = try $0.userVersion() },
        .init(name: "rebuildTable") { try $0.rebuildTable("t", as: "CREATE TABLE t(x, y)", copying: "x, NULL") },
        .init(name: "applyCipherSettings") { try $0.applyCipherSettings(CipherSettings(kdfIterations: 64_000), database: "main") },
    ]

    /// A connection that was used (so its counters are not zero), then closed.
    static func closedConnection(in directory: TemporaryDirectory) throws -> Connection {
        let db = try Connection(path: directory.path("db.sqlite"), key: .passphrase("k"))
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT)")
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        try db.close()
        return db
    }

    @Test(arguments: entryPoints)
    func entryPointOfAClosedConnectionThrowsConnectionClosed(_ entryPoint: ConnectionEntryPoint) throws {
        let directory = try TemporaryDirectory()
        let db = try Self.closedConnection(in: directory)
        #expect(throws: CipherStoreError.connectionClosed) { try entryPoint.body(db) }
    }

    @Test func propertiesOfAClosedConnectionReadZeroAndFalse() throws {
        let directory = try TemporaryDirectory()
        let db = try Connection(path: directory.path("db.sqlite"), key: .passphrase("k"))
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.beginTransaction()
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        #expect(db.lastInsertedRowID == 1 && db.changesCount == 1 && db.totalChangesCount == 1 && db.isInTransaction)
        try db.close()
        #expect(db.lastInsertedRowID == 0)
        #expect(db.changesCount == 0)
        #expect(db.totalChangesCount == 0)
        #expect(!db.isInTransaction)
        // Closing rolled the open transaction back.
        let reopened = try Connection(path: directory.path("db.sqlite"), key: .passphrase("k"))
        #expect(try reopened.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") == 0)
    }

    @Test func closingTwiceDoesNothing() throws {
        let directory = try TemporaryDirectory()
        let db = try Self.closedConnection(in: directory)
        try db.close()
        #expect(throws: CipherStoreError.connectionClosed) { try db.execute(sql: "SELECT 1") }
    }

    @Test func statementAndCursorMadeBeforeCloseKeepTheConnectionOpen() throws {
        let directory = try TemporaryDirectory()
        let db = try Connection(path: directory.path("db.sqlite"), key: .passphrase("k"))
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.execute(sql: "INSERT INTO t VALUES (1), (2)")
        var statement: Statement? = try db.makeStatement(sql: "SELECT x FROM t ORDER BY x")
        var cursor: RowCursor? = try db.fetchCursor(sql: "SELECT x FROM t ORDER BY x DESC")
        #expect(throws: CipherStoreError.statementsStillAlive) { try db.close() }
        // The failed close left everything usable.
        #expect(try statement?.step() == true)
        #expect(statement?.int(at: 0) == 1)
        #expect(try cursor?.next()?.value(Int.self, at: 0) == 2)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") == 2)
        statement = nil
        cursor = nil
        try db.close()
        #expect(throws: CipherStoreError.connectionClosed) { try db.fetchCursor(sql: "SELECT x FROM t") }
    }

    @Test func queueAfterCloseThrowsConnectionClosed() async throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.path("db.sqlite"), key: .passphrase("k"))
        try await queue.inDatabase { try $0.execute(sql: "CREATE TABLE t(x)") }
        try queue.close()
        try queue.close()
        #expect(throws: CipherStoreError.connectionClosed) { try queue.inDatabase { try $0.execute(sql: "SELECT 1") } }
        #expect(throws: CipherStoreError.connectionClosed) { try queue.inTransaction { _ in .commit } }
        await #expect(throws: CipherStoreError.connectionClosed) { try await queue.read { try $0.fetchAll(sql: "SELECT x FROM t").count } }
        await #expect(throws: CipherStoreError.connectionClosed) { try await queue.write { try $0.execute(sql: "INSERT INTO t VALUES (1)") } }
        await #expect(throws: CipherStoreError.connectionClosed) { try await queue.transaction { _ in .commit } }
        await #expect(throws: CipherStoreError.connectionClosed) { try await queue.inDatabase { try $0.execute(sql: "SELECT 1") } }
        await #expect(throws: CipherStoreError.connectionClosed) { try await queue.inTransaction { _ in .commit } }
        #expect(try await queue.inDatabase { $0.isInTransaction } == false)
    }

    @Test func closedErrorSaysWhatToDo() {
        #expect(CipherStoreError.connectionClosed.description.contains("Open a new Connection"))
    }
}
