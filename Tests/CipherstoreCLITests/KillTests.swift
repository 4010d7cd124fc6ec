import CipherStore
import Foundation
import TestSupport
import Testing

/// kill -9 the CLI at several moments of an in-place conversion of a ~50 MB database: the file
/// must then be exactly the old database or exactly the new one, complete.
@Suite(.serialized) struct KillTests {
    static let rows = 48_000  // about 1 KB each: a ~50 MB database
    static let delays: [Double] = [0.05, 0.3, 0.7, 1.2, 2.0, 3.0]

    /// Opens `path` as `key` (nil for plaintext) and checks integrity and every row.
    static func isComplete(_ path: String, key: DatabaseKey?) -> Bool {
        guard let db = try? Connection(path: path, key: key, configuration: Configuration(readOnly: true)),
              let check = try? db.fetchScalar(String.self, sql: "PRAGMA quick_check"), check == "ok",
              let count = try? db.fetchScalar(Int.self, sql: "SELECT count(*) FROM big"), count == rows,
              let sum = try? db.fetchScalar(Int.self, sql: "SELECT sum(id) FROM big") else { return false }
        return sum == rows * (rows + 1) / 2
    }

    @Test func killedEncryptLeavesTheOriginalOrTheCompleteResult() throws {
        let workspace = try TemporaryDirectory()
        let path = workspace.path("big.db")
        let keyFile = try workspace.keyFile("key", "kill test key")
        let key = try DatabaseKey.passphrase("kill test key")
        try SampleDatabases.makeLarge(at: path, rows: Self.rows)
        var outcomes: [String] = []
        for delay in Self.delays {
            if DatabaseFileInfo.inspect(path: path).kind == .encrypted {
                try FileManager.default.removeItem(atPath: path)
                try SampleDatabases.makeLarge(at: path, rows: Self.rows)
            }
            let (process, _, _) = try CLI.start(["encrypt", path, "--in-place", "--quiet", "--key-file", keyFile])
            Thread.sleep(forTimeInterval: delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let plaintextWhole = DatabaseFileInfo.inspect(path: path).kind == .plaintext && Self.isComplete(path, key: nil)
            let encryptedWhole = DatabaseFileInfo.inspect(path: path).kind == .encrypted && Self.isComplete(path, key: key)
            #expect(plaintextWhole != encryptedWhole, "after \(delay) s: neither or both")
            outcomes.append(plaintextWhole ? "original" : "encrypted")
        }
        // The next run cleans up what the killed ones left.
        if DatabaseFileInfo.inspect(path: path).kind == .plaintext {
            let result = try CLI.run(["encrypt", path, "--in-place", "--quiet", "--key-file", keyFile])
            #expect(result.status == 0, "\(result.errorOutput)")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: workspace.url.path).filter { $0.contains(".cipherstore-") }
        #expect(leftovers.isEmpty, "left behind: \(leftovers)")
        #expect(Self.isComplete(path, key: key))
        print("encrypt kill outcomes: \(outcomes)")
    }

    @Test(.enabled(if: SQLCipherLibrary.sqlcipherMajorVersion >= 4, "SQLCipher 4 only; counterpart: UpgradeCLITests.upgradeExplainsThatItNeedsSQLCipher4"))
    func killedUpgradeLeavesTheCompleteOldOrTheCompleteNewFile() throws {
        let workspace = try TemporaryDirectory()
        let path = workspace.path("big.db")
        let keyFile = try workspace.keyFile("key", "upgrade kill key")
        let key = try DatabaseKey.passphrase("upgrade kill key")
        func makeSQLCipher3Source() throws {
            let db = try Connection(path: path, key: key, configuration: Configuration(cipher: .sqlcipher3))
            try db.execute(sql: "CREATE TABLE big(id INTEGER PRIMARY KEY, body TEXT)")
            try db.execute(sql: """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
                INSERT INTO big SELECT i, printf('%01000d', i) FROM n
                """, arguments: [Self.rows])
            try db.close()
        }
        func isComplete(_ cipher: CipherSettings) -> Bool {
            guard let db = try? Connection(path: path, key: key, configuration: Configuration(cipher: cipher, readOnly: true)),
                  let check = try? db.fetchScalar(String.self, sql: "PRAGMA quick_check"), check == "ok",
                  let count = try? db.fetchScalar(Int.self, sql: "SELECT count(*) FROM big"), count == Self.rows,
                  let sum = try? db.fetchScalar(Int.self, sql: "SELECT sum(id) FROM big") else { return false }
            return sum == Self.rows * (Self.rows + 1) / 2
        }
        try makeSQLCipher3Source()
        var outcomes: [String] = []
        for delay in Self.delays {
            if isComplete(.sqlcipher4) {
                try FileManager.default.removeItem(atPath: path)
                try makeSQLCipher3Source()
            }
            let (process, _, _) = try CLI.start(["upgrade", path, "--in-place", "--quiet", "--key-file", keyFile])
            Thread.sleep(forTimeInterval: delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let old = isComplete(.sqlcipher3)
            let new = isComplete(.sqlcipher4)
            #expect(old != new, "after \(delay) s: SQLCipher 3 format \(old), SQLCipher 4 format \(new)")
            outcomes.append(new ? "upgraded" : "original")
        }
        if !isComplete(.sqlcipher4) {
            let result = try CLI.run(["upgrade", path, "--in-place", "--quiet", "--key-file", keyFile])
            #expect(result.status == 0, "\(result.errorOutput)")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: workspace.url.path).filter { $0.contains(".cipherstore-") }
        #expect(leftovers.isEmpty, "left behind: \(leftovers)")
        #expect(isComplete(.sqlcipher4))
        print("upgrade kill outcomes: \(outcomes)")
    }

    @Test func killedRekeyLeavesAFileThatOpensWithExactlyOneKey() throws {
        let workspace = try TemporaryDirectory()
        let path = workspace.path("big.db")
        let keys = ["first key", "second key"]
        let keyFiles = try keys.enumerated().map { try workspace.keyFile("key\($0.offset)", $0.element) }
        let databaseKeys = try keys.map { try DatabaseKey.passphrase($0) }
        try SampleDatabases.makeLarge(at: path, rows: Self.rows, key: databaseKeys[0])
        var current = 0
        var outcomes: [String] = []
        for delay in Self.delays {
            let next = 1 - current
            let (process, _, _) = try CLI.start(["rekey", path, "--in-place", "--quiet",
                                                 "--old-key-file", keyFiles[current], "--new-key-file", keyFiles[next]])
            Thread.sleep(forTimeInterval: delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let opensOld = Self.isComplete(path, key: databaseKeys[current])
            let opensNew = Self.isComplete(path, key: databaseKeys[next])
            #expect(opensOld != opensNew, "after \(delay) s: old key \(opensOld), new key \(opensNew)")
            if opensNew { current = next }
            outcomes.append(opensNew ? "rotated" : "unchanged")
        }
        print("rekey kill outcomes: \(outcomes)")
    }
}
