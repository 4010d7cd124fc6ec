@testable @_spi(Fuzzing) import CipherStore
import Foundation
import TestSupport
import Testing

/// A repair reads back every row whose pages survived, byte for byte, and nothing else.
@Suite struct RepairTests {
    static let rows = 50_000
    let directory: TemporaryDirectory
    let path: String
    let output: String
    let key: DatabaseKey

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.path("damaged.db")
        output = directory.path("salvaged.db")
        key = try DatabaseKey.rawKey(hex: String(repeating: "e1", count: 32))
        let db = try Connection(path: path, key: key)
        try db.executeScript("""
            CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, amount REAL, data BLOB);
            CREATE INDEX item_name ON item(name);
            CREATE TABLE note(body TEXT);
            INSERT INTO note VALUES ('a note'), ('another');
            PRAGMA user_version = 7;
            """)
        // Every 97th row carries a blob longer than a page: its overflow chain counts too.
        try db.execute(sql: """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
            INSERT INTO item SELECT i, printf('item %06d', i), i * 0.25, CASE WHEN i % 97 = 0 THEN randomblob(6000) ELSE randomblob(i % 17) END FROM n
            """, arguments: [Self.rows])
        try db.close()
    }

    var pageSize: Int { SQLCipherLibrary.defaultPageSize }

    /// Changes a run of random bytes at a random place in each of `pages`, in the part the
    /// HMAC covers (the reserve's last bytes may be padding); on page 1, past the salt (see
    /// ``DatabaseRepair``: without the salt nothing decrypts).
    func damage(_ pages: [Int], generator: inout SplitMix64) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        for page in pages {
            let length = Int.random(in: 1...64, using: &generator)
            let offset = Int.random(in: (page == 1 ? 16 : 0)...(pageSize - 32 - length), using: &generator)
            let position = UInt64((page - 1) * pageSize + offset)
            try handle.seek(toOffset: position)
            let before = try #require(try handle.read(upToCount: length))
            // XOR with a nonzero byte: every byte of the run changes.
            try handle.seek(toOffset: position)
            try handle.write(contentsOf: Data(before.map { $0 ^ UInt8.random(in: 1...255, using: &generator) }))
        }
    }

    /// The rows of `item` in the intact file, by rowid, read by SQLite.
    func originalRows() throws -> [Int64: [DatabaseValue]] {
        let db = try Connection(path: path, key: key)
        defer { try? db.close() }
        var rows: [Int64: [DatabaseValue]] = [:]
        for row in try db.fetchAll(sql: "SELECT id, name, amount, data FROM item") {
            rows[try row.value(Int64.self, at: 0)] = (0..<4).map { row[$0] }
        }
        return rows
    }

    /// For each row of `item`: its leaf page and its overflow pages, read from the intact file
    /// and checked against SQLite's own list of rowids, so the map is the ground truth.
    func pagesOfEachRow(expected: Set<Int64>) throws -> [Int64: Set<Int>] {
        let db = try Connection(path: path, key: key)
        let root = try #require(try db.fetchScalar(Int.self, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'item'"))
        try db.close()
        let settings = CipherSettings.libraryDefaults.filling(from: LinkedSQLCipher.isVersion4 ? .sqlcipher4 : .sqlcipher3)
        let reader = try EncryptedPageReader(path: path, cipher: DatabaseRepair.pageCipher(fileSalt: DatabaseFileInfo.salt(of: path), key: key, settings: settings))
        var pagesOfRow: [Int64: Set<Int>] = [:]
        var stack = [UInt32(root)]
        while let number = stack.popLast() {
            let data = try #require(try reader.page(number))
            let node = try #require(BTreePage(data, number: number))
            if node.kind == .tableInterior { stack += node.children; continue }
            for cell in node.cells {
                var pages: Set<Int> = [Int(number)]
                var next = cell.firstOverflowPage
                while next != 0 {
                    pages.insert(Int(next))
                    next = BTreePage.uint32(try #require(try reader.page(next)), at: 0)
                }
                pagesOfRow[cell.rowID] = pages
            }
        }
        #expect(Set(pagesOfRow.keys) == expected, "the ground truth's walk disagrees with SQLite")
        return pagesOfRow
    }

    @Test(arguments: [(0.01, false), (0.05, false), (0.20, false), (0.05, true)])
    func everyRowWhosePagesSurvivedComesBackByteForByte(fraction: Double, pageOne: Bool) throws {
        let original = try originalRows()
        let pagesOfRow = try pagesOfEachRow(expected: Set(original.keys))
        let pageCount = Int(FileSystem.size(path)) / pageSize
        var generator = SplitMix64(seed: UInt64(fraction * 1000) + (pageOne ? 7 : 0))
        var damaged = Array((2...pageCount).shuffled(using: &generator).prefix(Int((Double(pageCount) * fraction).rounded(.up))))
        if pageOne { damaged[0] = 1 }
        try damage(damaged, generator: &generator)

        let report = try DatabaseRepair.salvage(path: path, key: key, to: output)
        #expect(Set(report.pagesLost).symmetricDifference(damaged).isEmpty, "lost pages differ from the damaged ones")
        #expect(report.pageCount == pageCount)
        #expect(!report.isComplete)
        #expect(report.schemaRecovered == !pageOne)
        #expect(abs(report.score - Double(pageCount - damaged.count) / Double(pageCount)) < 1e-9)

        let db = try Connection(path: output, key: key)
        defer { try? db.close() }
        #expect(try db.fetchScalar(String.self, sql: "PRAGMA integrity_check") == "ok")
        var recovered: [Int64: [DatabaseValue]] = [:]
        if pageOne {
            // No schema: the rows are in the recovered table with item's four columns, the
            // INTEGER PRIMARY KEY (stored as NULL) in original_rowid. Its columns have no type,
            // so a REAL that SQLite stored as an integer comes back as one.
            let table = try #require(report.tables.first { $0.name.hasPrefix("recovered_") && (try? db.fetchAll(sql: "PRAGMA table_info(\($0.name))").count) == 5 })
            for row in try db.fetchAll(sql: "SELECT original_rowid, c2, c3, c4 FROM \(table.name)") {
                let id = try row.value(Int64.self, at: 0)
                let amount: DatabaseValue = if case .integer(let value) = row[2] { .real(Double(value)) } else { row[2] }
                recovered[id] = [.integer(id), row[1], amount, row[3]]
            }
        } else {
            for row in try db.fetchAll(sql: "SELECT id, name, amount, data FROM item") {
                recovered[try row.value(Int64.self, at: 0)] = (0..<4).map { row[$0] }
            }
            #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'item_name'") == 1)
            #expect(try db.fetchScalar(Int.self, sql: "PRAGMA user_version") == 7)
        }
        // No garbage: every row read back is exactly the original.
        let different = recovered.filter { original[$0.key] != $0.value }.map(\.key)
        #expect(different.isEmpty, "\(different.count) rows differ from the original, e.g. \(different.prefix(5))")
        // Nothing missed: every row whose leaf and overflow pages survived is there.
        let lost = Set(damaged)
        let survivors = pagesOfRow.filter { $0.value.isDisjoint(with: lost) }.map(\.key)
        let missing = survivors.filter { recovered[$0] == nil }
        #expect(missing.isEmpty, "\(missing.count) surviving rows were not recovered, e.g. \(missing.prefix(5))")
        #expect(recovered.count < Self.rows)
    }

    @Test func anIntactFileComesBackWhole() throws {
        let report = try DatabaseRepair.salvage(path: path, key: key, to: output)
        #expect(report.isComplete)
        #expect(report.pagesLost.isEmpty)
        #expect(report.score == 1)
        #expect(report.tables.map(\.name) == ["item", "note"])
        #expect(report.tables.map(\.recoveredRows) == [Self.rows, 2])
        let verification = try DatabaseFile.verify(path: output, key: key)
        #expect(verification.tables.map(\.rowCount) == [Self.rows, 2])
    }

    @Test func theFuzzersEntryPointReadsEveryRowOfAnIntactImage() throws {
        let image = Array(fileBytes(path))
        // The table rows, the two notes, and the three rows of sqlite_master.
        #expect(try DatabaseRepair.decodeRows(inImage: image, key: key) == Self.rows + 2 + 3)
        let damaged = image.enumerated().map { $0.offset % 5000 == 4000 ? $0.element ^ 0xFF : $0.element }
        #expect(try DatabaseRepair.decodeRows(inImage: damaged, key: key) < Self.rows)
    }

    @Test func aPassphraseDatabaseIsReadWithItsKeyDerivedOnce() throws {
        let small = directory.path("small.db")
        let passphrase = try DatabaseKey.passphrase("repair passphrase")
        let db = try Connection(path: small, key: passphrase)
        try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES ('kept');")
        try db.close()
        let report = try DatabaseRepair.salvage(path: small, key: passphrase, to: output)
        #expect(report.isComplete)
        let check = try Connection(path: output, key: passphrase)
        #expect(try check.fetchScalar(String.self, sql: "SELECT x FROM t") == "kept")
        try check.close()
    }

    @Test func aTruncatedFileGivesWhatItHolds() throws {
        let size = FileSystem.size(path)
        #expect(truncate(path, off_t(size / 2 + 100)) == 0)
        let report = try DatabaseRepair.salvage(path: path, key: key, to: output)
        #expect(!report.isComplete)
        // The pages past the end are counted, not listed; the page cut in two is lost.
        #expect(report.pagesMissingAtEnd > 0)
        #expect(report.pagesLost.allSatisfy { $0 <= report.pageCount - report.pagesMissingAtEnd })
        #expect(report.score < 1)
        #expect(report.recoveredRows > 0 && report.recoveredRows < Self.rows + 2)
    }

    @Test func aWrongKeyEveryPageDamagedOrAPlaintextFileIsRefusedAndWritesNothing() throws {
        let wrong = try DatabaseKey.rawKey(hex: String(repeating: "00", count: 32))
        #expect(throws: RepairError.self) { try DatabaseRepair.salvage(path: path, key: wrong, to: output) }
        var generator = SplitMix64(seed: 42)
        try damage(Array(1...(Int(FileSystem.size(path)) / pageSize)), generator: &generator)
        #expect(throws: RepairError.self) { try DatabaseRepair.salvage(path: path, key: key, to: output) }
        let plaintext = directory.path("plain.db")
        let db = try Connection(path: plaintext, key: nil)
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.close()
        #expect(throws: RepairError.notEncrypted(path: plaintext)) { try DatabaseRepair.salvage(path: plaintext, key: key, to: output) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == ["damaged.db", "plain.db"])
    }
}

