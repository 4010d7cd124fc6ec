@testable import CipherStore
import CSQLCipher
import Foundation
import Testing

@Suite struct StatementCacheTests {
    func connection(capacity: Int) throws -> Connection {
        let db = try Connection(location: .inMemory, key: .passphrase("k"), configuration: Configuration(statementCacheCapacity: capacity))
        try db.execute(sql: "CREATE TABLE t(x)")
        return db
    }

    @Test func distinctStatementsStayWithinTheCapacity() throws {
        let db = try connection(capacity: 16)
        for i in 0..<2_000 {
            #expect(try db.fetchScalar(Int.self, sql: "SELECT \(i)") == i)
        }
        #expect(db.cachedStatementCount == 16)
    }

    @Test func defaultCapacityIsSixtyFour() {
        #expect(Configuration().statementCacheCapacity == 64)
    }

    @Test func theLeastRecentlyUsedStatementIsDropped() throws {
        let db = try connection(capacity: 2)
        let a = try db.cachedStatement(sql: "SELECT 'a'")
        let b = try db.cachedStatement(sql: "SELECT 'b'")
        #expect(try db.cachedStatement(sql: "SELECT 'a'") === a)
        _ = try db.cachedStatement(sql: "SELECT 'c'")
        #expect(try db.cachedStatement(sql: "SELECT 'a'") === a)
        #expect(try db.cachedStatement(sql: "SELECT 'b'") !== b)
    }

    @Test func aCursorOutlivesTheEvictionOfItsStatement() throws {
        let db = try connection(capacity: 1)
        try db.executeScript("INSERT INTO t VALUES (1); INSERT INTO t VALUES (2); INSERT INTO t VALUES (3);")
        let cursor = try db.fetchCursor(sql: "SELECT x FROM t ORDER BY x")
        #expect(try cursor.next()?.value(Int.self, at: 0) == 1)
        // Each of these takes the cache's only slot.
        for i in 0..<10 { _ = try db.fetchOne(sql: "SELECT \(i)") }
        #expect(try cursor.next()?.value(Int.self, at: 0) == 2)
        #expect(try cursor.next()?.value(Int.self, at: 0) == 3)
        #expect(try cursor.next() == nil)
    }

    /// SQLite calls a statement busy only from its first step: two cursors made before either
    /// is read must still get a statement each.
    @Test func cursorsMadeBeforeTheirFirstStepEachKeepAStatement() throws {
        let db = try connection(capacity: 16)
        try db.executeScript("INSERT INTO t VALUES (1); INSERT INTO t VALUES (2); INSERT INTO t VALUES (3);")
        let first = try db.fetchCursor(sql: "SELECT x FROM t ORDER BY x")
        let second = try db.fetchCursor(sql: "SELECT x FROM t ORDER BY x")
        var fromFirst: [Int] = [], fromSecond: [Int] = []
        for _ in 0..<4 {
            if let row = try first.next() { fromFirst.append(try row.value(Int.self, at: 0)) }
            if let row = try second.next() { fromSecond.append(try row.value(Int.self, at: 0)) }
        }
        #expect(fromFirst == [1, 2, 3])
        #expect(fromSecond == [1, 2, 3])
    }

    @Test func aCursorGivesItsStatementBackWhenDone() throws {
        let db = try connection(capacity: 16)
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        let sql = "SELECT x FROM t"
        let cached = try db.cachedStatement(sql: sql)
        let cursor = try db.fetchCursor(sql: sql)
        #expect(try db.cachedStatement(sql: sql) !== cached, "held by a cursor not yet read")
        while try cursor.next() != nil {}
        #expect(try db.cachedStatement(sql: sql) === cached, "given back when the cursor is done")
        for _ in 0..<2 { _ = try db.fetchCursor(sql: sql) }
        #expect(try db.cachedStatement(sql: sql) === cached, "given back by a cursor released unread")
    }

    @Test func capacityZeroCachesNothing() throws {
        let db = try connection(capacity: 0)
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") == 1)
        #expect(db.cachedStatementCount == 0)
    }

    @Test func negativeCapacityIsRefused() {
        #expect(throws: CipherStoreError.self) {
            try Connection(location: .inMemory, key: nil, configuration: Configuration(statementCacheCapacity: -1))
        }
    }

    @Test func savepointsReuseTheirNamesByDepth() throws {
        let db = try connection(capacity: 64)
        // The table made above changed the schema: the next cached statement starts the cache
        // afresh, so the count is taken after one.
        _ = try db.cachedStatement(sql: "SELECT 1")
        let before = db.cachedStatementCount
        var traced: [String] = []
        try db.trace { traced.append($0) }
        for _ in 0..<500 {
            try db.inSavepoint {
                try db.inSavepoint { .rollback }
                return .commit
            }
        }
        try db.trace(nil)
        let names = Set(traced.filter { $0.hasPrefix("SAVEPOINT") })
        #expect(names == ["SAVEPOINT cipherstore_savepoint_1", "SAVEPOINT cipherstore_savepoint_2"])
        // SAVEPOINT and RELEASE for two depths, and ROLLBACK TO for the inner one.
        #expect(db.cachedStatementCount == before + 5)
    }
}

/// The memory the connection's prepared statements hold, as SQLite counts it for this
/// connection alone (`SQLITE_DBSTATUS_STMT_USED`): the process's resident memory also grows
/// with the tests that run beside this one.
@Suite struct StatementCacheMemoryTests {
    static func statementBytes(_ db: Connection) throws -> Int {
        var current: Int32 = 0
        var highwater: Int32 = 0
        #expect(sqlite3_db_status(try db.handle.pointer, SQLITE_DBSTATUS_STMT_USED, &current, &highwater, 0) == SQLITE_OK)
        return Int(current)
    }

    @Test func hundredThousandDistinctStatementsKeepMemoryFlat() throws {
        let db = try Connection(location: .inMemory, key: .passphrase("k"))
        for i in 0..<1_000 { _ = try db.fetchOne(sql: "SELECT \(i)") }
        let baseline = try Self.statementBytes(db)
        var peak = baseline
        for i in 1_000..<101_000 {
            _ = try db.fetchOne(sql: "SELECT \(i), 'a fairly long result column to make each statement cost memory'")
            if i % 1_000 == 0 { peak = max(peak, try Self.statementBytes(db)) }
        }
        #expect(baseline > 0 && peak > 0, "the statements' memory is measured")
        #expect(db.cachedStatementCount == Configuration().statementCacheCapacity)
        // Kept, 100,000 prepared statements take well over 100 MB.
        #expect(peak - baseline < 20_000_000, "the statements' memory grew by \(peak - baseline) bytes")
    }
}
