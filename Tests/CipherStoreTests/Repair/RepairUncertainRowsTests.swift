@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// A repair never puts a row whose state is uncertain into a live table, nor a table's rows
/// into another table, and never drops rows silently: deleted rows on pages no table reaches,
/// a table created under a collation the tool does not have, a stale page 1 whose freelist
/// names pages in use.
@Suite struct RepairUncertainRowsTests {
    let directory: TemporaryDirectory
    let path: String
    let output: String
    let key: DatabaseKey
    let pageSize = SQLCipherLibrary.defaultPageSize

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.path("app.db")
        output = directory.path("salvaged.db")
        key = try DatabaseKey.rawKey(hex: String(repeating: "4c", count: 32))
    }

    func query(_ sql: String) throws -> [Int] {
        let db = try Connection(path: output, key: key)
        defer { try? db.close() }
        return try Int.fetchAll(db, sql: sql)
    }

    func pageImage(_ page: Int) -> Data {
        fileBytes(path).subdata(in: (page - 1) * pageSize..<page * pageSize)
    }

    func write(_ image: Data, atPage page: Int) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64((page - 1) * pageSize))
        try handle.write(contentsOf: image)
    }

    @Test func deletedRowsOnFreePagesStayOutOfTheLiveTableWhenPageOneIsLost() throws {
        // A queue keeps the schema copy that names t's root page once page 1 is gone.
        let queue = try DatabaseQueue(path: path, key: key)
        try queue.inDatabase { db in
            try db.executeScript("""
                PRAGMA secure_delete = OFF;
                CREATE TABLE t(a, b);
                WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000)
                INSERT INTO t SELECT x, printf('row %d', x) FROM c;
                CREATE TABLE gone(a, b);
                WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000)
                INSERT INTO gone(rowid, a, b) SELECT x + 10000, x + 10000, printf('deleted %d', x) FROM c;
                """)
            // Dropped: its leaves go to the freelist whole, rows and all.
            try db.execute(sql: "DROP TABLE gone")
        }
        try queue.close()
        // Page 1 unreadable: its freelist, which names the dropped table's pages, is lost.
        var first = pageImage(1)
        for index in 200..<216 { first[index] ^= 0x5A }
        try write(first, atPage: 1)

        let report = try DatabaseRepair.salvage(path: path, key: key, to: output)
        #expect(!report.isComplete)
        #expect(report.schemaFromCopy)
        let live = try #require(report.tables.first { $0.name == "t" })
        #expect(live.recoveredRows == 10000)
        #expect(try query("SELECT count(*) FROM t WHERE a > 10000") == [0])
        #expect(try query("SELECT count(*) FROM t") == [10000])
        // The deleted rows that survived on free pages are kept apart, and counted.
        let apart = report.tables.filter { $0.name.hasPrefix("recovered_") }.reduce(0) { $0 + $1.recoveredRows }
        #expect(apart > 0)
        #expect(report.problems.contains { $0.contains("rows deleted earlier cannot be told from live rows") }, "\(report.problems)")
    }

    @Test func aTableUnderACollationTheToolLacksIsCreatedAsWrittenAndKeepsItsRows() throws {
        let db = try Connection(path: path, key: key)
        try db.addPlaceholderCollation(named: "myapp")
        try db.executeScript("""
            CREATE TABLE words(w TEXT COLLATE myapp, n);
            CREATE INDEX words_w ON words(w);
            CREATE TABLE pairs(a, b);
            INSERT INTO words VALUES ('banana', 2), ('apple', 1), ('cherry', 3);
            INSERT INTO pairs VALUES (10, 20), (30, 40);
            """)
        try db.close()

        let report = try DatabaseRepair.salvage(path: path, key: key, to: output)
        #expect(report.tables.map(\.name).sorted() == ["pairs", "words"])
        #expect(report.tables.first { $0.name == "words" }?.recoveredRows == 3)
        #expect(report.tables.first { $0.name == "pairs" }?.recoveredRows == 2)
        // Nothing is lost: the stand-in is named for a REINDEX in the app, not counted as a problem.
        #expect(report.isComplete, "\(report.problems)")
        #expect(report.placeholderCollations == PlaceholderCollations(names: ["myapp"], indexes: ["words_w"]))
        let check = try Connection(path: output, key: key)
        defer { try? check.close() }
        try check.addPlaceholderCollation(named: "myapp")
        #expect(try String.fetchAll(check, sql: "SELECT sql FROM sqlite_master WHERE name = 'words'") == ["CREATE TABLE words(w TEXT COLLATE myapp, n)"])
        #expect(try Int.fetchAll(check, sql: "SELECT n FROM words ORDER BY n") == [1, 2, 3])
        #expect(try Int.fetchAll(check, sql: "SELECT a FROM pairs ORDER BY a") == [10, 30])
    }

    @Test func aStalePageOneWhoseFreelistNamesPagesInUseDropsNoRow() throws {
        let db = try Connection(path: path, key: key)
        try db.executeScript("""
            PRAGMA secure_delete = OFF;
            CREATE TABLE t(a, b);
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 4000)
            INSERT INTO t SELECT x, printf('first %d', x) FROM c;
            DELETE FROM t WHERE a > 2000;
            """)
        // Page 1 now lists the freed pages; keep that version of it.
        let stale = pageImage(1)
        try db.executeScript("""
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000)
            INSERT INTO t SELECT x + 100000, printf('second %d', x) FROM c;
            """)
        try db.close()
        // An older copy of page 1 put back: its HMAC holds (SQLCipher cannot tell it is old).
        try write(stale, atPage: 1)

        let report = try DatabaseRepair.salvage(path: path, key: key, to: output)
        #expect(!report.isComplete)
        #expect(report.problems.contains { $0.contains("freelist names") }, "\(report.problems)")
        let everywhere = try report.tables.map(\.name).flatMap { table in
            try query("SELECT count(*) FROM \(Connection.quoteIdentifier(table)) ").map { $0 }
        }.reduce(0, +)
        #expect(everywhere >= 4000, "rows of pages the stale freelist names were dropped")
        #expect(try query("SELECT count(*) FROM t WHERE a > 100000") == [2000])
    }
}

