import CipherStore
import Foundation
import TestSupport
import Testing

/// Damage an encrypted database at rest and read it back: every case must end in a thrown
/// error or in the exact original data — never a crash, never wrong data.
@Suite struct TamperTests {
    static let pageSize = 1024
    static let rows = 2000

    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case flipBitInFirstPage, flipBitInMiddlePage, flipBitInLastPage, swapTwoPages, zeroMiddlePage
        case truncateByOnePage, truncateBelowOnePage, truncateToZero, appendGarbagePage, appendGarbageBytes
        var testDescription: String { rawValue }
    }

    /// What reading the damaged file gave.
    enum Outcome: Equatable {
        case error(String)
        case intactData
    }

    static func makeDatabase(_ path: String, key: DatabaseKey) throws -> Data {
        let db = try Connection(path: path, key: key)
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT)")
        try db.execute(sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows)) INSERT INTO t SELECT i, printf('row %045d', i) FROM n")
        try db.close()
        return fileBytes(path)
    }

    static func damage(_ bytes: Data, _ damage: Damage) -> Data {
        var data = bytes
        let pages = data.count / pageSize
        switch damage {
        case .flipBitInFirstPage: data[100] ^= 0x04
        case .flipBitInMiddlePage: data[(pages / 2) * pageSize + 500] ^= 0x01
        case .flipBitInLastPage: data[data.count - 30] ^= 0x80
        case .swapTwoPages:
            let a = 2 * pageSize, b = 3 * pageSize
            let pageA = data[a..<(a + pageSize)], pageB = data[b..<(b + pageSize)]
            data.replaceSubrange(a..<(a + pageSize), with: pageB)
            data.replaceSubrange(b..<(b + pageSize), with: pageA)
        case .zeroMiddlePage:
            let start = (pages / 2) * pageSize
            data.replaceSubrange(start..<(start + pageSize), with: Data(count: pageSize))
        case .truncateByOnePage: data.removeLast(pageSize)
        case .truncateBelowOnePage: data = data.prefix(500)
        case .truncateToZero: data = Data()
        case .appendGarbagePage: data.append(Data((0..<pageSize).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }))
        case .appendGarbageBytes: data.append(Data("garbage".utf8))
        }
        return data
    }

    /// Opens, reads every row and runs integrity_check.
    static func read(_ path: String, key: DatabaseKey) -> Outcome {
        do {
            let db = try Connection(path: path, key: key, configuration: Configuration(readOnly: true))
            let count = try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM t")
            let sum = try db.fetchScalar(Int.self, sql: "SELECT sum(id) + sum(length(body)) FROM t")
            let check = try db.fetchAll(sql: "PRAGMA integrity_check").map { try $0.value(String.self, at: 0) }
            guard count == rows, sum == rows * (rows + 1) / 2 + rows * 49, check == ["ok"] else {
                return .error("wrong data or integrity_check: \(check.prefix(2))")
            }
            return .intactData
        } catch {
            return .error(String(describing: error))
        }
    }

    @Test(arguments: Damage.allCases)
    func damagedFileFailsClearlyOrReadsIntact(_ damage: Damage) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("tampered.db")
        let key = try DatabaseKey.rawKey(hex: String(repeating: "9d", count: 32))
        let original = try Self.makeDatabase(path, key: key)
        #expect(original.count % Self.pageSize == 0)
        try Self.damage(original, damage).write(to: URL(fileURLWithPath: path))
        let outcome = Self.read(path, key: key)
        print("tamper case \(damage.rawValue): \(outcome)")
        switch damage {
        case .appendGarbagePage, .appendGarbageBytes:
            // SQLite reads only the pages its header counts: the data is whole.
            #expect(outcome == .intactData)
        case .flipBitInFirstPage:
            // Page 1 holds the header: a damaged one cannot be told from a wrong key.
            #expect(outcome == .error(CipherStoreError.wrongKey(path: path).description))
        default:
            guard case .error(let message) = outcome else {
                Issue.record("\(damage): the damaged file read as intact")
                return
            }
            #expect(!message.isEmpty)
        }
    }
}
