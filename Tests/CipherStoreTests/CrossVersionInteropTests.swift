import CipherStore
import Foundation
import TestSupport
import Testing

/// Files shared across SQLCipher versions. `InteropTests` pairs CipherStore with the shell of
/// the linked SQLCipher (3.4.1 with 3.4.1, or 4.6.1 with 4.6.1); these pair CipherStore on
/// SQLCipher 4 with a SQLCipher 3 shell, through SQLCipher 3's settings. Keys go to the shell
/// on standard input.
@Suite struct CrossVersionInteropTests {
    @Test func theShellOnThePathIsTheLinkedSQLCipher() throws {
        // Otherwise InteropTests would pair other versions than they claim.
        let shell = try #require(SQLCipherShell.version(), "no `sqlcipher` shell on PATH")
        #expect(shell.split(separator: " ").first == SQLCipherLibrary.sqlcipherVersion?.split(separator: " ").first,
                "shell \(shell), linked \(SQLCipherLibrary.sqlcipherVersion ?? "none")")
    }

    @Test(.enabled(if: LinkedSQLCipher.isVersion4 && SQLCipherShell.sqlcipher3 != nil,
                   "SQLCipher 4 with a SQLCipher 3 shell only; counterpart: InteropTests.databaseMadeHereOpensInTheShell on SQLCipher 3"))
    func aSQLCipher3FileMadeHereOpensInTheSQLCipher3Shell() throws {
        let shell = try #require(SQLCipherShell.sqlcipher3)
        #expect(SQLCipherShell.version(of: shell)?.hasPrefix("3.") == true, "\(shell) is not a SQLCipher 3 shell")
        let directory = try TemporaryDirectory()
        let path = directory.path("for-v3.sqlite")
        do {
            let db = try Connection(path: path, key: .passphrase("across versions ☂"), configuration: Configuration(cipher: .sqlcipher3))
            try db.execute(sql: "CREATE TABLE note(body TEXT)")
            try db.execute(sql: "INSERT INTO note VALUES (?)", arguments: ["made on SQLCipher 4"])
        }
        let result = try SQLCipherShell.run(database: path, script: "PRAGMA key = 'across versions ☂';\nSELECT body FROM note;\n", shell: shell)
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.contains("made on SQLCipher 4"))

        // The same data in SQLCipher 4's own format stays closed to SQLCipher 3.
        let v4 = directory.path("v4.sqlite")
        do {
            let db = try Connection(path: v4, key: .passphrase("across versions ☂"))
            try db.execute(sql: "CREATE TABLE note(body TEXT)")
        }
        let refused = try SQLCipherShell.run(database: v4, script: "PRAGMA key = 'across versions ☂';\nSELECT count(*) FROM note;\n", shell: shell)
        #expect(refused.errorOutput.contains("not a database"), "\(refused.output) \(refused.errorOutput)")
    }

    @Test(.enabled(if: LinkedSQLCipher.isVersion4 && SQLCipherShell.sqlcipher3 != nil,
                   "SQLCipher 4 with a SQLCipher 3 shell only; counterpart: InteropTests.databaseMadeInTheShellOpensHere on SQLCipher 3"))
    func aFileMadeByTheSQLCipher3ShellOpensHereWithSQLCipher3Settings() throws {
        let shell = try #require(SQLCipherShell.sqlcipher3)
        let directory = try TemporaryDirectory()
        let path = directory.path("from-v3.sqlite")
        let hex = String(repeating: "a7", count: 32)
        let made = try SQLCipherShell.run(database: path, script: """
            PRAGMA key = 'shell''s key';
            CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);
            INSERT INTO note(body) VALUES ('made by SQLCipher 3');
            """, shell: shell)
        #expect(made.status == 0, "\(made.errorOutput)")
        let rawPath = directory.path("raw-v3.sqlite")
        let madeRaw = try SQLCipherShell.run(database: rawPath, script: "PRAGMA key = \"x'\(hex)'\";\nCREATE TABLE t(x); INSERT INTO t VALUES (3);\n", shell: shell)
        #expect(madeRaw.status == 0, "\(madeRaw.errorOutput)")

        #expect(throws: CipherStoreError.wrongKey(path: path)) {
            try Connection(path: path, key: .passphrase("shell's key"))
        }
        let db = try Connection(path: path, key: .passphrase("shell's key"), configuration: Configuration(cipher: .sqlcipher3))
        #expect(try db.fetchScalar(String.self, sql: "SELECT body FROM note") == "made by SQLCipher 3")
        try db.execute(sql: "INSERT INTO note(body) VALUES ('added on SQLCipher 4')")
        try db.close()
        let raw = try Connection(path: rawPath, key: .rawKey(hex: hex), configuration: Configuration(cipher: .sqlcipher3))
        #expect(try raw.fetchScalar(Int.self, sql: "SELECT x FROM t") == 3)

        // Written by SQLCipher 4 in SQLCipher 3's format: the SQLCipher 3 shell still reads it.
        let back = try SQLCipherShell.run(database: path, script: "PRAGMA key = 'shell''s key';\nSELECT body FROM note ORDER BY id;\n", shell: shell)
        #expect(back.output.contains("made by SQLCipher 3\nadded on SQLCipher 4"), "\(back.output) \(back.errorOutput)")
    }

    @Test(.enabled(if: LinkedSQLCipher.isVersion3, "SQLCipher 3 only; counterpart: aSQLCipher3FileMadeHereOpensInTheSQLCipher3Shell on SQLCipher 4"),
          .enabled(if: SQLCipherShell.sqlcipher4 != nil, Comment(rawValue: SQLCipherShell.sqlcipher4Missing)))
    func aFileMadeHereOnSQLCipher3OpensInTheSQLCipher4ShellInCompatibility3() throws {
        let shell = try #require(SQLCipherShell.sqlcipher4)
        #expect(SQLCipherShell.version(of: shell)?.hasPrefix("4.") == true, "\(shell) is not a SQLCipher 4 shell")
        let directory = try TemporaryDirectory()
        let path = directory.path("from-v3.sqlite")
        do {
            let db = try Connection(path: path, key: .passphrase("three and four ☂"))
            try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT)")
            try db.execute(sql: "INSERT INTO note(body) VALUES (?)", arguments: ["made on SQLCipher 3"])
        }
        let compatible = try SQLCipherShell.run(database: path, script: """
            PRAGMA key = 'three and four ☂';
            PRAGMA cipher_compatibility = 3;
            INSERT INTO note(body) VALUES ('added by SQLCipher 4');
            SELECT body FROM note ORDER BY id;
            """, shell: shell)
        #expect(compatible.status == 0, "\(compatible.errorOutput)")
        #expect(compatible.output.contains("made on SQLCipher 3\nadded by SQLCipher 4"), "\(compatible.output)")
        // Its own defaults do not open a SQLCipher 3 file.
        let defaults = try SQLCipherShell.run(database: path, script: "PRAGMA key = 'three and four ☂';\nSELECT count(*) FROM note;\n", shell: shell)
        #expect(defaults.errorOutput.contains("not a database"), "\(defaults.output) \(defaults.errorOutput)")
        // What SQLCipher 4 wrote in compatibility 3 reads here.
        let db = try Connection(path: path, key: .passphrase("three and four ☂"))
        #expect(try db.fetchAll(sql: "SELECT body FROM note ORDER BY id").map { try $0.value(String.self, at: 0) }
                == ["made on SQLCipher 3", "added by SQLCipher 4"])
    }

    @Test(.enabled(if: LinkedSQLCipher.isVersion3, "SQLCipher 3 only; counterpart: aFileMadeByTheSQLCipher3ShellOpensHereWithSQLCipher3Settings on SQLCipher 4"),
          .enabled(if: SQLCipherShell.sqlcipher4 != nil, Comment(rawValue: SQLCipherShell.sqlcipher4Missing)))
    func aFileMadeByTheSQLCipher4ShellInCompatibility3OpensHereOnSQLCipher3() throws {
        let shell = try #require(SQLCipherShell.sqlcipher4)
        let directory = try TemporaryDirectory()
        let path = directory.path("from-v4-shell.sqlite")
        let made = try SQLCipherShell.run(database: path, script: """
            PRAGMA key = 'shell''s key';
            PRAGMA cipher_compatibility = 3;
            CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);
            INSERT INTO note(body) VALUES ('made by SQLCipher 4 in compatibility 3');
            """, shell: shell)
        #expect(made.status == 0, "\(made.errorOutput)")
        let hex = String(repeating: "c4", count: 32)
        let rawPath = directory.path("raw.sqlite")
        let madeRaw = try SQLCipherShell.run(database: rawPath, script: "PRAGMA key = \"x'\(hex)'\";\nPRAGMA cipher_compatibility = 3;\nCREATE TABLE t(x); INSERT INTO t VALUES (43);\n", shell: shell)
        #expect(madeRaw.status == 0, "\(madeRaw.errorOutput)")

        let db = try Connection(path: path, key: .passphrase("shell's key"))
        #expect(try db.fetchScalar(String.self, sql: "SELECT body FROM note") == "made by SQLCipher 4 in compatibility 3")
        #expect(try CipherSettings.inUse(by: db).pageSize == 1024)
        let raw = try Connection(path: rawPath, key: .rawKey(hex: hex))
        #expect(try raw.fetchScalar(Int.self, sql: "SELECT x FROM t") == 43)
    }
}
