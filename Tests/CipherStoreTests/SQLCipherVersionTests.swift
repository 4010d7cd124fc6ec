import CipherStore
import Foundation
import TestSupport
import Testing

/// Which SQLCipher is linked, and what follows from its major version: defaults, presets,
/// and how a SQLCipher 3 file fails on SQLCipher 4.
@Suite struct SQLCipherVersionTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    @Test func theLinkedSQLCipherIsTheOneTheRunAskedFor() throws {
        let version = try #require(SQLCipherLibrary.sqlcipherVersion)
        print("Linked SQLCipher \(version), SQLite \(SQLCipherLibrary.sqliteVersion)")
        if let expected = ProcessInfo.processInfo.environment["CIPHERSTORE_EXPECTED_SQLCIPHER"], !expected.isEmpty {
            #expect(version.hasPrefix(expected), "asked for SQLCipher \(expected), linked \(version)")
        }
        #expect(SQLCipherLibrary.sqlcipherMajorVersion == Int(version.prefix { $0 != "." }))
        // Two SQLite libraries in one process export the same symbols: calls could go to the
        // plain one and write plaintext. Exactly one library must be mapped.
        // /proc files report a size of 0: read them to their end.
        let maps = String(decoding: try #require(FileHandle(forReadingAtPath: "/proc/self/maps")).readDataToEndOfFile(), as: UTF8.self)
        let libraries = Set(maps.split(separator: "\n").compactMap { line -> Substring? in
            guard let path = line.split(separator: " ", omittingEmptySubsequences: true).last,
                  path.contains("libsqlcipher") || path.contains("libsqlite3") else { return nil }
            return path
        })
        #expect(libraries.count == 1 && libraries.first?.contains("libsqlcipher") == true, "\(libraries)")
    }

    @Test func defaultsFollowTheLinkedLibrary() throws {
        let path = directory.path("defaults.sqlite")
        do {
            let db = try Connection(path: path, key: .passphrase("k"))
            try db.execute(sql: "CREATE TABLE t(x)")
        }
        let report = try DatabaseFile.verify(path: path, key: .passphrase("k"))
        let expected = LinkedSQLCipher.isVersion4 ? CipherSettings.sqlcipher4 : CipherSettings.sqlcipher3
        #expect(report.pageSize == expected.pageSize)
        #expect(report.kdfIterations == expected.kdfIterations)
        #expect(SQLCipherLibrary.defaultPageSize == expected.pageSize)
        #expect(fileBytes(path).count % (expected.pageSize ?? 1) == 0)
    }

    @Test(.enabled(if: LinkedSQLCipher.isVersion4, "SQLCipher 4 only; counterpart: sqlcipher3SettingsAreTheDefaultsOnSQLCipher3"))
    func aSQLCipher3FileFailsWithAHintOnSQLCipher4AndOpensWithItsSettings() throws {
        let path = directory.path("v3.sqlite")
        do {
            let db = try Connection(path: path, key: .passphrase("k"), configuration: Configuration(cipher: .sqlcipher3))
            try db.execute(sql: "CREATE TABLE t(x)")
            try db.execute(sql: "INSERT INTO t VALUES ('three')")
        }
        let before = fileBytes(path)
        do {
            _ = try Connection(path: path, key: .passphrase("k"))
            Issue.record("a SQLCipher 3 file opened with SQLCipher 4's defaults")
        } catch let error as CipherStoreError {
            #expect(error == .wrongKey(path: path))
            #expect(error.description.contains("may be a SQLCipher 3 file"))
            #expect(error.description.contains("CipherSettings.sqlcipher3"))
            // The tool's option is the tool's to name (its message says `--sqlcipher3`).
            #expect(!error.description.contains("--sqlcipher3"))
        }
        #expect(fileBytes(path) == before)
        let db = try Connection(path: path, key: .passphrase("k"), configuration: Configuration(cipher: .sqlcipher3))
        #expect(try db.fetchScalar(String.self, sql: "SELECT x FROM t") == "three")
        let report = try DatabaseFile.verify(path: path, key: .passphrase("k"), cipher: .sqlcipher3)
        #expect(report.pageSize == 1024 && report.kdfIterations == 64_000)
    }

