@testable import CipherStore
import Crypto
import Foundation
import Synchronization
import TestSupport
import Testing

/// A large table's content digest in two halves, the upper one read on a second connection:
/// the same digest as on one connection, built from the rows as the documented stream, split
/// where the rows say, and still finding a row changed or renumbered in either half.
@Suite struct TableContentDigestHalvesTests {
    static let key = try! DatabaseKey.rawKey(hex: String(repeating: "5c", count: 32))

    /// A table of `rowids`, each row with a text and a blob, in a new encrypted file.
    static func makeTable(_ path: String, rowids: [Int64]) throws -> Connection {
        let db = try Connection(path: path, key: key)
        try db.execute(sql: "CREATE TABLE item(body TEXT, data BLOB)")
        try db.inTransaction {
            for rowid in rowids {
                try db.execute(sql: "INSERT INTO item(rowid, body, data) VALUES (?, ?, ?)",
                               arguments: [rowid, "row \(rowid)", Data(repeating: UInt8(truncatingIfNeeded: rowid), count: Int(rowid & 31))])
            }
            return .commit
        }
        return db
    }

    /// How many times a second reader ran.
    final class Runs: Sendable {
        let count = Atomic(0)
    }

    /// The capture's second reader, on a connection of its own to `path`; counts its runs.
    static func secondReader(_ path: String, runs: Runs? = nil) -> DatabaseSnapshot.SecondReader {
        { body in
            runs?.count.add(1, ordering: .relaxed)
            let reader = try Connection(path: path, key: key)
            defer { try? reader.close() }
            try body(reader)
        }
    }

    /// The digest of the rows of `sql` as the stream ``TableContentDigestTests/expectedDigest(_:)`` builds.
    static func expected(_ db: Connection, _ sql: String) throws -> [UInt8] {
        TableContentDigestTests.expectedDigest(try db.fetchAll(sql: sql).map(\.values))
    }

    /// The digest of a table read in two halves split at `middle`: the SHA-256 of the
    /// documented streams of the rows up to it and of those above it.
    static func expectedHalves(_ db: Connection, middle: Int64, rowid: String = "rowid") throws -> [UInt8] {
        let lower = try expected(db, "SELECT \(rowid), * FROM item WHERE \(rowid) <= \(middle) ORDER BY \(rowid)")
        let upper = try expected(db, "SELECT \(rowid), * FROM item WHERE \(rowid) > \(middle) ORDER BY \(rowid)")
        return Array(SHA256.hash(data: lower + upper))
    }

    @Test func aTableReadInHalvesOnTwoConnectionsDigestsAsOnOne() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("halves.db")
        // 3,000 rows spanning 29,990 rowids: split at 15,000.
        let db = try Self.makeTable(path, rowids: (1...3_000).map { Int64($0) * 10 - 9 })
        defer { try? db.close() }
        let shape = try TableShape.read("item", in: db)
        let middle = try #require(try TableContentDigest.middleRowid(of: shape, in: db))
        #expect(middle == 1 + 29_990 / 2)