/// What a repair cannot read is said, and the repair is then not complete.
@Suite struct RepairLimitTests {
    let directory: TemporaryDirectory
    let key: DatabaseKey

    init() throws {
        directory = try TemporaryDirectory()
        key = try DatabaseKey.rawKey(hex: String(repeating: "a4", count: 32))
    }

    @Test func aWithoutRowIDTableAndCommitsLeftInTheWALAreNamedAsProblems() throws {
        let path = directory.path("limits.db")
        let db = try Connection(path: path, key: key)
        try db.executeScript("""
            CREATE TABLE pair(a TEXT PRIMARY KEY, b TEXT) WITHOUT ROWID;
            INSERT INTO pair VALUES ('x', 'y');
            CREATE TABLE t(x);
            INSERT INTO t VALUES (1);
            """)
        try db.close()
        var report = try DatabaseRepair.salvage(path: path, key: key, to: directory.path("out1.db"))
        #expect(!report.isComplete)
        #expect(report.problems.contains { $0.contains("pair") && $0.contains("WITHOUT ROWID") })
        #expect(report.pagesLost.isEmpty)

        // A WAL file that holds nothing readable is said to.
        try Data(repeating: 1, count: 8192).write(to: URL(fileURLWithPath: path + "-wal"))
        report = try DatabaseRepair.salvage(path: path, key: key, to: directory.path("out2.db"))
        #expect(report.problems.contains { $0.contains("-wal") })
    }