    @Test(.enabled(if: LinkedSQLCipher.isVersion3, "SQLCipher 3 only; counterpart: aSQLCipher3FileFailsWithAHintOnSQLCipher4AndOpensWithItsSettings"))
    func sqlcipher3SettingsAreTheDefaultsOnSQLCipher3() throws {
        let path = directory.path("v3.sqlite")
        do {
            let db = try Connection(path: path, key: .passphrase("k"), configuration: Configuration(cipher: .sqlcipher3))
            try db.execute(sql: "CREATE TABLE t(x)")
            try db.execute(sql: "INSERT INTO t VALUES ('three')")
        }
        let db = try Connection(path: path, key: .passphrase("k"))
        #expect(try db.fetchScalar(String.self, sql: "SELECT x FROM t") == "three")
        do {
            _ = try Connection(path: path, key: .passphrase("other"))
            Issue.record("opened with a wrong key")
        } catch let error as CipherStoreError {
            #expect(error == .wrongKey(path: path))
            #expect(!error.description.contains("SQLCipher 3 file"), "no SQLCipher 3 hint when SQLCipher 3 is linked")
        }
    }

    @Test(.enabled(if: LinkedSQLCipher.isVersion4, "SQLCipher 4 only; counterpart: OpenTests.sqlcipher4SettingsAreRefusedByOlderSQLCipher"))
    func sqlcipher4SettingsAndAPlaintextHeaderApplyOnSQLCipher4() throws {
        let path = directory.path("v4.sqlite")
        do {
            let db = try Connection(path: path, key: .passphrase("k"), configuration: Configuration(cipher: .sqlcipher4))
            try db.execute(sql: "CREATE TABLE t(x)")
        }
        let report = try DatabaseFile.verify(path: path, key: .passphrase("k"), cipher: .sqlcipher4)
        #expect(report.pageSize == 4096 && report.kdfIterations == 256_000)

        var settings = CipherSettings.sqlcipher4
        settings.plaintextHeaderSize = 32
        settings.kdfAlgorithm = .sha256
        settings.hmacAlgorithm = .sha256
        let headerPath = directory.path("header.sqlite")
        let db = try Connection(path: headerPath, key: .rawKey(hex: String(repeating: "3c", count: 32)), configuration: Configuration(cipher: settings))
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        #expect(try db.fetchScalar(Int.self, sql: "SELECT x FROM t") == 1)
        // The first 32 bytes stay readable: SQLite's magic string and the header's fields.
        #expect(fileBytes(headerPath).prefix(16) == Data("SQLite format 3\0".utf8))
    }

    @Test func aPlaintextHeaderSizeMustBeWholeAESBlocks() throws {
        let path = directory.path("odd.sqlite")
        #expect {
            try Connection(path: path, key: .passphrase("k"), configuration: Configuration(cipher: CipherSettings(plaintextHeaderSize: 20)))
        } throws: { error in
            guard case CipherStoreError.invalidConfiguration(let reason) = error else { return false }
            return reason.contains("multiple of 16")
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// SQLCipher keeps the count in a C int: a larger one is out of range, not unsupported.
    @Test(arguments: [0, Int(Int32.max) + 1, 99_999_999_999])
    func kdfIterationsOutOfRangeAreNamedSo(_ iterations: Int) throws {
        let path = directory.path("iterations.sqlite")
        #expect {
            try Connection(path: path, key: .passphrase("k"), configuration: Configuration(cipher: CipherSettings(kdfIterations: iterations)))
        } throws: { error in
            guard case CipherStoreError.invalidConfiguration(let reason) = error else { return false }
            return reason.contains("from 1 to 2,147,483,647")
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
