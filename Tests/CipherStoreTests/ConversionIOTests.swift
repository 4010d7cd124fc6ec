@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// The conversion VFS (batched writes, counted reads) against SQLite's default VFS, on real
/// files: the same operations must leave the same bytes, and a failed write must surface.
@Suite struct ConversionIOTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// A small page cache spills pages in scattered order in the middle of transactions; the
    /// rows vary in size, so some overflow onto pages of their own.
    static func runWorkload(path: String, key: DatabaseKey?, vfsName: String?, journalMode: String) throws {
        var configuration = Configuration(foreignKeys: false)
        configuration.vfsName = vfsName
        let db = try Connection(path: path, key: key, configuration: configuration)
        try db.execute(sql: "PRAGMA cache_size = 8")
        _ = try db.fetchAll(sql: "PRAGMA journal_mode = \(journalMode)")
        try db.execute(sql: "CREATE TABLE item(id INTEGER PRIMARY KEY, tag TEXT, body BLOB)")
        try db.execute(sql: "CREATE INDEX item_tag ON item(tag)")
        var random = SplitMix64(seed: 20261122)
        for transaction in 0..<40 {
            try db.execute(sql: "BEGIN")
            for _ in 0..<50 {
                let id = Int(random.next() % 500)
                switch random.next() % 3 {
                case 0:
                    let body = (0..<Int(random.next() % 3000)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                    try db.execute(sql: "INSERT OR REPLACE INTO item(id, tag, body) VALUES (?, ?, ?)",
                                   arguments: [id, "tag \(random.next() % 50)", Data(body)])
                case 1:
                    try db.execute(sql: "DELETE FROM item WHERE id = ?", arguments: [id])
                default:
                    try db.execute(sql: "UPDATE item SET tag = ? WHERE id = ?", arguments: ["retagged \(random.next() % 50)", id])
                }
            }
            // A rollback rewrites pages from the journal; without a journal it is not possible.
            let rollsBack = journalMode != "OFF" && transaction % 7 == 3
            try db.execute(sql: rollsBack ? "ROLLBACK" : "COMMIT")
        }
        try db.close()
    }

    static func contents(of path: String, key: DatabaseKey?) throws -> [String] {
        let db = try Connection(path: path, key: key, configuration: Configuration(readOnly: true))
        defer { try? db.close() }
        #expect(try db.fetchScalar(String.self, sql: "PRAGMA integrity_check") == "ok")
        return try db.fetchAll(sql: "SELECT id, tag, hex(body) FROM item ORDER BY id").map { "\($0[0]) \($0[1]) \($0[2])" }
    }

    @Test(arguments: ["OFF", "DELETE", "WAL"])
    func leavesTheSameBytesAsTheDefaultVFS(journalMode: String) throws {
        let viaDefault = directory.path("default-\(journalMode).db")
        let viaConversionIO = directory.path("conversion-\(journalMode).db")
        try Self.runWorkload(path: viaDefault, key: nil, vfsName: nil, journalMode: journalMode)
        try Self.runWorkload(path: viaConversionIO, key: nil, vfsName: try ConversionIO.vfsName(), journalMode: journalMode)
        let expected = fileBytes(viaDefault)
        #expect(expected.count > 200_000)
        #expect(fileBytes(viaConversionIO) == expected)
    }

    @Test func encryptedPagesWrittenThroughItReadBackIntact() throws {
        let plain = directory.path("plain.db")
        let encrypted = directory.path("encrypted.db")
        let key = try DatabaseKey.rawKey(hex: String(repeating: "5e", count: 32))
        try Self.runWorkload(path: plain, key: nil, vfsName: nil, journalMode: "DELETE")
        try Self.runWorkload(path: encrypted, key: key, vfsName: try ConversionIO.vfsName(), journalMode: "DELETE")
        let expected = try Self.contents(of: plain, key: nil)
        #expect(expected.count > 100)
        #expect(try Self.contents(of: encrypted, key: key) == expected)
    }

    @Test func countsTheBytesItReads() throws {
        let path = directory.path("read.db")
        try SampleDatabases.makeLarge(at: path, rows: 2_000)
        var configuration = Configuration()
        configuration.vfsName = try ConversionIO.vfsName()
        let db = try Connection(path: path, key: nil, configuration: configuration)
        defer { try? db.close() }
        let before = try #require(ConversionIO.bytesRead(db.handle.pointer))
        #expect(try db.fetchScalar(Int.self, sql: "SELECT sum(length(body)) FROM big") == 2_000_000)
        let after = try #require(ConversionIO.bytesRead(db.handle.pointer))
        #expect(after - before >= 2_000_000)
        #expect(after - before <= Int64(fileBytes(path).count))

        let direct = try Connection(path: path, key: nil)
        defer { try? direct.close() }
        #expect(try ConversionIO.bytesRead(direct.handle.pointer) == nil)
    }

    /// A commit small enough to stay in one batch is passed down before the pager finishes the
    /// commit, also with synchronous=OFF: when that write fails, the commit fails, and so does
    /// the next use of the file, instead of passing for written.
    @Test func aFailedBatchFailsTheCommitAndStaysFailed() throws {
        try #require(getuid() == 0, "mounting a small file system needs root")
        let small = directory.path("small")
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
        try #require(Shell.succeeds("mount -t tmpfs -o size=256k tmpfs '\(small)'"))
        defer { _ = Shell.succeeds("umount '\(small)'") }

        var configuration = Configuration(foreignKeys: false)
        configuration.vfsName = try ConversionIO.vfsName()
        let db = try Connection(path: small + "/full.db", key: nil, configuration: configuration)
        defer { try? db.close() }
        _ = try db.fetchAll(sql: "PRAGMA journal_mode = OFF")
        try db.execute(sql: "PRAGMA synchronous = OFF")
        try db.execute(sql: "CREATE TABLE t(body BLOB)")
        // Leave 16 KB free: the 40 KB row below fits in one batch but not on the disk.
        var stats = statvfs()
        try #require(statvfs(small, &stats) == 0)
        let free = Int(stats.f_bavail) * Int(stats.f_frsize)
        try #require(free > 16_384)
        try Data(count: free - 16_384).write(to: URL(fileURLWithPath: small + "/filler"))
        #expect {
            try db.execute(sql: "INSERT INTO t VALUES (zeroblob(40000))")
        } throws: { error in
            ResultCode.SQLITE_FULL ~= error
        }
        try FileManager.default.removeItem(atPath: small + "/filler")
        #expect(throws: DatabaseError.self) {
            try db.execute(sql: "INSERT INTO t VALUES (x'00')")
        }
    }
}