    @Test func commitsStillInTheWALAreRecovered() throws {
        let path = directory.path("wal.db")
        let writer = try Connection(path: path, key: key)
        try writer.execute(sql: "PRAGMA journal_mode = WAL")
        try writer.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        try writer.executeScript("CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO t(body) VALUES ('checkpointed');")
        try writer.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        try writer.execute(sql: "INSERT INTO t(body) VALUES ('only in the log')")
        try writer.execute(sql: "CREATE TABLE later(x)")
        try writer.execute(sql: "INSERT INTO later VALUES (42)")
        // What a crash leaves: the database file and its log, copied while the writer has them open.
        let copy = directory.path("crashed.db")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
        try writer.close()

        let report = try DatabaseRepair.salvage(path: copy, key: key, to: directory.path("out.db"))
        #expect(report.isComplete, "\(report.problems)")
        let db = try Connection(path: directory.path("out.db"), key: key)
        defer { try? db.close() }
        #expect(try String.fetchAll(db, sql: "SELECT body FROM t ORDER BY id") == ["checkpointed", "only in the log"])
        #expect(try db.fetchScalar(Int.self, sql: "SELECT x FROM later") == 42)
    }

    @Test func aFileCutShortCountsTheMissingPagesInItsScore() throws {
        let path = directory.path("cut.db")
        try SampleDatabases.makeLarge(at: path, rows: 2_000, key: key)
        let pages = Int(FileSystem.size(path)) / SQLCipherLibrary.defaultPageSize
        #expect(truncate(path, off_t((pages / 2) * SQLCipherLibrary.defaultPageSize)) == 0)
        let report = try DatabaseRepair.salvage(path: path, key: key, to: directory.path("out.db"))
        #expect(report.pageCount >= pages - 1)
        #expect(report.score < 0.6)
    }
}
