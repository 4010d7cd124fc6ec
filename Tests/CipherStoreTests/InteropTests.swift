import CipherStore
import Foundation
import TestSupport
import Testing

/// Interoperability with the real `sqlcipher` shell. Keys go to the shell on standard input.
@Suite struct InteropTests {
    @Test func databaseMadeHereOpensInTheShell() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("here.sqlite")
        do {
            let db = try Connection(path: path, key: .passphrase("shared passphrase ☂"))
            try db.execute(sql: "CREATE TABLE note(body TEXT)")
            try db.execute(sql: "INSERT INTO note VALUES (?)", arguments: ["made by CipherStore 中文"])
        }
        let result = try SQLCipherShell.run(database: path, script: """
            PRAGMA key = 'shared passphrase ☂';
            SELECT body FROM note;
            """)
        #expect(result.status == 0)
        #expect(result.output.contains("made by CipherStore 中文"))

        let wrong = try SQLCipherShell.run(database: path, script: "PRAGMA key = 'other';\nSELECT body FROM note;\n")
        #expect(!wrong.output.contains("made by CipherStore"))
        #expect(wrong.errorOutput.contains("not a database"))
    }

    @Test func databaseMadeInTheShellOpensHere() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("shell.sqlite")
        let result = try SQLCipherShell.run(database: path, script: """
            PRAGMA key = 'shell''s key';
            CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);
            INSERT INTO note(body) VALUES ('made by the shell');
            """)
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(DatabaseFileInfo.inspect(path: path).kind == .encrypted)
        let db = try Connection(path: path, key: .passphrase("shell's key"))
        #expect(try db.fetchScalar(String.self, sql: "SELECT body FROM note") == "made by the shell")
        #expect(throws: CipherStoreError.wrongKey(path: path)) {
            try Connection(path: path, key: .passphrase("shell key"))
        }
    }

    @Test func rawKeyDatabaseMadeInTheShellOpensHere() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("raw.sqlite")
        let hex = String(repeating: "5a", count: 32)
        let result = try SQLCipherShell.run(database: path, script: """
            PRAGMA key = "x'\(hex)'";
            CREATE TABLE t(x); INSERT INTO t VALUES (7);
            """)
        #expect(result.status == 0, "\(result.errorOutput)")
        let db = try Connection(path: path, key: .rawKey(hex: hex))
        #expect(try db.fetchScalar(Int.self, sql: "SELECT x FROM t") == 7)
    }
}
