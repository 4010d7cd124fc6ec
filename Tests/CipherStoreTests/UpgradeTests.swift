import CipherStore
import Foundation
import TestSupport
import Testing

/// `DatabaseFile.upgrade`: SQLCipher 3 files, made by the real SQLCipher 3.4.1 shell,
/// rewritten in SQLCipher 4's format on SQLCipher 4; refused on SQLCipher 3.
@Suite struct UpgradeTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// A file in SQLCipher 3's format with the rich sample schema (AUTOINCREMENT, trigger, FTS4,
    /// user_version, application_id), made by the SQLCipher 3 shell; `settings` are extra pragmas
    /// after the key.
    func makeWithSQLCipher3Shell(_ name: String, settings: String = "") throws -> String {
        let shell = try #require(SQLCipherShell.sqlcipher3)
        #expect(SQLCipherShell.version(of: shell)?.hasPrefix("3.") == true, "\(shell) is not a SQLCipher 3 shell")
        let path = directory.path(name)
        let made = try SQLCipherShell.run(database: path, script: "PRAGMA key = 'upgrade me';\n\(settings)\n\(SampleDatabases.richSchema)\n", shell: shell)
        #expect(made.status == 0, "\(made.errorOutput)")
        return path
    }

    @Test(.enabled(if: LinkedSQLCipher.isVersion4 && SQLCipherShell.sqlcipher3 != nil,
                   "SQLCipher 4 with a SQLCipher 3 shell only; counterpart: upgradeNeedsSQLCipher4 on SQLCipher 3"))
    func aFileMadeBySQLCipher3UpgradesInPlaceAndKeepsEverything() throws {
        let path = try makeWithSQLCipher3Shell("v3.sqlite")
        let key = try DatabaseKey.passphrase("upgrade me")
        let report = try DatabaseFile.upgrade(path: path, key: key)
        #expect(report.outputPath == path)
        #expect(report.verification.pageSize == 4096 && report.verification.kdfIterations == 256_000)
        #expect(report.verification.userVersion == 7 && report.verification.applicationID == 1_234_567)

        // Only SQLCipher 4's settings open it now.
        #expect(throws: CipherStoreError.wrongKey(path: path)) {
            try Connection(path: path, key: key, configuration: Configuration(cipher: .sqlcipher3))
        }
        let db = try Connection(path: path, key: key)
        #expect(try CipherSettings.inUse(by: db) == .sqlcipher4)
        #expect(try db.fetchScalar(Int.self, sql: "PRAGMA user_version") == 7)
        #expect(try db.fetchScalar(Int.self, sql: "PRAGMA application_id") == 1_234_567)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'book'") == 3)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT rowid FROM note_search WHERE note_search MATCH 'search'") == 1)
        try db.execute(sql: "INSERT INTO book(author, title) VALUES (1, 'after the upgrade')")
        #expect(try db.fetchScalar(Int.self, sql: "SELECT id FROM book WHERE title = 'after the upgrade'") == 4)
        #expect(try db.fetchScalar(String.self, sql: "SELECT line FROM audit ORDER BY rowid DESC LIMIT 1") == "added after the upgrade")
        try db.close()

        // The SQLCipher 4 shell opens it with its defaults; the SQLCipher 3 shell no longer can.
        let v4 = try SQLCipherShell.run(database: path, script: "PRAGMA key = 'upgrade me';\nSELECT title FROM book WHERE id = 4;\n")
        #expect(v4.output.contains("after the upgrade"), "\(v4.output) \(v4.errorOutput)")
        let v3 = try SQLCipherShell.run(database: path, script: "PRAGMA key = 'upgrade me';\nSELECT count(*) FROM book;\n",
                                        shell: try #require(SQLCipherShell.sqlcipher3))
        #expect(v3.errorOutput.contains("not a database"), "\(v3.output) \(v3.errorOutput)")
    }

    @Test(.enabled(if: LinkedSQLCipher.isVersion4 && SQLCipherShell.sqlcipher3 != nil,
                   "SQLCipher 4 with a SQLCipher 3 shell only; counterpart: upgradeNeedsSQLCipher4 on SQLCipher 3"))
    func customSourceSettingsAreGivenAndAWrongGuessChangesNothing() throws {
        let path = try makeWithSQLCipher3Shell("custom.sqlite", settings: "PRAGMA cipher_page_size = 4096;\nPRAGMA kdf_iter = 12000;")
        let key = try DatabaseKey.passphrase("upgrade me")
        let before = fileBytes(path)
        #expect(throws: CipherStoreError.wrongKey(path: path)) {
            try DatabaseFile.upgrade(path: path, key: key)
        }
        #expect(fileBytes(path) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["custom.sqlite"])

        let output = directory.path("upgraded.sqlite")
        let raw = try DatabaseKey.rawKey(hex: String(repeating: "4e", count: 32))
        let report = try DatabaseFile.upgrade(path: path, key: key, oldCipher: CipherSettings(pageSize: 4096, kdfIterations: 12_000),
                                                     newKey: raw, to: .file(output))
        #expect(report.verification.tables.first { $0.name == "book" }?.rowCount == 2)
        #expect(fileBytes(path) == before)
        let db = try Connection(path: output, key: raw)
        #expect(try db.fetchScalar(String.self, sql: "SELECT name FROM author WHERE id = 1") == "冰儿")
    }

    @Test(.enabled(if: LinkedSQLCipher.isVersion3, "SQLCipher 3 only; counterpart: aFileMadeBySQLCipher3UpgradesInPlaceAndKeepsEverything on SQLCipher 4"))
    func upgradeNeedsSQLCipher4() throws {
        let path = directory.path("v3.sqlite")
        let key = try DatabaseKey.passphrase("upgrade me")
        do {
            let db = try Connection(path: path, key: key)
            try db.execute(sql: "CREATE TABLE t(x)")
        }
        let before = fileBytes(path)
        #expect {
            try DatabaseFile.upgrade(path: path, key: key)
        } throws: { error in
            guard case CipherStoreError.sqlcipher4Required(_, let version) = error else { return false }
            return version == SQLCipherLibrary.sqlcipherVersion && "\(error)".contains("needs SQLCipher 4")
        }
        #expect(fileBytes(path) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["v3.sqlite"])
    }
}
