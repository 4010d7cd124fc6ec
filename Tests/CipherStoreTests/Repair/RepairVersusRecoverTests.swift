@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// The repair against SQLite's own `.recover` (the SQLCipher 4.6.1 shell's), on the same file
/// with the same pages lost: never fewer correct rows, never a wrong one.
///
/// `.recover` cannot read an encrypted file (its page-1 shim defeats SQLCipher's codec: "hmac
/// check failed for pgno=1", even on an intact file), so it is given the same file decrypted
/// page by page, each lost page zeroed: what it reads is exactly what the repair can read.
@Suite struct RepairVersusRecoverTests {
    static let rawKey = String(repeating: "5d", count: 32)
    static let rows = 3000

    /// The SQLCipher 4.6.1 shell: the one on PATH when it is linked, else the one `make test` names.
    static let shell: String? = LinkedSQLCipher.isVersion4 ? "sqlcipher" : SQLCipherShell.sqlcipher4

    /// `id|name|amount|hex(data)` of every row of `item`, by id.
    static func rows(fromShellOutput output: String) -> [Int: String] {
        var rows: [Int: String] = [:]
        for line in output.split(separator: "\n") {
            guard let bar = line.firstIndex(of: "|"), let id = Int(line[..<bar]) else { continue }
            rows[id] = String(line)
        }
        return rows
    }

    /// How many of `found` are the original row under its id, and how many are not.
    static func score(_ found: [Int: String], against original: [Int: String]) -> (correct: Int, wrong: Int) {
        var correct = 0
        var wrong = 0
        for (id, row) in found {
            if original[id] == row { correct += 1 } else { wrong += 1 }
        }
        return (correct, wrong)
    }

    /// Every page decrypted with the key, a page whose HMAC fails as zeros; the reserved bytes
    /// (which page 1's header declares) zeroed.
    static func decryptedImage(of path: String, key: DatabaseKey) throws -> [UInt8] {
        let bytes = [UInt8](fileBytes(path))
        let pageSize = SQLCipherLibrary.defaultPageSize
        let settings = CipherSettings.libraryDefaults.filling(from: .linkedDefaults)
        let cipher = try DatabaseRepair.pageCipher(fileSalt: Array(bytes.prefix(16)), key: key, settings: settings)
        var image: [UInt8] = []
        for start in stride(from: 0, to: bytes.count - pageSize + 1, by: pageSize) {
            var page = try cipher.decrypt(bytes[start..<(start + pageSize)], number: UInt32(start / pageSize + 1)) ?? []
            page += [UInt8](repeating: 0, count: pageSize - page.count)
            image += page
        }
        return image
    }

    @Test(.enabled(if: shell != nil, Comment(rawValue: SQLCipherShell.sqlcipher4Missing)),
          arguments: [UInt64(3), 11, 29])
    func neverFewerCorrectRowsThanRecoverAndNeverAWrongOne(seed: UInt64) throws {
        let shell = try #require(Self.shell)
        let directory = try TemporaryDirectory()
        let path = directory.path("damaged.db")
        let key = try DatabaseKey.rawKey(hex: Self.rawKey)
        let db = try Connection(path: path, key: key)
        try db.executeScript("""
            CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, amount REAL, data BLOB);
            CREATE INDEX item_name ON item(name);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(Self.rows))
            INSERT INTO item SELECT i, printf('item %05d', i), i * 1.5, CASE WHEN i % 50 = 0 THEN randomblob(3000) ELSE randomblob(20) END FROM n;
            """)
        let query = "SELECT id || '|' || name || '|' || amount || '|' || hex(data) FROM item"
        let original = Self.rows(fromShellOutput: try String.fetchAll(db, sql: query).joined(separator: "\n"))
        try db.close()
        #expect(original.count == Self.rows)

        // Lose 4 % of the pages after the first, the same for both.
        let pageSize = SQLCipherLibrary.defaultPageSize
        let pageCount = Int(fileBytes(path).count) / pageSize
        var generator = SplitMix64(seed: seed)
        let lost = Array((2...pageCount).shuffled(using: &generator).prefix(pageCount / 25))
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        for page in lost {
            try handle.seek(toOffset: UInt64((page - 1) * pageSize + 64))
            try handle.write(contentsOf: Data(repeating: 0xC3, count: 32))
        }
        try handle.close()

        // Ours.
        let output = directory.path("repaired.db")
        try DatabaseRepair.salvage(path: path, key: key, to: output)
        let repaired = try Connection(path: output, key: key)
        let ours = Self.rows(fromShellOutput: try String.fetchAll(repaired, sql: query).joined(separator: "\n"))
        try repaired.close()

        // SQLite's: .recover on the decrypted image, its SQL run into a new database by the same shell.
        let image = directory.path("decrypted-image.db")
        try Data(try Self.decryptedImage(of: path, key: key)).write(to: URL(fileURLWithPath: image))
        let recovered = try SQLCipherShell.run(database: image, script: ".recover\n", shell: shell)
        let sql = recovered.output
        #expect(sql.contains("INSERT"), "\(recovered.errorOutput)")
        let plain = directory.path("recovered.db")
        let load = try SQLCipherShell.run(database: plain, script: sql + "\n", shell: shell)
        let theirsOutput = try SQLCipherShell.run(database: plain, script: "\(query);\n", shell: shell)
        #expect(load.status == 0, "\(load.errorOutput)")
        let theirs = Self.rows(fromShellOutput: theirsOutput.output)

        let ourScore = Self.score(ours, against: original)
        let theirScore = Self.score(theirs, against: original)
        print("repair versus .recover, seed \(seed), \(lost.count) of \(pageCount) pages lost: ours \(ourScore.correct) correct, \(ourScore.wrong) wrong; .recover \(theirScore.correct) correct, \(theirScore.wrong) wrong")
        #expect(ourScore.wrong == 0)
        #expect(ourScore.correct >= theirScore.correct)
        #expect(ourScore.correct > 0)
    }
}