/// The salt is not secret, and the schema copy keeps it: a passphrase database whose first
/// 16 bytes are lost still gives back its rows.
@Suite struct RepairLostSaltTests {
    @Test func aPassphraseDatabaseWithoutItsSaltIsReadWithTheSaltItsSchemaCopyKeeps() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("salted.db")
        let key = try DatabaseKey.passphrase("a passphrase whose salt is lost")
        let queue = try DatabaseQueue(path: path, key: key)
        try queue.inDatabase { db in
            try db.executeScript("""
                CREATE TABLE t(a, b);
                WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 500)
                INSERT INTO t SELECT x, printf('row %d', x) FROM c;
                """)
        }
        try queue.close()
        let salt = try #require(DatabaseFileInfo.salt(of: path))
        #expect(SchemaCopy.storedSalt(forDatabase: path) == salt)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.write(contentsOf: Data(repeating: 0xAB, count: 16))
        try handle.close()

        let output = directory.path("out.db")
        let report = try DatabaseRepair.salvage(path: path, key: key, to: output)
        #expect(report.recoveredRows == 500)
        #expect(report.notes.contains { $0.contains("its salt, are damaged") }, "\(report.notes)")
        let db = try Connection(path: output, key: key)
        defer { try? db.close() }
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") == 500)

        // Without the copy, nothing decrypts: the error says where the salt can come from.
        try FileManager.default.removeItem(atPath: SchemaCopy.path(forDatabase: path))
        #expect {
            try DatabaseRepair.salvage(path: path, key: key, to: directory.path("again.db"))
        } throws: { error in
            "\(error)".contains("salt")
        }
    }
}

