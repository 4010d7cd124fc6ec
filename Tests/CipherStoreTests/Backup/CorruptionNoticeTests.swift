@testable import CipherStore
import Foundation
import TestSupport
import Synchronization
import Testing

/// A queue or pool tells the app, once, when SQLite finds the database damaged at run time.
@Suite struct CorruptionNoticeTests {
    enum Access: String, CaseIterable { case queue, pool }

    let directory: TemporaryDirectory
    let path: String
    let key: DatabaseKey

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.path("damaged.db")
        key = try DatabaseKey.rawKey(hex: String(repeating: "c3", count: 32))
        try SampleDatabases.makeLarge(at: path, rows: 2_000, key: key)
    }

    /// Overwrites 64 bytes in the middle of a page past the schema: the file still opens, and
    /// reading that page fails its HMAC.
    func damagePage(_ page: Int) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64((page - 1) * SQLCipherLibrary.defaultPageSize + 200))
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 64))
        try handle.close()
    }

    @Test(arguments: Access.allCases)
    func damageFoundByAQueryCallsTheHandlerOnceWithThePathAndTheError(access: Access) throws {
        if access == .pool {
            let db = try Connection(path: path, key: key)
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.close()
        }
        try damagePage(40)
        let database: any DatabaseReader = access == .pool ? try DatabasePool(path: path, key: key) : try DatabaseQueue(path: path, key: key)
        defer { try? database.close() }
        let notices = Mutex<[DatabaseCorruption]>([])
        database.onCorruption { notice in notices.withLock { $0.append(notice) } }
        // The schema and the first pages read fine.
        #expect(try database.read { try $0.fetchScalar(Int.self, sql: "SELECT id FROM big WHERE id = 1") } == 1)
        #expect(notices.withLock { $0.isEmpty })

        var thrown: [DatabaseError] = []
        for _ in 0..<3 {
            do {
                _ = try database.read { try $0.fetchScalar(Int.self, sql: "SELECT sum(length(body)) FROM big") }
            } catch let error as DatabaseError {
                thrown.append(error)
            }
        }
        #expect(thrown.count == 3)
        let received = notices.withLock { $0 }
        try #require(received.count == 1)
        #expect(received[0].path == path)
        #expect(CorruptionWatch.isDamage(received[0].error))
        #expect(received[0].error.resultCode == thrown[0].resultCode)
    }

    @Test func anErrorCaughtByTheAppStillCallsTheHandler() throws {
        try damagePage(40)
        let queue = try DatabaseQueue(path: path, key: key)
        let called = Atomic<Int>(0)
        queue.onCorruption { _ in called.add(1, ordering: .relaxed) }
        // No transaction around it: SQLCipher 4 would fail its commit too.
        let sum = try queue.inDatabase { db in
            (try? db.fetchScalar(Int.self, sql: "SELECT sum(length(body)) FROM big")) ?? -1
        }
        #expect(sum == -1)
        #expect(called.load(ordering: .relaxed) == 1)
        // Errors that are not damage do not call it.
        #expect(throws: DatabaseError.self) { try queue.read { try $0.execute(sql: "SELECT * FROM missing_table") } }
        try queue.close()
    }

    @Test func anUndamagedDatabaseNeverCallsTheHandler() throws {
        let pool = try DatabasePool(path: path, key: key)
        let called = Atomic<Int>(0)
        pool.onCorruption { _ in called.add(1, ordering: .relaxed) }
        #expect(try pool.read { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM big") } == 2_000)
        #expect(throws: DatabaseError.self) { try pool.write { try $0.execute(sql: "INSERT INTO big(id) VALUES (1)") } }
        try pool.close()
        #expect(called.load(ordering: .relaxed) == 0)
    }
}
