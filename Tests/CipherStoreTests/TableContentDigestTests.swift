@testable import CipherStore
import Crypto
import Foundation
import TestSupport
import Testing

/// The content digest of conversions' verification, against the same byte stream built
/// plainly here: rows wider than its buffer, values around its direct-hashing threshold,
/// empty values and NULLs.
@Suite struct TableContentDigestTests {
    /// The stream the digest hashes: per row 0xFF, then per value its type, and its 8-byte
    /// little-endian integer, float bits, or byte count and bytes.
    static func expectedDigest(_ rows: [[DatabaseValue]]) -> [UInt8] {
        var bytes: [UInt8] = []
        func word(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        for row in rows {
            bytes.append(0xFF)
            for value in row {
                switch value {
                case .null: bytes.append(5)
                case .integer(let int): bytes.append(1); word(UInt64(bitPattern: int))
                case .real(let double): bytes.append(2); word(double.bitPattern)
                case .text(let text): bytes.append(3); word(UInt64(text.utf8.count)); bytes += text.utf8
                case .blob(let data): bytes.append(4); word(UInt64(data.count)); bytes += data
                }
            }
        }
        return Array(SHA256.hash(data: bytes))
    }

    @Test func wideRowsAndValuesAroundTheThresholdDigestAsTheirBytes() throws {
        let directory = try TemporaryDirectory()
        let db = try Connection(path: directory.path("digest.db"), key: .rawKey(hex: String(repeating: "7a", count: 32)))
        defer { try? db.close() }
        let columns = (0..<40).map { "c\($0)" }
        try db.execute(sql: "CREATE TABLE wide(id INTEGER PRIMARY KEY, \(columns.joined(separator: ", ")))")
        let lengths = [0, 1, 4095, 4096, 4097, 4000, 65_000, 70_000]
        let placeholders = Array(repeating: "?", count: columns.count + 1).joined(separator: ", ")
        for row in 0..<12 {
            var values: [(any DatabaseValueConvertible)?] = [Int64(row * 3 + 1)]
            for column in columns.indices {
                let length = lengths[(row + column) % lengths.count]
                switch (row + column) % 5 {
                case 0: values.append(String(repeating: Character(UnicodeScalar(UInt8(65 + column % 26))), count: length))
                case 1: values.append(Data(repeating: UInt8(column), count: length))
                case 2: values.append(nil)
                case 3: values.append(Double(row) / 7)
                default: values.append(Int64(-row * column))
                }
            }
            try db.execute(sql: "INSERT INTO wide VALUES (\(placeholders))", arguments: StatementArguments(values))
        }
        let rows = try db.fetchAll(sql: "SELECT rowid, * FROM wide ORDER BY rowid").map(\.values)
        let (digest, count) = try TableContentDigest.of(TableShape.read("wide", in: db), in: db)
        #expect(count == 12)
        #expect(digest == Self.expectedDigest(rows))
        // One changed byte deep in a wide row changes it.
        try db.execute(sql: "UPDATE wide SET c7 = c7 || 'x' WHERE rowid = (SELECT max(rowid) FROM wide WHERE c7 IS NOT NULL)")
        #expect(db.changesCount == 1)
        #expect(try TableContentDigest.of(TableShape.read("wide", in: db), in: db).digest != digest)
    }

    /// A `WITHOUT ROWID` table is read in its key's order without a sort (which holds every
    /// row in memory) when the key's collations are SQLite's, and in byte order otherwise.
    @Test(arguments: [
        ("k TEXT COLLATE NOCASE PRIMARY KEY, v", false, ["A", "a2", "b", "C"]),
        ("k TEXT, j TEXT COLLATE RTRIM, v, PRIMARY KEY(k COLLATE NOCASE, j)", false, ["A", "a2", "b", "C"]),
        ("k TEXT PRIMARY KEY, v", false, ["A", "C", "a2", "b"]),
        ("k TEXT COLLATE myapp PRIMARY KEY, v", true, ["A", "C", "a2", "b"]),
        ("k TEXT, v, PRIMARY KEY(k COLLATE myapp)", true, ["A", "C", "a2", "b"]),
    ])
    func aKeyUnderSQLitesCollationsIsReadWithoutASort(columns: String, sorts: Bool, order: [String]) throws {
        let directory = try TemporaryDirectory()
        let db = try Connection(path: directory.path("keyed.db"), key: .rawKey(hex: String(repeating: "7a", count: 32)))
        defer { try? db.close() }
        try db.add(collation: DatabaseCollation("myapp") { lhs, rhs in rhs.compare(lhs) })
        try db.execute(sql: "CREATE TABLE keyed(\(columns)) WITHOUT ROWID")
        let hasJ = columns.contains("j TEXT")
        for (k, v) in [("b", 1), ("A", 2), ("C", 3), ("a2", 4)] {
            try db.execute(sql: hasJ ? "INSERT INTO keyed(k, j, v) VALUES (?, 'x', ?)" : "INSERT INTO keyed(k, v) VALUES (?, ?)", arguments: [k, v])
        }
        let shape = try TableShape.read("keyed", in: db)
        let query = try TableContentDigest.query(for: shape, in: db)
        let plan = try db.fetchAll(sql: "EXPLAIN QUERY PLAN " + query).map { $0.values.map { "\($0)" }.joined(separator: " ") }.joined(separator: "; ")
        #expect(plan.contains("TEMP B-TREE") == sorts, "\(query): \(plan)")
        // NOCASE's order where the key is under it, else byte order (never myapp's reverse one).
        #expect(try db.fetchAll(sql: query).map { try $0.value(String.self, at: 0) } == order, "\(query)")
        #expect(try TableContentDigest.of(shape, in: db).rowCount == 4)
    }
}
