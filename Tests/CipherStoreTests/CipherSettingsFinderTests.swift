@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// The settings finder on real files made by the linked SQLCipher (and by the other version's
/// shell): it names the settings that open them, stretching a passphrase at most once per KDF.
@Suite(.serialized) struct CipherSettingsFinderTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// A file made by the library with `settings`, holding one row.
    func make(_ name: String, key: DatabaseKey, settings: CipherSettings) throws -> String {
        let path = directory.path(name)
        let db = try Connection(path: path, key: key, configuration: Configuration(cipher: settings))
        try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES ('row');")
        try db.close()
        return path
    }

    /// How many passphrase stretchings `body` ran (the finder counts its own).
    func derivations(_ body: () throws -> Void) rethrows -> Int {
        let counter = KeyDerivation.Counter()
        try KeyDerivation.$derivationCounter.withValue(counter) { try body() }
        return counter.value.load(ordering: .relaxed)
    }

    @Test func aNonDefaultPageSizeAndIterationCountAreFoundWithOneDerivationPerKDFHash() throws {
        let key = try DatabaseKey.passphrase("finder passphrase")
        let path = try make("custom.db", key: key, settings: CipherSettings(pageSize: 4096, kdfIterations: 100_000))
        #expect(throws: CipherStoreError.wrongKey(path: path)) { try Connection(path: path, key: key) }
        var found: CipherSettingsFinder.Found?
        let count = try derivations { found = try CipherSettingsFinder.find(path: path, key: key) }
        let result = try #require(found)
        #expect(result.settings.pageSize == 4096 && result.settings.kdfIterations == 100_000)
        #expect(result.settings.useHMAC == true && result.settings.plaintextHeaderSize == 0)
        #expect(result.opensWithLinkedSQLCipher)
        // One PBKDF2 run per KDF hash passes every count up to 100,000.
        #expect(count == 3 && result.keyDerivations == 3)
        // The settings found open the file through the library.
        let db = try Connection(path: path, key: key, configuration: Configuration(cipher: result.settings))
        #expect(try db.fetchScalar(String.self, sql: "SELECT x FROM t") == "row")
        try db.close()
        // Without the search, the count given is stretched alone, in the linked library's KDF first.
        let given = try derivations { found = try CipherSettingsFinder.find(path: path, key: key, kdfIterations: [100_000], maxKDFIterations: 0) }
        #expect(found?.settings == result.settings && given == 1 && found?.keyDerivations == 1)
    }

    @Test func theLinkedDefaultsAreFoundFirstAndARawKeyNeedsNoDerivation() throws {
        let passphrase = try DatabaseKey.passphrase("default settings")
        let plain = try make("defaults.db", key: passphrase, settings: .libraryDefaults)
        var found: CipherSettingsFinder.Found?
        #expect(try derivations { found = try CipherSettingsFinder.find(path: plain, key: passphrase, maxKDFIterations: 0) } == 1)
        #expect(found?.settings.pageSize == SQLCipherLibrary.defaultPageSize)

        let raw = try DatabaseKey.rawKey(hex: String(repeating: "5e", count: 32))
        let rawPath = try make("raw.db", key: raw, settings: CipherSettings(pageSize: 8192, useHMAC: false))
        #expect(try derivations { found = try CipherSettingsFinder.find(path: rawPath, key: raw) } == 0)
        #expect(found?.settings.pageSize == 8192 && found?.settings.useHMAC == false)
        #expect(found?.opensWithLinkedSQLCipher == true)
    }

    @Test func aWrongKeyFindsNothingAndStretchesOncePerKDF() throws {
        let path = try make("wrong.db", key: .passphrase("the right one"), settings: .libraryDefaults)
        var found: CipherSettingsFinder.Found?
        let count = try derivations {
            found = try CipherSettingsFinder.find(path: path, key: .passphrase("not the right one"), maxKDFIterations: 0)
        }
        #expect(found == nil)
        // Without the search: three KDF hashes × three default iteration counts, each stretched once.
        #expect(count == 9)
        // With it up to 10,000: one run per hash, and the defaults above it stretched alone.
        let searched = try derivations {
            found = try CipherSettingsFinder.find(path: path, key: .passphrase("not the right one"), maxKDFIterations: 10_000)
        }
        #expect(found == nil && searched == 3 + 6)
        #expect(throws: CipherStoreError.notEncrypted(path: directory.path("plain.db"))) {
            let plain = try Connection(path: directory.path("plain.db"), key: nil)
            try plain.execute(sql: "CREATE TABLE t(x)")
            try plain.close()
            _ = try CipherSettingsFinder.find(path: directory.path("plain.db"), key: .passphrase("x"))
        }
    }

    /// A SQLCipher 3 file when SQLCipher 4 is linked, made with SQLCipher 3's settings.
    @Test(.enabled(if: LinkedSQLCipher.isVersion4, "SQLCipher 4 only; counterpart: aSQLCipher4FileIsRecognisedBySQLCipher3"))
    func aSQLCipher3FileIsRecognisedBySQLCipher4() throws {
        let path = try make("v3.db", key: .passphrase("across versions"), settings: .sqlcipher3)
        let found = try #require(try CipherSettingsFinder.find(path: path, key: .passphrase("across versions")))
        #expect(found.settings == CipherSettings.sqlcipher3)
        #expect(found.opensWithLinkedSQLCipher && found.linkedSQLCipherSupportsThem)
    }

    /// A SQLCipher 4 file, made by the SQLCipher 4 shell, when SQLCipher 3 is linked: the finder
    /// reads pages itself, so it names a format the linked library cannot open.
    @Test(.enabled(if: LinkedSQLCipher.isVersion3 && SQLCipherShell.sqlcipher4 != nil, Comment(rawValue: SQLCipherShell.sqlcipher4Missing)))
    func aSQLCipher4FileIsRecognisedBySQLCipher3() throws {
        let shell = try #require(SQLCipherShell.sqlcipher4)
        let path = directory.path("v4.db")
        let made = try SQLCipherShell.run(database: path, script: "PRAGMA key = 'across versions';\nCREATE TABLE t(x);\n", shell: shell)
        try #require(made.status == 0, "\(made.errorOutput)")
        let found = try #require(try CipherSettingsFinder.find(path: path, key: .passphrase("across versions"), maxKDFIterations: 0))
        #expect(found.settings == CipherSettings.sqlcipher4)
        #expect(!found.opensWithLinkedSQLCipher && !found.linkedSQLCipherSupportsThem)
    }

    /// With the iteration search: the one-block test reads the same bytes after a plaintext header.
    @Test(.enabled(if: LinkedSQLCipher.isVersion4, "a plaintext header needs SQLCipher 4"))
    func aPlaintextHeaderIsFoundWithItsSalt() throws {
        let key = try DatabaseKey.passphrase("header")
        let path = directory.path("header.db")
        let db = try Connection(path: path, key: key, configuration: Configuration(cipher: CipherSettings(kdfIterations: 5_000, plaintextHeaderSize: 32)))
        try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES ('row');")
        let salt = try #require(try CipherSettings.salt(in: db))
        try db.close()
        #expect(try CipherSettingsFinder.find(path: path, key: key) == nil)
        let found = try #require(try CipherSettingsFinder.find(path: path, key: key, salt: salt))
        #expect(found.settings.plaintextHeaderSize == 32 && found.settings.salt == salt && found.settings.kdfIterations == 5_000)
        #expect(found.opensWithLinkedSQLCipher)
    }
}
