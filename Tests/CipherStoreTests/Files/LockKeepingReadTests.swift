@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// Reading a database file's first bytes while a connection of this process holds a lock on
/// it: the lock must survive (closing a plain descriptor of the file would release it).
@Suite struct LockKeepingReadTests {
    /// Whether another process can take a write lock on SQLite's shared-lock bytes: `false`
    /// while some connection holds a read lock there.
    func anotherProcessCanLockForWriting(_ path: String) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // SQLite's SHARED range: 510 bytes from PENDING_BYTE + 2 (0x40000002).
        process.arguments = ["python3", "-c", """
            import fcntl, os, sys
            fd = os.open(sys.argv[1], os.O_RDWR)
            try:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 510, 0x40000002)
            except OSError:
                sys.exit(1)
            sys.exit(0)
            """, path]
        try process.run()
        process.waitUntilExit()
        #expect([0, 1].contains(process.terminationStatus), "the lock probe failed to run")
        return process.terminationStatus == 0
    }

    @Test func inspectingADatabaseKeepsTheLocksOfThisProcesssConnections() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("locked.db")
        let key = try DatabaseKey.rawKey(hex: String(repeating: "4b", count: 32))
        let db = try Connection(path: path, key: key)
        defer { try? db.close() }
        try db.executeScript("PRAGMA journal_mode = DELETE; CREATE TABLE t(x); INSERT INTO t VALUES (1);")
        // A read transaction: SQLite holds a SHARED lock until it ends.
        try db.execute(sql: "BEGIN")
        _ = try db.fetchAll(sql: "SELECT * FROM t")
        #expect(try anotherProcessCanLockForWriting(path) == false)

        #expect(DatabaseFileInfo.inspect(path: path).kind == .encrypted)
        #expect(DatabaseFileInfo.salt(of: path)?.count == 16)
        #expect(try anotherProcessCanLockForWriting(path) == false, "reading the file's header released this process's lock")

        try db.execute(sql: "COMMIT")
        #expect(try anotherProcessCanLockForWriting(path), "the lock outlived its transaction")
    }

    @Test func aShortFileAndAMissingOneReadAsTheyAre() throws {
        let directory = try TemporaryDirectory()
        let short = directory.path("short")
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: short))
        #expect(LockKeepingRead.prefix(of: short, count: 16) == [1, 2, 3])
        #expect(LockKeepingRead.prefix(of: directory.path("missing"), count: 16) == nil)
    }
}
