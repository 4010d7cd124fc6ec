import CipherStore
import Foundation
import TestSupport
import Testing

/// Values fetched from the first column, through the connection and through the value types:
/// `String`, `Int`, `Date` and `UUID` are read as values, never decoded as records.
@Suite struct ScalarFetchTests {
    @Test func valueTypesAreReadFromTheFirstColumn() throws {
        let directory = try TemporaryDirectory()
        let db = try Connection(path: directory.path("scalars.db"), key: .rawKey(hex: String(repeating: "1c", count: 32)))
        try db.executeScript("""
            CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT, born TEXT);
            INSERT INTO author VALUES (1, 'Lily', '2026-11-25 10:00:00.000'), (2, 'Binger', NULL);
            """)
        #expect(try db.fetchAll(String.self, sql: "SELECT name FROM author ORDER BY id") == ["Lily", "Binger"])
        #expect(try String.fetchAll(db, sql: "SELECT name FROM author ORDER BY id") == ["Lily", "Binger"])
        #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM author") == 2)
        #expect(try Int.fetchOne(db, sql: "SELECT id FROM author WHERE name = ?", arguments: ["Binger"]) == 2)
        #expect(try Int.fetchOne(db, sql: "SELECT id FROM author WHERE name = 'nobody'") == nil)
        #expect(try db.fetchOne(Date.self, sql: "SELECT born FROM author WHERE id = 2") == nil)
        #expect(try db.fetchAll(Int64.self, sql: "SELECT id FROM author ORDER BY id") == [1, 2])
        // A NULL in a list of non-optional values is an error, not a silent gap.
        #expect(throws: CipherStoreError.self) { try db.fetchAll(Date.self, sql: "SELECT born FROM author ORDER BY id") }
        try db.close()
    }
}