        let alone = try DatabaseSnapshot.capture(db, comparingContent: true)
        let runs = Runs()
        let withSecondReader = try DatabaseSnapshot.capture(db, comparingContent: true, upperHalves: Self.secondReader(path, runs: runs))
        #expect(runs.count.load(ordering: .relaxed) == 1)
        #expect(alone == withSecondReader)
        #expect(alone.rowCounts["item"] == 3_000)
        #expect(alone.contentDigests["item"] == (try Self.expectedHalves(db, middle: middle)))
    }

    @Test func aTableOfOneRowIsDigestedWhole() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("whole.db")
        let db = try Self.makeTable(path, rowids: [16_388])
        defer { try? db.close() }
        #expect(try TableContentDigest.middleRowid(of: TableShape.read("item", in: db), in: db) == nil)
        let snapshot = try DatabaseSnapshot.capture(db, comparingContent: true, upperHalves: Self.secondReader(path))
        #expect(snapshot.contentDigests["item"] == (try Self.expected(db, "SELECT rowid, * FROM item ORDER BY rowid")))
        try db.execute(sql: "DELETE FROM item")
        #expect(try TableContentDigest.middleRowid(of: TableShape.read("item", in: db), in: db) == nil)
    }

    @Test func twoRowsSplitOnePerHalf() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("two.db")
        let db = try Self.makeTable(path, rowids: [7, 8])
        defer { try? db.close() }
        #expect(try TableContentDigest.middleRowid(of: TableShape.read("item", in: db), in: db) == 7)
        let snapshot = try DatabaseSnapshot.capture(db, comparingContent: true, upperHalves: Self.secondReader(path))
        #expect(snapshot.contentDigests["item"] == (try Self.expectedHalves(db, middle: 7)))
    }

    /// One row far below the others: the middle is the range's, so the lower half holds that
    /// row alone and the second reader nearly all; the digest is the documented one all the same.
    @Test func rowidsBunchedAtOneEndSplitUnevenlyWithTheSameDigest() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("skewed.db")
        let db = try Self.makeTable(path, rowids: [-(1 << 62)] + (1...3_000).map { Int64($0) })
        defer { try? db.close() }
        let middle = try #require(try TableContentDigest.middleRowid(of: TableShape.read("item", in: db), in: db))
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM item WHERE rowid <= \(middle)") == 1)
        let alone = try DatabaseSnapshot.capture(db, comparingContent: true)
        #expect(alone == (try DatabaseSnapshot.capture(db, comparingContent: true, upperHalves: Self.secondReader(path))))
        #expect(alone.contentDigests["item"] == (try Self.expectedHalves(db, middle: middle)))
        #expect(alone.rowCounts["item"] == 3_001)
    }

    /// A generated column named `rowid` (not in `table_info`) does not stand for the rowid: a
    /// range on it would leave out the rows where it is NULL, in the count and the digest.
    @Test(.enabled(if: LinkedSQLCipher.isVersion4, "generated columns need SQLite 3.31 (SQLCipher 4)"))
    func aGeneratedColumnNamedRowidIsNotTakenForTheRowid() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("generated.db")
        let db = try Connection(path: path, key: Self.key)
        defer { try? db.close() }
        try db.execute(sql: "CREATE TABLE item(x, rowid AS (CASE WHEN x > 0 THEN x END))")
        try db.execute(sql: "INSERT INTO item(x) VALUES (-1), (5), (-2), ('text'), (7), (-3), (9)")
        let shape = try TableShape.read("item", in: db)
        #expect(shape.rowidName == "_rowid_")
        #expect(try TableContentDigest.middleRowid(of: shape, in: db) == 4)  // rowids 1...7
        let snapshot = try DatabaseSnapshot.capture(db, comparingContent: true, upperHalves: Self.secondReader(path))
        #expect(snapshot.rowCounts["item"] == 7)
        #expect(snapshot.contentDigests["item"] == (try Self.expectedHalves(db, middle: 4, rowid: "_rowid_")))
        // A backup of it (a page copy, compared row for row) counts every row.
        let queue = try DatabaseQueue(path: path, key: Self.key)
        let report = try queue.backup(to: directory.path("copy.db"), key: Self.key)
        #expect(report.verification.tables.first { $0.name == "item" }?.rowCount == 7)
    }

    @Test func theWidestRowidsSplitAtTheirMiddleWithoutOverflow() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("extremes.db")
        let db = try Self.makeTable(path, rowids: [.min, .min + 1, -2, -1, 0, 1, .max - 1, .max])
        defer { try? db.close() }
        let middle = try TableContentDigest.middleRowid(of: TableShape.read("item", in: db), in: db)
        #expect(middle == -1)  // Int64.min + (2^64 - 1) / 2
        let snapshot = try DatabaseSnapshot.capture(db, comparingContent: true, upperHalves: Self.secondReader(path))
        #expect(snapshot.rowCounts["item"] == 8)
        #expect(snapshot.contentDigests["item"] == (try Self.expectedHalves(db, middle: -1)))
    }

    /// Each change leaves the row count as it is: only the digest can find it.
    @Test(arguments: [
        "UPDATE item SET body = 'changed' WHERE rowid = 25001",          // a value in the upper half
        "UPDATE item SET data = x'00' WHERE rowid = 11",                 // a value in the lower half
        "UPDATE item SET rowid = 25002 WHERE rowid = 25001",             // renumbered within the upper half
        "UPDATE item SET rowid = 14992 WHERE rowid = 15011",             // moved across the middle (15,000)
    ])
    func aRowChangedOrRenumberedInEitherHalfIsFound(change: String) throws {
        let directory = try TemporaryDirectory()
        let rowids = (1...3_000).map { Int64($0) * 10 - 9 }
        let sourcePath = directory.path("source.db")
        let copyPath = directory.path("copy.db")
        let source = try Self.makeTable(sourcePath, rowids: rowids)
        defer { try? source.close() }
        let copy = try Self.makeTable(copyPath, rowids: rowids)
        defer { try? copy.close() }
        let before = try DatabaseSnapshot.capture(source, comparingContent: true, upperHalves: Self.secondReader(sourcePath))
        #expect(before.difference(from: try DatabaseSnapshot.capture(copy, comparingContent: true, upperHalves: Self.secondReader(copyPath))) == nil)

        try copy.execute(sql: change)
        #expect(copy.changesCount == 1)
        let after = try DatabaseSnapshot.capture(copy, comparingContent: true, upperHalves: Self.secondReader(copyPath))
        #expect(after.rowCounts == before.rowCounts)
        #expect(before.difference(from: after) == "table item has the same number of rows but not the same rows: a rowid or a value differs")
    }

    @Test func aSecondReaderThatFailsFailsTheCapture() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("failing.db")
        let db = try Self.makeTable(path, rowids: (1...3_000).map { Int64($0) * 10 })
        defer { try? db.close() }
        let failing: DatabaseSnapshot.SecondReader = { _ in
            _ = try Connection(path: path, key: .rawKey(hex: String(repeating: "11", count: 32)))  // the wrong key
        }
        #expect(throws: CipherStoreError.self) { try DatabaseSnapshot.capture(db, comparingContent: true, upperHalves: failing) }
    }

    /// A verification's second reader: a table of 3,000 rows in a directory of its own, a
    /// connection to it through the conversion VFS (which counts its reads), and the count.
    struct CountedReader {
        let directory: TemporaryDirectory
        let path: String
        let reader: Connection
        let otherReads = ReadProgressPoller.OtherReads()

        init(_ name: String) throws {
            directory = try TemporaryDirectory()
            path = directory.path(name)
            try TableContentDigestHalvesTests.makeTable(path, rowids: (1...3_000).map { Int64($0) }).close()
            var configuration = Configuration()
            configuration.vfsName = try ConversionIO.vfsName()
            reader = try Connection(path: path, key: TableContentDigestHalvesTests.key, configuration: configuration)
        }
    }

    @Test func aSecondReadersBytesCountTowardTheProgress() throws {
        let counted = try CountedReader("counted.db")
        let (path, reader, otherReads) = (counted.path, counted.reader, counted.otherReads)
        defer { try? reader.close() }
        var whileOpen: Int64 = 0
        try otherReads.counting(reader) { () throws in
            #expect(try reader.fetchScalar(Int.self, sql: "SELECT count(*) FROM item WHERE length(body) > 0") == 3_000)
            whileOpen = otherReads.bytesRead
        }
        let size = Int64(try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int))
        // Every page but the header's, which the open read before the count began.
        #expect(whileOpen >= size / 2)
        #expect(otherReads.bytesRead == whileOpen)  // kept once the reader is done
    }

    /// A second reader counted after the work was cancelled fails at its first read.
    @Test func aSecondReaderCountedAfterACancellationFailsAtOnce() throws {
        let counted = try CountedReader("late.db")
        let (reader, otherReads) = (counted.reader, counted.otherReads)
        defer { try? reader.close() }
        otherReads.interrupt()
        let error = #expect(throws: DatabaseError.self) {
            try otherReads.counting(reader) { () throws in
                _ = try reader.fetchScalar(Int.self, sql: "SELECT count(*) FROM item WHERE length(body) > 0")
            }
        }
        #expect(error?.resultCode.primaryResultCode == .SQLITE_INTERRUPT)
    }

    /// A plaintext file over ``DatabaseSnapshot/secondReaderMinimumBytes``: its result is
    /// verified with a second reader.
    static func makeLargePlaintext(_ path: String) throws {
        let setup = try Connection(path: path, key: nil)
        defer { try? setup.close() }
        try setup.execute(sql: "CREATE TABLE item(body TEXT)")
        try setup.execute(sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 8500) INSERT INTO item(rowid, body) SELECT i, printf('%04000d', i) FROM n")
        #expect(FileSystem.size(path) >= DatabaseSnapshot.secondReaderMinimumBytes)
    }

    @Test func anEncryptionVerifiesItsResultInHalvesWithAPassphrase() throws {
        let directory = try TemporaryDirectory()
        let plain = directory.path("plain.db")
        try Self.makeLargePlaintext(plain)
        let key = try DatabaseKey.passphrase("halves of a verification")
        let report = try DatabaseFile.encrypt(path: plain, key: key, to: .file(directory.path("encrypted.db")))
        #expect(report.outputBytes >= DatabaseSnapshot.secondReaderMinimumBytes)
        #expect(report.verification.tables.first { $0.name == "item" }?.rowCount == 8_500)
        let encrypted = try Connection(path: directory.path("encrypted.db"), key: key)
        defer { try? encrypted.close() }
        #expect(try encrypted.fetchScalar(String.self, sql: "SELECT group_concat(substr(body, 3997), '-') FROM (SELECT body FROM item WHERE rowid IN (1, 4250, 8500) ORDER BY rowid)") == "0001-4250-8500")
    }

    @Test func aBackupVerifiesItsCopyInHalves() throws {
        let directory = try TemporaryDirectory()
        let plain = directory.path("plain.db")
        try Self.makeLargePlaintext(plain)
        let key = try DatabaseKey.passphrase("halves of a backup")
        try DatabaseFile.encrypt(path: plain, key: key, to: .file(directory.path("source.db")))
        let queue = try DatabaseQueue(path: directory.path("source.db"), key: key)
        let report = try queue.backup(to: directory.path("copy.db"), key: key)
        #expect(report.outputBytes >= DatabaseSnapshot.secondReaderMinimumBytes)
        #expect(report.verification.tables.first { $0.name == "item" }?.rowCount == 8_500)
        #expect(try DatabaseFile.verify(path: directory.path("copy.db"), key: key).tables.first { $0.name == "item" }?.rowCount == 8_500)
    }
}
