import CipherStore
import Foundation

/// Source databases for the library's and the tool's tests: one with the schema features a
/// conversion must carry over, and large ones of ~1 KB rows.
public enum SampleDatabases {
    public static let richSchema = """
        PRAGMA user_version = 7;
        PRAGMA application_id = 1234567;
        CREATE TABLE author(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE, photo BLOB);
        CREATE TABLE book(id INTEGER PRIMARY KEY AUTOINCREMENT, author INTEGER NOT NULL REFERENCES author(id) ON DELETE CASCADE,
                          title TEXT, deleted INTEGER DEFAULT 0);
        CREATE INDEX book_title ON book(title);
        CREATE UNIQUE INDEX book_live_title ON book(author, title) WHERE deleted = 0;
        CREATE VIEW live_book AS SELECT b.id, a.name, b.title FROM book b JOIN author a ON a.id = b.author WHERE deleted = 0;
        CREATE TABLE audit(line TEXT);
        CREATE TRIGGER book_insert AFTER INSERT ON book BEGIN INSERT INTO audit VALUES ('added ' || new.title); END;
        CREATE VIRTUAL TABLE note_search USING fts4(body);
        CREATE TABLE setting(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
        CREATE TABLE "odd ""quoted"" table"("weird column" TEXT);
        INSERT INTO author(name, photo) VALUES ('冰儿', x'00FF10'), ('Lily "quoted"', NULL);
        INSERT INTO book(author, title) VALUES (1, '一只雪猴 "2014" 🐒'), (2, 'second'), (2, 'third');
        DELETE FROM book WHERE title = 'third';
        INSERT INTO note_search VALUES ('full text search works'), ('中文 搜索');
        INSERT INTO setting VALUES ('theme', 'dark'), ('lang', 'zh');
        INSERT INTO "odd ""quoted"" table" VALUES ('x');
        """

    /// A plaintext database with every feature of ``richSchema``, with the page size that
    /// encrypted databases have by default (conversions keep the source's page size).
    public static func makeRichPlaintext(at path: String) throws {
        let db = try Connection(path: path, key: nil)
        try db.execute(sql: "PRAGMA page_size = \(SQLCipherLibrary.defaultPageSize)")
        try db.executeScript(richSchema)
        try db.close()
    }

    /// A plaintext database with `rows` rows of about 1 KB each.
    public static func makeLarge(at path: String, rows: Int, key: DatabaseKey? = nil) throws {
        let db = try Connection(path: path, key: key)
        if key == nil { try db.execute(sql: "PRAGMA page_size = \(SQLCipherLibrary.defaultPageSize)") }
        try db.execute(sql: "CREATE TABLE big(id INTEGER PRIMARY KEY, body TEXT)")
        try db.execute(sql: """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
            INSERT INTO big SELECT i, printf('%01000d', i) FROM n
            """, arguments: [rows])
        try db.close()
    }
}
