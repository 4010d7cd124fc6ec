import CipherStore
import Foundation
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
}
