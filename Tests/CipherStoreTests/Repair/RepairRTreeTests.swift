@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// An R-tree whose pages were partly lost is rebuilt from the entries of its surviving leaf
/// nodes: the repaired tree reads whole, answers spatial queries, and every entry it holds is
/// one the file had, with its coordinates; an intact one is copied as found.
@Suite struct RepairRTreeTests {
    let directory: TemporaryDirectory
    let path: String
    let output: String
    let key: DatabaseKey

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.path("boxes.db")
        output = directory.path("salvaged.db")
        key = try DatabaseKey.rawKey(hex: String(repeating: "3b", count: 32))
    }

    /// An R-tree of `count` boxes whose coordinates are exact in 32-bit floats; returns them by id.
    func make(count: Int) throws -> [Int64: [Double]] {
        let db = try Connection(path: path, key: key)
        defer { try? db.close() }
        try db.execute(sql: "CREATE TABLE label(id INTEGER PRIMARY KEY, name TEXT)")
        try db.execute(sql: "CREATE VIRTUAL TABLE box USING rtree(id, minX, maxX, minY, maxY)")
        var boxes: [Int64: [Double]] = [:]
        try db.inTransaction {
            for index in 1...count {
                let x = Double(index % 97), y = Double(index / 97)
                let box = [x, x + 0.5, y, y + 0.25]
                try db.execute(sql: "INSERT INTO box VALUES (?, ?, ?, ?, ?)", arguments: [index, box[0], box[1], box[2], box[3]])
                boxes[Int64(index)] = box
            }
            try db.execute(sql: "INSERT INTO label(name) VALUES ('kept')")
            return .commit
        }
        return boxes
    }

    func boxes(_ sql: String = "SELECT id, minX, maxX, minY, maxY FROM box") throws -> [Int64: [Double]] {
        let db = try Connection(path: output, key: key)
        defer { try? db.close() }
        var found: [Int64: [Double]] = [:]
        for row in try db.fetchAll(sql: sql) {
            found[try row.value(Int64.self, at: 0)] = try (1...4).map { try row.value(Double.self, at: $0) }
        }
        return found
    }

    @Test func anRTreeWithLostPagesIsRebuiltFromItsSurvivingLeaves() throws {
        let original = try make(count: 3000)
        let pages = Int(DatabaseFileInfo.inspect(path: path).size) / SQLCipherLibrary.defaultPageSize
        for fraction in [0.3, 0.5, 0.7] { try damagePage(Int(Double(pages) * fraction), of: path) }
        // Copied as found, the tree would not read: a node it points to is gone.
        let report = try DatabaseRepair.salvage(path: path, key: key, to: output)
        #expect(report.problems.contains { $0.contains("pages of R-tree box were lost: it was rebuilt from the") }, "\(report.problems)")
        #expect(!report.isComplete)

        let rebuilt = try boxes()
        #expect(rebuilt.count > original.count / 2 && rebuilt.count < original.count, "\(rebuilt.count) of \(original.count)")
        for (id, box) in rebuilt { #expect(original[id] == box, "box \(id): \(box), was \(String(describing: original[id]))") }
        // The rebuilt tree answers a spatial query with exactly the boxes it holds there.
        let inside = try boxes("SELECT id, minX, maxX, minY, maxY FROM box WHERE minX >= 10 AND maxX <= 20 AND minY >= 3 AND maxY <= 9")
        #expect(Set(inside.keys) == Set(rebuilt.filter { $0.value[0] >= 10 && $0.value[1] <= 20 && $0.value[2] >= 3 && $0.value[3] <= 9 }.keys))
        #expect(!inside.isEmpty)
        let db = try Connection(path: output, key: key)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM box_rowid") == rebuilt.count)
        try db.close()
    }

    @Test func anIntactRTreeIsCopiedAsFound() throws {
        let original = try make(count: 500)
        let report = try DatabaseRepair.salvage(path: path, key: key, to: output)
        #expect(!report.problems.contains { $0.contains("R-tree") }, "\(report.problems)")
        #expect(try boxes() == original)
    }

    /// Nodes that lie (a depth of 20, every entry naming the same child, a node naming itself,
    /// a count larger than the blob) are each read once and within their bytes: the rebuild
    /// ends at once, with the entries of the one leaf the rowid table names.
    @Test func hostileNodesAreReadOnceAndWithinTheirBytes() throws {
        let db = try Connection(location: .inMemory, key: nil)
        defer { try? db.close() }
        let sql = "CREATE VIRTUAL TABLE box USING rtree(id, minX, maxX)"
        try db.execute(sql: sql)
        try db.executeScript("DELETE FROM box_node; DELETE FROM box_rowid; DELETE FROM box_parent;")
        /// A node blob: depth, count, then (id, minX, maxX) entries as 32-bit floats.
        func node(depth: UInt16, count: UInt16, entries: [(Int64, Float, Float)]) -> Data {
            var bytes = [UInt8(depth >> 8), UInt8(depth & 0xFF), UInt8(count >> 8), UInt8(count & 0xFF)]
            for (id, low, high) in entries {
                bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: UInt64(bitPattern: id) >> (8 * UInt64($0))) }
                for value in [low, high] { bytes += (0..<4).reversed().map { UInt8(truncatingIfNeeded: value.bitPattern >> (8 * UInt32($0))) } }
            }
            return Data(bytes)
        }
        let toChild = Array(repeating: (Int64(2), Float(0), Float(1)), count: 40)
        try db.execute(sql: "INSERT INTO box_node VALUES (1, ?)", arguments: [node(depth: 20, count: 40, entries: toChild)])
        try db.execute(sql: "INSERT INTO box_node VALUES (2, ?)", arguments: [node(depth: 0, count: 40, entries: toChild)])
        // A leaf whose count claims more entries than its bytes hold.
        try db.execute(sql: "INSERT INTO box_node VALUES (3, ?)", arguments: [node(depth: 0, count: 65_000, entries: [(7, 1.5, 2.5), (8, 3, 4)])])
        try db.execute(sql: "INSERT INTO box_rowid VALUES (7, 3)")
        let rTree = try #require(SalvagedRTree(name: "box", sql: sql, shadowTables: ["box_node", "box_rowid", "box_parent"], in: db))
        let started = ContinuousClock.now
        let (_, problem) = rTree.rebuildIfBroken(in: db)
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(problem?.contains("rebuilt from the 2 entries") == true, "\(String(describing: problem))")
        let rows = try db.fetchAll(sql: "SELECT id, minX, maxX FROM box ORDER BY id").map { row in
            [try row.value(Double.self, at: 0), try row.value(Double.self, at: 1), try row.value(Double.self, at: 2)]
        }
        #expect(rows == [[7, 1.5, 2.5], [8, 3, 4]])
    }
}
