@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// Every rewrite keeps each row's rowid, and verification compares rows with their rowids,
/// not only their count.
@Suite struct RowidKeepingTests {
    let directory: TemporaryDirectory
    let plainPath: String
    let key: DatabaseKey

    /// Each table's rows as `rowid|values`, in rowid (or key) order, and what a search of
    /// the FTS index over `note` returns.
    static let contentQueries = [
        "SELECT rowid || '|' || a || '|' || b FROM note ORDER BY rowid",
        "SELECT rowid || '|' || x FROM tagged ORDER BY rowid",
        "SELECT rowid || '|' || id || '|' || v FROM descending ORDER BY rowid",
        "SELECT _rowid_ || '|' || \"rowid\" FROM odd ORDER BY _rowid_",
        "SELECT name || '|' || v FROM keyed ORDER BY name",
        "SELECT rowid || '|' || b FROM note_search WHERE note_search MATCH 'hot' ORDER BY rowid",
    ]

    init() throws {
        directory = try TemporaryDirectory()
        plainPath = directory.path("plain.db")
        key = try DatabaseKey.rawKey(hex: String(repeating: "5e", count: 32))
        let db = try Connection(path: plainPath, key: nil)
        try db.executeScript("""
            CREATE TABLE note(a, b);
            INSERT INTO note(rowid, a, b) VALUES (10, 'ten', 'hot spring'), (20, 'twenty', 'snow'), (30, 'thirty', 'hot tea');
            CREATE TABLE tagged(x);
            CREATE INDEX tagged_x ON tagged(x);
            INSERT INTO tagged(rowid, x) VALUES (5, 'five'), (7, 'seven');
            CREATE TABLE descending(id INTEGER PRIMARY KEY DESC, v);
            INSERT INTO descending(rowid, id, v) VALUES (3, 100, 'a'), (9, 200, 'b');
            CREATE TABLE odd("rowid" TEXT, v);
            INSERT INTO odd(_rowid_, "rowid", v) VALUES (40, 'forty', 1), (50, 'fifty', 2);
            CREATE TABLE keyed(name TEXT PRIMARY KEY, v) WITHOUT ROWID;
            INSERT INTO keyed VALUES ('b', 2), ('a', 1);
            CREATE VIRTUAL TABLE note_search USING fts4(content="note", b);
            INSERT INTO note_search(note_search) VALUES ('rebuild');
            """)
        try db.close()
    }

    func content(_ path: String, key: DatabaseKey?) throws -> [[String]] {
        let db = try Connection(path: path, key: key)
        defer { try? db.close() }
        return try Self.contentQueries.map { try String.fetchAll(db, sql: $0) }
    }

    @Test func encryptDecryptAndAKeyChangeKeepEveryRowid() throws {
        let expected = try content(plainPath, key: nil)
        #expect(expected[0] == ["10|ten|hot spring", "20|twenty|snow", "30|thirty|hot tea"])
        #expect(expected[5] == ["10|hot spring", "30|hot tea"])

        let encrypted = directory.path("encrypted.db")
        try DatabaseFile.encrypt(path: plainPath, key: key, to: .file(encrypted))
        #expect(try content(encrypted, key: key) == expected)

        let newKey = try DatabaseKey.rawKey(hex: String(repeating: "6f", count: 32))
        try DatabaseFile.changeKey(path: encrypted, oldKey: key, newKey: newKey, to: .inPlace())
        #expect(try content(encrypted, key: newKey) == expected)

        let decrypted = directory.path("decrypted.db")
        try DatabaseFile.decrypt(path: encrypted, key: newKey, to: .file(decrypted))
        #expect(try content(decrypted, key: nil) == expected)
    }

    @Test func verificationTellsRowsWithOtherRowidsFromTheSameRows() throws {
        let copy = directory.path("copy.db")
        try FileManager.default.copyItem(atPath: plainPath, toPath: copy)
        let source = try Connection(path: plainPath, key: nil)
        defer { try? source.close() }
        let same = try Connection(path: copy, key: nil)
        defer { try? same.close() }
        let before = try DatabaseSnapshot.capture(source, comparingContent: true)
        #expect(before.difference(from: try DatabaseSnapshot.capture(same, comparingContent: true)) == nil)
        // Renumbered as `sqlcipher_export` renumbers: same rows, same count, other rowids.
        try same.execute(sql: "UPDATE note SET rowid = rowid / 10")
        let renumbered = try DatabaseSnapshot.capture(same, comparingContent: true)
        #expect(renumbered.rowCounts == before.rowCounts)
        #expect(before.difference(from: renumbered)?.contains("table note has the same number of rows but not the same rows") == true)
        // One value changed, in a table without rowids.
        try same.execute(sql: "UPDATE note SET rowid = rowid * 10")
        try same.execute(sql: "UPDATE keyed SET v = 3 WHERE name = 'b'")
        #expect(before.difference(from: try DatabaseSnapshot.capture(same, comparingContent: true))?.contains("table keyed") == true)
        // A value of another storage class: 1 and '1' are not the same row.
        try same.execute(sql: "UPDATE keyed SET v = 2 WHERE name = 'b'")
        #expect(before.difference(from: try DatabaseSnapshot.capture(same, comparingContent: true)) == nil)
        try same.execute(sql: "UPDATE keyed SET v = '2' WHERE name = 'b'")
        #expect(before.difference(from: try DatabaseSnapshot.capture(same, comparingContent: true))?.contains("table keyed") == true)
    }
}