/// Virtual tables are made anew and full-text indexes rebuilt; one whose module is not there
/// is named (never dropped in silence) and the triggers writing to it are left out; ANALYZE's
/// statistics are gathered anew (never turned into a recovered_N table).
@Suite struct RepairVirtualTableTests {
    @Test func aFullTextTableIsMadeAnewAndStatisticsAreGatheredAnew() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("fts.db")
        let key = try DatabaseKey.rawKey(hex: String(repeating: "6a", count: 32))
        let db = try Connection(path: path, key: key)
        try db.executeScript("""
            CREATE VIRTUAL TABLE notes USING fts4(body);
            INSERT INTO notes VALUES ('buy milk'), ('walk the dog');
            CREATE TABLE t(id INTEGER PRIMARY KEY, v);
            CREATE INDEX t_v ON t(v);
            INSERT INTO t VALUES (1, 'a'), (2, 'b');
            ANALYZE;
            """)
        try db.close()
        let output = directory.path("out.db")
        let report = try DatabaseRepair.salvage(path: path, key: key, to: output)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(!report.tables.contains { $0.name.hasPrefix("recovered_") }, "\(report.tables)")
        #expect(report.notes.contains { $0.contains("sqlite_stat1") })
        #expect(report.notes.contains { $0.contains("full-text index notes was rebuilt") }, "\(report.notes)")
        let check = try Connection(path: output, key: key)
        defer { try? check.close() }
        #expect(try check.fetchScalar(Int.self, sql: "SELECT count(*) FROM sqlite_stat1") ?? 0 > 0)
        #expect(try check.fetchScalar(Int.self, sql: "SELECT rowid FROM notes WHERE notes MATCH 'dog'") == 2)
    }

    /// A contentless index has no documents to rebuild from: its index is copied as found.
    @Test func aContentlessIndexIsCopiedAsFound() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("fts.db")
        let key = try DatabaseKey.rawKey(hex: String(repeating: "6b", count: 32))
        let db = try Connection(path: path, key: key)
        try db.executeScript("""
            CREATE VIRTUAL TABLE words USING fts4(body, content='');
            INSERT INTO words(docid, body) VALUES (7, 'buy milk'), (9, 'walk the dog');
            """)
        try db.close()
        let output = directory.path("out.db")
        let report = try DatabaseRepair.salvage(path: path, key: key, to: output)
        #expect(report.notes.contains { $0.contains("words keeps no documents") && $0.contains("copied as found") }, "\(report.notes)")
        let check = try Connection(path: output, key: key)
        defer { try? check.close() }
        #expect(try Int.fetchAll(check, sql: "SELECT docid FROM words WHERE words MATCH 'dog'") == [9])
    }

    /// A virtual table whose module the tool does not have is named with its shadow tables,
    /// and a trigger writing to it is not created: it would make its table refuse every write.
    /// The same for a trigger that names it as a string where SQLite reads a table's name, or
    /// that reads a view of it; the view is created, and said not to read.
    @Test func aVirtualTableThatCannotBeMadeIsNamedAndItsTriggersLeftOut() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("fts.db")
        let key = try DatabaseKey.rawKey(hex: String(repeating: "6c", count: 32))
        let appCheck = DatabaseFunction("app_check", argumentCount: 1, pure: true) { _ in 1 }
        let db = try Connection(path: path, key: key)
        try db.add(function: appCheck)
        try db.executeScript("""
            CREATE TABLE post(id INTEGER PRIMARY KEY, body TEXT);
            CREATE VIRTUAL TABLE post_ft USING fts4(content='post', body);
            CREATE TRIGGER post_ai AFTER INSERT ON post BEGIN INSERT INTO post_ft(docid, body) VALUES (new.id, new.body); END;
            CREATE TRIGGER post_log AFTER INSERT ON post BEGIN SELECT 'post_ft'; END;
            CREATE TRIGGER post_quoted AFTER INSERT ON post BEGIN DELETE FROM 'post_ft' WHERE docid = -1; END;
            CREATE TRIGGER post_schema AFTER DELETE ON post BEGIN REPLACE INTO 'post_ft'(docid, body) VALUES (old.id, old.body); END;
            CREATE TRIGGER post_comma AFTER UPDATE OF body ON post BEGIN SELECT 1 FROM post, 'post_ft'; END;
            CREATE VIEW post_hits AS SELECT docid FROM post_ft;
            CREATE VIEW post_top AS SELECT docid FROM post_hits LIMIT 1;
            DROP VIEW post_hits;
            CREATE VIEW post_hits AS SELECT docid FROM post_ft;
            CREATE TRIGGER post_count AFTER INSERT ON post BEGIN SELECT count(*) FROM post_top; END;
            CREATE TRIGGER post_app AFTER INSERT ON post WHEN app_check(new.body) BEGIN INSERT INTO post_ft(docid) VALUES (new.id); END;
            CREATE TRIGGER post_app_only AFTER INSERT ON post WHEN app_check(new.body) BEGIN SELECT 1; END;
            CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);
            CREATE TRIGGER note_to_inbox AFTER INSERT ON note BEGIN INSERT INTO inbox(body) VALUES (new.body); END;
            CREATE VIEW inbox AS SELECT body FROM post;
            CREATE TRIGGER inbox_insert INSTEAD OF INSERT ON inbox BEGIN INSERT INTO post_ft(body) VALUES (new.body); END;
            CREATE TABLE memo(id INTEGER PRIMARY KEY, body TEXT);
            CREATE TRIGGER memo_to_note AFTER INSERT ON memo BEGIN INSERT INTO note(body) VALUES (new.body); END;
            INSERT INTO post VALUES (1, 'walk the dog');
            """)
        // A module no connection has: the schema row is edited the way an app's own module
        // would leave it.
        try db.execute(sql: "PRAGMA writable_schema = ON")
        try db.execute(sql: "UPDATE sqlite_master SET sql = replace(sql, 'fts4', 'myindex') WHERE name = 'post_ft'")
        try db.close()
        let output = directory.path("out.db")
        let report = try DatabaseRepair.salvage(path: path, key: key, to: output)
        #expect(report.problems.contains { $0.contains("virtual table post_ft was not recreated") && $0.contains("myindex") }, "\(report.problems)")
        // post_app calls a function the app registers and the tool lacks, before the table.
        for (trigger, event) in [("post_ai", "insert"), ("post_quoted", "insert"), ("post_schema", "delete"), ("post_comma", "update"), ("post_count", "insert"),
                                 ("post_app", "insert")] {
            #expect(report.problems.contains("trigger \(trigger) was not created: with it, every write to post fails (no such table: post_ft, a virtual table that was not recreated)"),
                    "\(trigger), on \(event): \(report.problems)")
        }
        // A trigger writing to a view whose INSTEAD OF trigger was left out, made before it.
        #expect(report.problems.contains("trigger inbox_insert was not created: with it, every write to inbox fails (no such table: post_ft, a virtual table that was not recreated)"), "\(report.problems)")
        #expect(report.problems.contains("trigger note_to_inbox was not created: with it, every write to note fails (it writes to view inbox, whose INSTEAD OF trigger was not created)"), "\(report.problems)")
        #expect(!report.problems.contains { $0.contains("memo_to_note") }, "\(report.problems)")
        // A view that reads it, even through a view made after it, is created, and named.
        for view in ["post_hits", "post_top"] {
            #expect(report.problems.contains("view \(view) was created, but reading it fails (no such table: post_ft, a virtual table that was not recreated)"), "\(report.problems)")
        }
        #expect(!report.problems.contains { $0.contains("post_log") }, "\(report.problems)")
        let check = try Connection(path: output, key: key)
        defer { try? check.close() }
        try check.add(function: appCheck)
        #expect(try check.fetchScalar(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'post_app_only'") == 1)
        try check.execute(sql: "INSERT INTO post VALUES (2, 'buy milk')")
        try check.execute(sql: "UPDATE post SET body = 'buy bread' WHERE id = 2")
        try check.execute(sql: "DELETE FROM post WHERE id = 1")
        try check.execute(sql: "INSERT INTO memo(body) VALUES ('call back')")
        #expect(try check.fetchScalar(String.self, sql: "SELECT body FROM note") == "call back")
        #expect(try check.fetchScalar(Int.self, sql: "SELECT count(*) FROM post") == 1)
        #expect(try check.fetchScalar(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'post_log'") == 1)
        // The failed CREATE VIRTUAL TABLE left no schema row behind.
        #expect(try check.fetchScalar(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'post_ft'") == 0)
    }

    /// A table of the file that has a shadow table's name but not its shape keeps its rows,
    /// apart, and is named.
    @Test func aTableNamedLikeAShadowTableKeepsItsRows() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("fts.db")
        let key = try DatabaseKey.rawKey(hex: String(repeating: "6d", count: 32))
        let db = try Connection(path: path, key: key)
        try db.executeScript("""
            CREATE TABLE x_stat(k, v);
            INSERT INTO x_stat VALUES ('important', 'data');
            """)
        try db.execute(sql: "PRAGMA writable_schema = ON")
        try db.execute(sql: "INSERT INTO sqlite_master VALUES ('table', 'x', 'x', 0, 'CREATE VIRTUAL TABLE x USING fts4(body)')")
        try db.close()
        let output = directory.path("out.db")
        let report = try DatabaseRepair.salvage(path: path, key: key, to: output)
        #expect(report.problems.contains { $0.contains("table x_stat has the name of a table virtual table x keeps its data in") }, "\(report.problems)")
        #expect(report.tables.contains { $0.name.hasPrefix("recovered_") && $0.recoveredRows == 1 }, "\(report.tables)")
    }
}
