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

    @Test func valueCursorsReadTheFirstColumnRowByRow() throws {
        struct Author: Codable, FetchableRecord, TableRecord {
            static let databaseTableName = "author"
            var id: Int64
            var name: String?
        }
        let directory = try TemporaryDirectory()
        let db = try Connection(path: directory.path("cursors.db"), key: .rawKey(hex: String(repeating: "2d", count: 32)))
        try db.executeScript("""
            CREATE TABLE author(id INTEGER PRIMARY KEY, name TEXT);
            INSERT INTO author VALUES (1, 'Lily'), (2, NULL), (3, '100% Binger'), (4, '100 percent');
            """)
        func all<Value>(_ cursor: DatabaseValueCursor<Value>) throws -> [Value] {
            var values: [Value] = []
            while let value = try cursor.next() { values.append(value) }
            #expect(try cursor.next() == nil, "an exhausted cursor stays exhausted")
            return values
        }
        let expected = try db.fetchAll(String?.self, sql: "SELECT name FROM author ORDER BY id")
        #expect(expected == ["Lily", nil, "100% Binger", "100 percent"])
        #expect(try all(String?.fetchCursor(db, sql: "SELECT name FROM author ORDER BY id")) == expected)
        #expect(try all(db.fetchCursor(String?.self, sql: "SELECT name FROM author ORDER BY id")) == expected)
        #expect(try all(Author.select(Column("name"), as: String?.self).order(Column("id")).fetchCursor(db)) == expected)
        #expect(try all(Int64.fetchCursor(db, Author.select(Column("id")).order(Column("id").desc))) == [4, 3, 2, 1])
        // A NULL for a value type that is not optional throws at its row, as fetchAll does.
        do {
            let strict = try String.fetchCursor(db, sql: "SELECT name FROM author ORDER BY id")
            #expect(try strict.next() == "Lily")
            #expect(throws: CipherStoreError.self) { try strict.next() }
        }

        // LIKE with an ESCAPE character: `%` after it is a plain character.
        let literalPercent = Author.select(Column("name"), as: String.self).filter(Column("name").like("100\\%%", escape: "\\"))
        #expect(try literalPercent.fetchAll(db) == (try String.fetchAll(db, sql: #"SELECT name FROM author WHERE name LIKE '100\%%' ESCAPE '\' ORDER BY id"#)))
        #expect(try literalPercent.fetchAll(db) == ["100% Binger"])
        #expect(try Author.filter(Column("name").like("100%")).fetchCount(db) == 2)

        // UInt64 is no column type: fetched as a value, it is decoded as a record, and the error
        // says what to fetch instead.
        let unsigned = #expect(throws: RecordDecodingError.self) { try db.fetchAll(UInt64.self, sql: "SELECT id FROM author") }
        #expect(unsigned.map { "\($0)".contains("fetch Int64, and convert with UInt64(exactly:)") } == true)
        try db.close()
    }
}
