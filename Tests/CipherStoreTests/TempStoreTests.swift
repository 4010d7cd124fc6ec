@testable import CipherStore
import Foundation
import Synchronization
import TestSupport
import Testing

/// Temporary storage stays in memory: SQLCipher does not encrypt temporary files, so a sort
/// or an index build larger than the page cache must not spill the rows to an `etilqs_*` file.
///
/// SQLite on Unix deletes a temporary file as soon as it opens it, so no directory listing
/// shows one: the test looks at the process's open files (`/proc/self/fd`) from inside the
/// statements, through a SQL function that each row goes through while the sort fills up.
/// A control run with temporary storage put on disk shows that the same workload, looked at
/// the same way, finds the files (SQLCipher 3.4.1 and this 4.6.1 library are built to keep
/// temporary storage in memory unless told otherwise, so there the `PRAGMA temp_store`
/// reading is what fails when a connection does not set it; SQLite's own default build, and
/// the 4.6.1 shell, use files). Serialized: the control's files are the process's, which the
/// other tests look at.
@Suite(.serialized, .timeLimit(.minutes(3))) struct TempStoreTests {
    let directory: TemporaryDirectory
    let path: String
    let key: DatabaseKey

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.path("temp-store.db")
        key = try DatabaseKey.rawKey(hex: String(repeating: "2e", count: 32))
    }

    /// The SQLite temporary files this process has open now.
    static func openTemporaryFiles() -> [String] {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) }
            .filter { $0.contains("etilqs_") }
    }

    /// `probe(x)` returns `x`, and every 200 calls notes the temporary files open then.
    final class Probe: Sendable {
        let calls = Atomic<Int>(0)
        let seen = Mutex<Set<String>>([])

        var function: DatabaseFunction {
            DatabaseFunction("probe", argumentCount: 1, pure: true) { [self] values in
                if calls.add(1, ordering: .relaxed).newValue % 200 == 0 { note() }
                return values[0]
            }
        }

        func note() {
            let files = TempStoreTests.openTemporaryFiles()
            if !files.isEmpty { seen.withLock { $0.formUnion(files) } }
        }
    }

    /// 20,000 rows of 300 random-looking bytes (6 MB): far more than a 16-page cache and
    /// than SQLite's in-memory sort threshold when temporary storage is on disk.
    static let schema = """
        PRAGMA cache_size = 16;
        CREATE TABLE secret(id INTEGER PRIMARY KEY, payload TEXT);
        WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000)
        INSERT INTO secret(payload) SELECT printf('%.300c', char(65 + abs(random()) % 26)) || x FROM c;
        """

    /// Sorts and indexes the table through `probe`, then checks what it saw.
    static func sortAndIndex(_ db: Connection, probe: Probe, index: String) throws {
        try db.execute(sql: "PRAGMA cache_size = 16")
        let cursor = try db.fetchCursor(sql: "SELECT payload FROM secret ORDER BY probe(payload) DESC")
        #expect(try cursor.next() != nil)
        // The sort is done; what it spilled is still open while its rows are read.
        probe.note()
        var rows = 1
        while try cursor.next() != nil { rows += 1 }
        #expect(rows == 20_000)
        try db.execute(sql: "CREATE INDEX \(index) ON secret(payload) WHERE probe(id) IS NOT NULL")
        #expect(probe.calls.load(ordering: .relaxed) >= 40_000)
    }

    @Test func aSortAndAnIndexLargerThanThePageCacheWriteNoTemporaryFile() throws {
        let queue = try DatabaseQueue(path: path, key: key)
        defer { try? queue.close() }
        #expect(try queue.read { try $0.fetchScalar(Int.self, sql: "PRAGMA temp_store") } == 2)
        try queue.write { try $0.executeScript(Self.schema) }
        let probe = Probe()
        try queue.inDatabase { db in
            try db.add(function: probe.function)
            try Self.sortAndIndex(db, probe: probe, index: "secret_payload")
        }
        #expect(probe.seen.withLock { $0 }.isEmpty, "temporary files: \(probe.seen.withLock { $0 })")
    }

    @Test func theControlRunWithTemporaryStorageOnDiskFindsTheFiles() throws {
        let db = try Connection(path: path, key: key)
        defer { try? db.close() }
        try db.executeScript(Self.schema)
        db.handle.hooks.allowsTemporaryFiles = true
        try db.execute(sql: "PRAGMA temp_store = FILE")
        let probe = Probe()
        try db.add(function: probe.function)
        try Self.sortAndIndex(db, probe: probe, index: "secret_payload")
        #expect(!probe.seen.withLock { $0 }.isEmpty)
    }

    @Test func aPoolsReadersKeepTemporaryStorageInMemoryToo() throws {
        let probe = Probe()
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.add(function: probe.function) }
        let pool = try DatabasePool(path: path, key: key, configuration: configuration)
        defer { try? pool.close() }
        try pool.write { try $0.executeScript(Self.schema) }
        #expect(try pool.read { try $0.fetchScalar(Int.self, sql: "PRAGMA temp_store") } == 2)
        let rows = try pool.read { db in
            try db.execute(sql: "PRAGMA cache_size = 16")
            return try String.fetchAll(db, sql: "SELECT payload FROM secret ORDER BY probe(payload)").count
        }
        #expect(rows == 20_000)
        try pool.write { try Self.sortAndIndex($0, probe: probe, index: "secret_payload") }
        #expect(probe.seen.withLock { $0 }.isEmpty, "temporary files: \(probe.seen.withLock { $0 })")
    }

    @Test func temporaryStorageOnDiskIsRefusedInSQL() throws {
        let db = try Connection(path: path, key: key)
        defer { try? db.close() }
        #expect(try db.fetchScalar(Int.self, sql: "PRAGMA temp_store") == 2)
        for sql in ["PRAGMA temp_store = FILE", "PRAGMA temp_store = 1", "PRAGMA main.temp_store = DEFAULT",
                    "PRAGMA temp_store_directory = '/tmp'"] {
            let error = try #require(throws: DatabaseError.self) { try db.execute(sql: sql) }
            #expect(error.resultCode == .SQLITE_AUTH)
            #expect(error.message?.contains("temp_store can only be MEMORY") == true, "\(error)")
        }
        try db.execute(sql: "PRAGMA temp_store = memory")
        #expect(try db.fetchScalar(Int.self, sql: "PRAGMA temp_store") == 2)
    }
}
