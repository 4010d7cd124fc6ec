import CipherStore
import Foundation
import TestSupport
import Testing

/// SQLCipher runs its key pragmas while a statement is prepared, so only the authorizer stops
/// them: a key never goes through SQL text, and no SQL changes a file's key in place.
@Suite struct KeyPragmaGuardTests {
    static let refused = [
        "PRAGMA rekey = 'other'", "pragma main.REKEY = 'other'", "PRAGMA hexrekey = '0011'",
        "PRAGMA key = 'other'", "PRAGMA hexkey = '0011'", "PRAGMA cipher_migrate",
    ]

    @Test(arguments: refused)
    func aKeyPragmaIsRefusedAndTheKeyStays(_ sql: String) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("app.db")
        let key = try DatabaseKey.passphrase("the real key")
        let db = try Connection(path: path, key: key)
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.execute(sql: "INSERT INTO t VALUES (1)")
        #expect {
            try db.execute(sql: sql)
        } throws: { error in
            guard let error = error as? DatabaseError else { return false }
            return error.resultCode == .SQLITE_AUTH && (error.message ?? "").contains("refused in SQL text")
                && !(error.message ?? "").contains("other")
        }
        // The connection still works with its key, and the file opens with it, not with the other.
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") == 1)
        try db.close()
        let reopened = try Connection(path: path, key: key)
        #expect(try reopened.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") == 1)
        try reopened.close()
        #expect(throws: CipherStoreError.self) { try Connection(path: path, key: try DatabaseKey.passphrase("other")) }
    }

    @Test func otherPragmasStillRun() throws {
        let directory = try TemporaryDirectory()
        let db = try Connection(path: directory.path("app.db"), key: try DatabaseKey.passphrase("the real key"))
        try db.execute(sql: "PRAGMA user_version = 7")
        #expect(try db.fetchScalar(Int.self, sql: "PRAGMA user_version") == 7)
        #expect(try db.fetchScalar(String.self, sql: "PRAGMA cipher_version") != nil)
        #expect(try db.fetchScalar(String.self, sql: "PRAGMA journal_mode") == "delete")
        try db.close()
    }
}
