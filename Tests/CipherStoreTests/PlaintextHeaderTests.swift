import CipherStore
import Foundation
import TestSupport
import Testing

/// SQLCipher 4's plaintext header (`cipher_plaintext_header_size` 32) with the salt kept by the
/// app (`cipher_salt`): made, reopened, converted into, and shared with the SQLCipher 4 shell.
@Suite struct PlaintextHeaderTests {
    let directory: TemporaryDirectory
    static let header32 = CipherSettings(plaintextHeaderSize: 32)

    init() throws {
        directory = try TemporaryDirectory()
    }

    @Test(.enabled(if: LinkedSQLCipher.isVersion4, "SQLCipher 4 only; counterpart: aPlaintextHeaderAndASaltAreRefusedOnSQLCipher3"))
    func aFileWithAPlaintextHeaderReopensWithItsSalt() throws {
        let path = directory.path("header.sqlite")
        let key = try DatabaseKey.passphrase("kept salt")
        let salt: [UInt8]
        do {
            let db = try Connection(path: path, key: key, configuration: Configuration(cipher: Self.header32))
            try db.execute(sql: "CREATE TABLE t(x)")
            try db.execute(sql: "INSERT INTO t VALUES ('shared container')")
            salt = try #require(try CipherSettings.salt(in: db))
            #expect(try CipherSettings.inUse(by: db).plaintextHeaderSize == 32)
        }
        #expect(fileBytes(path).prefix(16) == Data("SQLite format 3\0".utf8))
        let info = DatabaseFileInfo.inspect(path: path)
        #expect(info.kind == .encrypted && info.hasPlaintextHeader, "\(info)")

        // Without the salt SQLCipher takes the plaintext header for one: the key looks wrong.
        #expect(throws: CipherStoreError.wrongKey(path: path)) {
            try Connection(path: path, key: key, configuration: Configuration(cipher: Self.header32))
        }
        var withSalt = Self.header32
        withSalt.salt = salt
        let db = try Connection(path: path, key: key, configuration: Configuration(cipher: withSalt))
        #expect(try db.fetchScalar(String.self, sql: "SELECT x FROM t") == "shared container")
        try db.close()
        #expect(try DatabaseFile.verify(path: path, key: key, cipher: withSalt).plaintextHeaderSalt == salt)
    }

    @Test(.enabled(if: LinkedSQLCipher.isVersion4, "SQLCipher 4 only; counterpart: aPlaintextHeaderAndASaltAreRefusedOnSQLCipher3"))
    func aKeyChangeIntoAPlaintextHeaderKeepsTheFilesSaltAndReportsIt() throws {
        let path = directory.path("plain-header-less.sqlite")
        let key = try DatabaseKey.passphrase("before")
        do {
            let db = try Connection(path: path, key: key)
            try db.execute(sql: "CREATE TABLE t(x)")
            try db.execute(sql: "INSERT INTO t VALUES (1), (2)")
        }
        let saltInFile = Array(fileBytes(path).prefix(16))
        let report = try DatabaseFile.changeKey(path: path, oldKey: key, newKey: key, newCipher: Self.header32)
        #expect(report.verification.plaintextHeaderSalt == saltInFile)
        var settings = Self.header32
        settings.salt = saltInFile
        let db = try Connection(path: path, key: key, configuration: Configuration(cipher: settings))
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") == 2)
    }

    @Test(.enabled(if: LinkedSQLCipher.isVersion4, "SQLCipher 4 only; counterpart: aPlaintextHeaderAndASaltAreRefusedOnSQLCipher3"))
    func theSQLCipher4ShellAndCipherStoreShareAPlaintextHeaderFile() throws {
        // Made here, opened in the shell with the salt.
        let here = directory.path("here.sqlite")
        let salt: [UInt8]
        do {
            let db = try Connection(path: here, key: .passphrase("both ways"), configuration: Configuration(cipher: Self.header32))
            try db.execute(sql: "CREATE TABLE t(x)")
            try db.execute(sql: "INSERT INTO t VALUES ('made by CipherStore')")
            salt = try #require(try CipherSettings.salt(in: db))
        }
        let hex = salt.map { String(format: "%02x", $0) }.joined()
        let opened = try SQLCipherShell.run(database: here, script: """
            PRAGMA key = 'both ways';
            PRAGMA cipher_plaintext_header_size = 32;
            PRAGMA cipher_salt = "x'\(hex)'";
            SELECT x FROM t;
            """)
        #expect(opened.output.contains("made by CipherStore"), "\(opened.output) \(opened.errorOutput)")

        // Made by the shell, which prints its salt; opened here with it.
        let shell = directory.path("shell.sqlite")
        let made = try SQLCipherShell.run(database: shell, script: """
            PRAGMA key = 'both ways';
            PRAGMA cipher_plaintext_header_size = 32;
            CREATE TABLE t(x);
            INSERT INTO t VALUES ('made by the shell');
            PRAGMA cipher_salt;
            """)
        #expect(made.status == 0, "\(made.errorOutput)")
        // The shell prints "ok" for the key, then the salt.
        let shellHex = String(made.output.split(separator: "\n").last ?? "")
        #expect(shellHex.count == 32, "\(made.output)")
        var settings = Self.header32
        settings.salt = stride(from: 0, to: shellHex.count, by: 2).compactMap {
            UInt8(String(Array(shellHex)[$0..<min($0 + 2, shellHex.count)]), radix: 16)
        }
        let db = try Connection(path: shell, key: .passphrase("both ways"), configuration: Configuration(cipher: settings))
        #expect(try db.fetchScalar(String.self, sql: "SELECT x FROM t") == "made by the shell")
    }

    @Test(.enabled(if: LinkedSQLCipher.isVersion3, "SQLCipher 3 only; counterpart: aFileWithAPlaintextHeaderReopensWithItsSalt"))
    func aPlaintextHeaderAndASaltAreRefusedOnSQLCipher3() throws {
        let salt = [UInt8](repeating: 7, count: 16)
        for settings in [CipherSettings(plaintextHeaderSize: 32, salt: salt), CipherSettings(salt: salt)] {
            let path = directory.path("refused.sqlite")
            #expect {
                try Connection(path: path, key: .passphrase("k"), configuration: Configuration(cipher: settings))
            } throws: { error in
                guard case CipherStoreError.unsupportedCipherSetting(let setting, _) = error else { return false }
                return setting.hasPrefix(settings.plaintextHeaderSize == nil ? "cipher_salt" : "cipher_plaintext_header_size")
            }
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test func aSaltMustBe16Bytes() throws {
        let path = directory.path("short.sqlite")
        #expect {
            try Connection(path: path, key: .passphrase("k"), configuration: Configuration(cipher: CipherSettings(salt: [1, 2, 3])))
        } throws: { error in
            guard case CipherStoreError.invalidConfiguration(let reason) = error else { return false }
            return reason.contains("16 bytes")
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
