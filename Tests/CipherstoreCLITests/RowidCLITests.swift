import CipherStore
import Foundation
import TestSupport
import Testing

/// The command-line rewrites (encrypt, rekey, keys init, decrypt) keep every rowid of a table
/// that has neither an `INTEGER PRIMARY KEY` nor an index, the rows `sqlcipher_export` renumbers.
@Suite struct RowidCLITests {
    @Test func everyRewriteKeepsRowids10And20And30() throws {
        let workspace = try TemporaryDirectory()
        let plain = workspace.path("plain.db")
        let db = try Connection(path: plain, key: nil)
        try db.executeScript("""
            CREATE TABLE t(body);
            INSERT INTO t(rowid, body) VALUES (10, 'ten'), (20, 'twenty'), (30, 'thirty');
            """)
        try db.close()
        let first = try workspace.keyFile("first.key", "first rowid passphrase")
        let second = try workspace.keyFile("second.key", "second rowid passphrase")
        let expected = ["10|ten", "20|twenty", "30|thirty"]
        func rows(_ path: String, _ key: DatabaseKey?) throws -> [String] {
            let db = try Connection(path: path, key: key)
            defer { try? db.close() }
            return try String.fetchAll(db, sql: "SELECT rowid || '|' || body FROM t ORDER BY rowid")
        }
        let encrypted = workspace.path("app.db")
        var result = try CLI.run(["encrypt", plain, "-o", encrypted, "--key-file", first])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(try rows(encrypted, .passphrase("first rowid passphrase")) == expected)

        result = try CLI.run(["rekey", encrypted, "--in-place", "--old-key-file", first, "--new-key-file", second])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(try rows(encrypted, .passphrase("second rowid passphrase")) == expected)

        result = try CLI.run(["keys", "init", encrypted, "--key-file", second, "--new-key-file", first])
        #expect(result.status == 0, "\(result.errorOutput)")
        let slotKey = try DatabaseKey.slots(passphrase: Passphrase("first rowid passphrase"), path: encrypted)
        #expect(try rows(encrypted, slotKey) == expected)

        let decrypted = workspace.path("decrypted.db")
        result = try CLI.run(["decrypt", encrypted, "-o", decrypted, "--key-file", first])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(try rows(decrypted, nil) == expected)
    }

    /// Columns named rowid, _rowid_ and oid leave SQL no way to the rowid: the rewrite says so
    /// instead of claiming every rowid kept.
    @Test func aTableWhoseColumnsTakeEveryRowidNameIsNamed() throws {
        let workspace = try TemporaryDirectory()
        let plain = workspace.path("plain.db")
        let db = try Connection(path: plain, key: nil)
        try db.executeScript("""
            CREATE TABLE s("rowid", "_rowid_", "oid", v);
            INSERT INTO s(v) VALUES ('a'), ('b'), ('c'), ('d');
            DELETE FROM s WHERE v IN ('a', 'c');
            """)
        try db.close()
        let key = try workspace.keyFile("k.key", "shadowed rowid passphrase")
        let result = try CLI.run(["encrypt", plain, "-o", workspace.path("app.db"), "--key-file", key])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("table s has columns named rowid, _rowid_ and oid"), "\(result.errorOutput)")
    }
}
