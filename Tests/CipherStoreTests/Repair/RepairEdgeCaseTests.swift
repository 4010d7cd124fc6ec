@testable @_spi(Fuzzing) import CipherStore
import Foundation
import TestSupport
import Testing

/// Schemas that trip a naive repair: names it would take for itself, columns named like the
/// rowid, tables that are not what their SQL text looks like, a schema spread over pages.
@Suite struct RepairEdgeCaseTests {
    let directory: TemporaryDirectory
    let path: String
    let output: String
    let key: DatabaseKey

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.path("edge.db")
        output = directory.path("salvaged.db")
        key = try DatabaseKey.rawKey(hex: String(repeating: "2e", count: 32))
    }

    func make(_ script: String) throws {
        let db = try Connection(path: path, key: key)
        try db.executeScript(script)
        try db.close()
    }

    /// The app's function of the tests where a schema calls one the repair lacks.
    static let myLength = DatabaseFunction("mylen", argumentCount: 1, pure: true) { values in
        guard case .text(let text)? = values.first else { return nil }
        return text.utf8.count
    }

    /// ``make(_:)`` on a connection that has the app's `mylen()`.
    func makeWithMyLength(_ script: String) throws {
        let db = try Connection(path: path, key: key)
        try db.add(function: Self.myLength)
        try db.executeScript(script)
        try db.close()
    }

    func damage(page: Int) throws {
        try damagePage(page, of: path)
    }

    func rows(_ sql: String) throws -> [[DatabaseValue]] {
        let db = try Connection(path: output, key: key)
        defer { try? db.close() }
        return try db.fetchAll(sql: sql).map { row in (0..<row.count).map { row[$0] } }
    }

    @Test func aTableNamedRecoveredOneKeepsItsNameAndRowsThatFitNothingGetAnother() throws {
        // Two tables of one width: with page 1 lost and no copy, their leaves go to a
        // recovered table, which must not be the database's own recovered_1.
        try make("""
            CREATE TABLE recovered_1(q);
            INSERT INTO recovered_1 VALUES ('mine');
            CREATE TABLE a(x, y); CREATE TABLE b(x, y);
            INSERT INTO a VALUES (1, 2); INSERT INTO b VALUES (3, 4);
            """)
        try damage(page: 1)
        let report = try DatabaseRepair.salvage(path: path, key: key, to: output)
        #expect(report.recoveredRows == 3)
        #expect(Set(report.tables.map(\.name)).count == report.tables.count)
    }

    @Test func anIntegerPrimaryKeyBesideAUniqueColumnKeepsEachRowsID() throws {
        // The UNIQUE column's index covers a read of the key: a query for it may read the
        // index (IdxRowid) rather than the table, yet the key is still the rowid.
        try make("""
            CREATE TABLE tag(id INTEGER PRIMARY KEY, code TEXT UNIQUE, note TEXT);
            CREATE INDEX tag_note ON tag(note);
            INSERT INTO tag VALUES (10, 'z', 'first'), (20, 'y', 'second'), (35, 'x', 'third');
            """)
        let report = try DatabaseRepair.salvage(path: path, key: key, to: output)
        #expect(report.isComplete)
        let expected: [[DatabaseValue]] = [[.integer(10), .text("z"), .text("first")], [.integer(20), .text("y"), .text("second")],
                                           [.integer(35), .text("x"), .text("third")]]
        #expect(try rows("SELECT rowid, code, note FROM tag NOT INDEXED ORDER BY rowid") == expected)
        #expect(try rows("PRAGMA integrity_check") == [[.text("ok")]])
    }

    @Test(arguments: [false, true])
    func everyKindOfIndexComesBackWholeWhetherBuiltBeforeOrAfterTheRows(fileLargerThanCache: Bool) throws {
        // In a file larger than the page cache, every kind is built before the rows go in (no
        // sort held in memory); in a smaller one, after them.
        try make("""
            CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT, email TEXT, age INTEGER);
            CREATE INDEX person_name ON person(name COLLATE NOCASE, age DESC);
            CREATE UNIQUE INDEX person_email ON person(email);
            CREATE INDEX person_adult ON person(age) WHERE age >= 18;
            CREATE INDEX person_lower ON person(lower(name));
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
            INSERT INTO person SELECT i * 3, printf('Name %d', i % 97), printf('p%d@example.com', i), i % 60 FROM n;
            CREATE TABLE "My Table"(v TEXT);
            CREATE INDEX "My Table v" ON "My Table"(v);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
            INSERT INTO "My Table" SELECT printf('value %d', i * 7 % 500) FROM n;
            """)
        let report = try salvage(fileLargerThanCache: fileLargerThanCache)
        #expect(report.isComplete)
        #expect(report.problems.isEmpty, "\(report.problems)")
        let source = try Connection(path: path, key: key)
        let schema = try source.fetchAll(sql: "SELECT name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name").map { [$0[0], $0[1]] }
        try source.close()
        #expect(try rows("SELECT name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name") == schema)
        #expect(try rows("PRAGMA integrity_check") == [[.text("ok")]])
        // Built before the rows, an index has its root right after the table's (pages 2 to 6);
        // built after them, after the table's dozens of pages.
        let roots = try rootPages()
        for index in ["person_name", "person_email", "person_adult", "person_lower"] {
            #expect((roots[index] ?? 0 < 10) == fileLargerThanCache, "\(index): \(roots)")
        }
        // A quoted name with a space: the same, right after its table's root.
        #expect((roots["My Table v"] == (roots["My Table"] ?? 0) + 1) == fileLargerThanCache, "\(roots)")
        for (index, condition) in [("person_name", "name = 'name 5' COLLATE NOCASE"), ("person_email", "email = 'p77@example.com'"),
                                   ("person_adult", "age >= 18 AND age = 40"), ("person_lower", "lower(name) = 'name 5'")] {
            #expect(try rows("SELECT group_concat(id) FROM (SELECT id FROM person INDEXED BY \(index) WHERE \(condition) ORDER BY id)")
                    == rows("SELECT group_concat(id) FROM (SELECT id FROM person NOT INDEXED WHERE \(condition) ORDER BY id)"), "\(index)")
        }
    }

    @Test(arguments: [false, true])
    func aUniqueIndexThatFindsAKeyTwiceKeepsEveryRowInItsTable(fileLargerThanCache: Bool) throws {
        // A damaged file: its index on code says UNIQUE, but two rows share a key. Built before
        // the rows or after them, the index must not move a row out of its table: every row
        // stays, and the index is reported as not created. The other UNIQUE index, which finds
        // no key twice, and the plain one are created.
        try make("""
            CREATE TABLE item(id INTEGER PRIMARY KEY, code TEXT, note TEXT);
            CREATE INDEX item_code ON item(code);
            CREATE UNIQUE INDEX item_note ON item(note);
            CREATE INDEX item_plain ON item(note, code);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
            INSERT INTO item SELECT i * 2, printf('code %d', CASE WHEN i IN (1500, 2500) THEN 7 ELSE i END), printf('note %d', i) FROM n;
            PRAGMA writable_schema = ON;
            UPDATE sqlite_master SET sql = 'CREATE UNIQUE INDEX item_code ON item(code)' WHERE name = 'item_code';
            """)
        let report = try salvage(fileLargerThanCache: fileLargerThanCache)
        #expect(report.tables.map(\.name) == ["item"])
        #expect(report.recoveredRows == 3000)
        #expect(report.problems.count == 1, "\(report.problems)")
        #expect(report.problems.first?.hasPrefix("index item_code could not be created") == true, "\(report.problems)")
        #expect(report.problems.first?.contains("UNIQUE constraint failed") == true, "\(report.problems)")
        let source = try Connection(path: path, key: key)
        let sourceRows = try source.fetchAll(sql: "SELECT id, code, note FROM item NOT INDEXED ORDER BY id").map { row in (0..<3).map { row[$0] } }
        try source.close()
        #expect(try rows("SELECT id, code, note FROM item NOT INDEXED ORDER BY id") == sourceRows)
        #expect(try rows("SELECT count(*) FROM item WHERE code = 'code 7'") == [[.integer(3)]])
        #expect(try rows("SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name") == [[.text("item_note")], [.text("item_plain")]])
        #expect(try rows("PRAGMA index_list(item)").contains { $0[1] == .text("item_note") && $0[2] == .integer(1) })
        #expect(try rows("PRAGMA integrity_check") == [[.text("ok")]])
    }

    @Test(arguments: [false, true])
    func anIndexWhoseExpressionFailsOnARowKeepsItInItsTable(fileLargerThanCache: Bool) throws {
        // abs() of the smallest integer fails (integer overflow): the index on abs(a) cannot
        // hold that row, nor can the partial index whose condition calls it. Either way, every
        // row stays in its table and those two indexes are reported as not created.
        try make("""
            CREATE TABLE num(id INTEGER PRIMARY KEY, a INTEGER);
            CREATE INDEX num_abs ON num(a);
            CREATE INDEX num_positive ON num(a);
            CREATE INDEX num_a ON num(a);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
            INSERT INTO num SELECT i, CASE i WHEN 1700 THEN -9223372036854775808 ELSE i - 1500 END FROM n;
            PRAGMA writable_schema = ON;
            UPDATE sqlite_master SET sql = 'CREATE INDEX num_abs ON num(abs(a))' WHERE name = 'num_abs';
            UPDATE sqlite_master SET sql = 'CREATE INDEX num_positive ON num(a) WHERE abs(a) > 0' WHERE name = 'num_positive';
            """)
        let report = try salvage(fileLargerThanCache: fileLargerThanCache)
        #expect(report.tables.map(\.name) == ["num"])
        #expect(report.recoveredRows == 3000)
        #expect(report.problems.sorted() == ["index num_abs could not be created", "index num_positive could not be created"].map { problem in
            report.problems.first { $0.hasPrefix(problem) && $0.contains("integer overflow") } ?? problem
        }, "\(report.problems)")
        #expect(try rows("SELECT a FROM num WHERE id = 1700") == [[.integer(Int64.min)]])
        #expect(try rows("SELECT count(*), sum(a = id - 1500) FROM num") == [[.integer(3000), .integer(2999)]])
        #expect(try rows("SELECT name FROM sqlite_master WHERE type = 'index'") == [[.text("num_a")]])
        #expect(try rows("PRAGMA integrity_check") == [[.text("ok")]])
    }

    @Test func anIndexOnAFunctionTheToolLacksIsNeverBuiltWithItsStandIn() throws {
        // The CHECK constraint and the index call the app's mylen(): the repair checks no row
        // with it (a stand-in lets each pass), and builds no index with the stand-in, not even
        // in a file larger than the page cache, where indexes are built before the rows.
        try makeWithMyLength("""
            CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT CHECK (mylen(body) < 100), "it's" TEXT);
            CREATE INDEX note_length ON note(mylen(body));
            CREATE INDEX note_tricky ON note("it's", /* the app's */ mylen(body));
            CREATE INDEX note_body ON note(body);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
            INSERT INTO note SELECT i, printf('note %d', i), 'x' FROM n;
            """)
        let report = try salvage(fileLargerThanCache: true)
        #expect(report.recoveredRows == 3000)
        #expect(report.problems.count == 2, "\(report.problems)")
        for index in ["note_length", "note_tricky"] {
            #expect(report.problems.contains { $0.hasPrefix("index \(index) was not created: it calls the SQL function mylen()") }, "\(report.problems)")
        }
        #expect(try rows("SELECT name FROM sqlite_master WHERE type = 'index'") == [[.text("note_body")]])
        #expect(try rootPages()["note_body"] ?? 0 < 10, "built before the rows")
        // As the app opens it (SQLite 3.33 and later check CHECK constraints too).
        let app = try Connection(path: output, key: key)
        defer { try? app.close() }
        try app.add(function: Self.myLength)
        #expect(try app.fetchScalar(String.self, sql: "PRAGMA integrity_check") == "ok")
    }

    @Test(arguments: [false, true])
    func anIndexWhoseSchemaRowNamesItOtherwiseIsTreatedAlikeBeforeOrAfterTheRows(fileLargerThanCache: Bool) throws {
        // A damaged schema: the row of index tx is named ta, and its keys are found twice.
        try make("""
            CREATE TABLE t(a INTEGER, b TEXT);
            CREATE INDEX tx ON t(a);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
            INSERT INTO t SELECT i % 2000, printf('row %d', i) FROM n;
            PRAGMA writable_schema = ON;
            UPDATE sqlite_master SET name = 'ta', sql = 'CREATE UNIQUE INDEX tx ON t(a)' WHERE name = 'tx';
            """)
        let report = try salvage(fileLargerThanCache: fileLargerThanCache)
        #expect(report.tables.map(\.name) == ["t"])
        #expect(report.recoveredRows == 3000)
        #expect(report.problems.count == 1 && report.problems[0].hasPrefix("index ta could not be created"), "\(report.problems)")
        #expect(report.problems.first?.contains("UNIQUE constraint failed") == true, "\(report.problems)")
        #expect(try rows("SELECT count(*) FROM sqlite_master WHERE type = 'index'") == [[.integer(0)]])
        #expect(try rows("PRAGMA integrity_check") == [[.text("ok")]])
    }

    /// Schema rows of indexes, damaged: SQL that makes a trigger or a table, a name a table has,
    /// a name two rows have. Before the rows or after them, the repair gives the same result,
    /// and no row leaves its table.
    @Test(arguments: [
        "UPDATE sqlite_master SET sql = 'CREATE TRIGGER ix BEFORE INSERT ON t BEGIN SELECT RAISE(IGNORE); END' WHERE name = 'ix'",
        "UPDATE sqlite_master SET sql = 'CREATE TABLE u(a UNIQUE, b)' WHERE name = 'ix'",
        "UPDATE sqlite_master SET sql = 'CREATE TABLE u(a, b)' WHERE name = 'ix'",
        "UPDATE sqlite_master SET name = 'u', sql = 'CREATE INDEX u ON t(a)' WHERE name = 'ix'",
        "UPDATE sqlite_master SET name = 'ix', sql = 'CREATE UNIQUE INDEX ix ON t(a)' WHERE name = 'iy'",
        "UPDATE sqlite_master SET sql = 'CREATE INDEX iy ON t(a)' WHERE name = 'ix'",
    ])
    func aDamagedIndexRowRunsNothingBeforeTheRows(_ damage: String) throws {
        try make("""
            CREATE TABLE t(a INTEGER, b TEXT);
            CREATE INDEX ix ON t(b);
            CREATE INDEX iy ON t(a, b);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
            INSERT INTO t SELECT i % 1000, printf('row %d', i) FROM n;
            CREATE TABLE u(a INTEGER, b TEXT);
            INSERT INTO u SELECT a, b FROM t;
            PRAGMA writable_schema = ON;
            \(damage);
            """)
        var results: [[String]] = []
        for fileLargerThanCache in [false, true] {
            let report = try salvage(fileLargerThanCache: fileLargerThanCache)
            #expect(report.tables.map(\.name) == ["t", "u"], "\(fileLargerThanCache)")
            #expect(report.recoveredRows == 6000, "\(fileLargerThanCache)")
            let objects = try rows("SELECT type || ' ' || name FROM sqlite_master ORDER BY 1").map { "\($0[0])" }
            let content = try rows("SELECT count(*), sum(a), group_concat(b) FROM (SELECT a, b FROM t NOT INDEXED ORDER BY rowid)").map { "\($0)" }
            results.append([report.problems.joined(separator: "; ")] + objects + content)
            try FileManager.default.removeItem(atPath: output)
        }
        #expect(results[0] == results[1])
    }

    /// Schema rows of tables, damaged: SQL that makes a trigger (which would fire as later rows
    /// go in), or a table of another name. Neither runs; the rows are kept apart and named.
    @Test(arguments: [
        ("CREATE TRIGGER u_after AFTER INSERT ON w BEGIN UPDATE t SET b = ''changed''; END", "its schema row holds no CREATE TABLE statement"),
        ("CREATE TABLE u2(a INTEGER, b TEXT)", "its schema row's SQL creates u2, not u"),
    ])
    func aDamagedTableRowRunsNoOtherSQL(_ damage: String, reason: String) throws {
        try make("""
            CREATE TABLE t(a INTEGER, b TEXT);
            CREATE TABLE u(a INTEGER, b TEXT);
            CREATE TABLE w(a INTEGER, b TEXT);
            INSERT INTO t VALUES (1, 'one'), (2, 'two');
            INSERT INTO u VALUES (3, 'three');
            INSERT INTO w VALUES (4, 'four');
            PRAGMA writable_schema = ON;
            UPDATE sqlite_master SET sql = '\(damage)' WHERE name = 'u';
            """)
        let report = try DatabaseRepair.salvage(path: path, key: key, to: output)
        #expect(report.problems.contains("table u could not be created (\(reason)): its 1 rows were put in recovered_N tables"), "\(report.problems)")
        #expect(try rows("SELECT b FROM t ORDER BY a") == [[.text("one")], [.text("two")]])
        #expect(try rows("SELECT b FROM w") == [[.text("four")]])
        #expect(try rows("SELECT type || ' ' || name FROM sqlite_master ORDER BY 1") == ["table recovered_1", "table t", "table w"].map { [.text($0)] })
        #expect(try rows("SELECT c1, c2 FROM recovered_1") == [[.integer(3), .text("three")]])
    }

    /// Schema rows of an index, a view and a trigger holding another kind's SQL, or a TEMP
    /// trigger's: none is run, each is named.
    @Test func aDamagedIndexViewOrTriggerRowIsNamedNotRun() throws {
        try make("""
            CREATE TABLE t(a INTEGER, b TEXT);
            CREATE INDEX ix ON t(a);
            CREATE VIEW v AS SELECT a FROM t;
            CREATE TRIGGER g AFTER INSERT ON t BEGIN SELECT 1; END;
            CREATE TRIGGER h AFTER DELETE ON t BEGIN SELECT 1; END;
            INSERT INTO t VALUES (1, 'one');
            PRAGMA writable_schema = ON;
            UPDATE sqlite_master SET sql = 'CREATE TRIGGER ix BEFORE INSERT ON t BEGIN SELECT RAISE(IGNORE); END' WHERE name = 'ix';
            UPDATE sqlite_master SET sql = 'CREATE TABLE v(a)' WHERE name = 'v';
            UPDATE sqlite_master SET sql = 'CREATE INDEX g ON t(b)' WHERE name = 'g';
            UPDATE sqlite_master SET sql = 'CREATE TEMP TRIGGER h AFTER DELETE ON t BEGIN SELECT 1; END' WHERE name = 'h';
            """)
        let report = try DatabaseRepair.salvage(path: path, key: key, to: output)
        for (kind, name) in [("index", "ix"), ("view", "v"), ("trigger", "g"), ("trigger", "h")] {
            #expect(report.problems.contains("\(kind) \(name) was not created: its schema row holds no CREATE \(kind.uppercased()) statement of the database's own"),
                    "\(report.problems)")
        }
        #expect(try rows("SELECT type || ' ' || name FROM sqlite_master ORDER BY 1") == [[.text("table t")]])
        let db = try Connection(path: output, key: key)
        try db.execute(sql: "INSERT INTO t VALUES (2, 'two')")
        try db.close()
        #expect(try rows("SELECT count(*) FROM t") == [[.integer(2)]])
    }

    /// A table whose schema row is gone: its leaves are reached by no walk, and go to the one
    /// table with as many columns, as leaves cut off by a lost page would. That is a guess, and
    /// the report says so: the repair is not complete.
    @Test func rowsGivenToATableByTheirWidthAloneAreNamed() throws {
        try make("""
            CREATE TABLE u(a INTEGER, b TEXT);
            CREATE TABLE z(a INTEGER, b TEXT);
            CREATE TABLE w(a INTEGER);
            INSERT INTO u VALUES (1, 'u');
            INSERT INTO z(rowid, a, b) VALUES (1, 0, 'taken'), (10, 2, 'z'), (11, 3, 'z');
            INSERT INTO w VALUES (4);
            PRAGMA writable_schema = ON;
            DELETE FROM sqlite_master WHERE name = 'z';
            """)
        let report = try DatabaseRepair.salvage(path: path, key: key, to: output)
        #expect(!report.isComplete)
        // The row whose rowid u has already is refused, counted apart.
        #expect(report.problems == ["2 rows on 1 pages no table reaches were put in table u, the one table with as many columns: rows cut off from it by a lost page belong there, but so would a table's whose schema row is lost. Check them",
                                    "1 rows were refused by their table (a constraint, or a rowid already taken): they were put in recovered_N tables"],
                "\(report.problems)")
        #expect(try rows("SELECT a, b FROM u ORDER BY a") == [[.integer(1), .text("u")], [.integer(2), .text("z")], [.integer(3), .text("z")]])
    }

    /// Repairs the file; in one larger than the page cache, indexes are built before the rows.
    func salvage(fileLargerThanCache: Bool) throws -> RepairReport {
        var options = DatabaseFileOptions()
        if fileLargerThanCache { options.pageCacheBytes = 16 * 1024 }
        return try DatabaseRepair.salvage(path: path, key: key, to: output, options: options)
    }

    @Test(arguments: [("mylen(body) IS NOT NULL", nil), ("coalesce(mylen(body), -1) >= 0", nil), ("mylen(body) < 100", String(repeating: "x", count: 200))])
    func aCheckCallingAFunctionTheToolLacksRefusesNoRow(_ check: String, refused: String?) throws {
        // The stand-in returns NULL, which a CHECK such as `f(x) IS NOT NULL` would refuse: the
        // table's CHECK constraints are not evaluated for its rows, and the report says so. A
        // table whose CHECK calls only the tool's functions still has them evaluated, though a
        // column's default calls the app's function.
        try makeWithMyLength("""
            CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT CHECK (\(check)));
            CREATE TABLE plain(id INTEGER PRIMARY KEY, n INTEGER CHECK (n > 0), d INTEGER DEFAULT (mylen('x')));
            INSERT INTO note(body) VALUES ('a'), ('bb'), ('ccc');
            INSERT INTO plain(n) VALUES (1), (2), (3);
            PRAGMA writable_schema = ON;
            UPDATE sqlite_master SET sql = 'CREATE TABLE plain(id INTEGER PRIMARY KEY, n INTEGER CHECK (n > 1), d INTEGER DEFAULT (mylen(''x'')))' WHERE name = 'plain';
            """)
        let report = try DatabaseRepair.salvage(path: path, key: key, to: output)
        #expect(report.tables.map(\.name) == ["note", "plain", "recovered_1"])
        #expect(report.tables.map(\.recoveredRows) == [3, 2, 1])
        #expect(!report.notes.contains { $0.contains("table plain") }, "\(report.notes)")
        #expect(report.notes.contains("the CHECK constraints of table note call the SQL function mylen(), which the app registers and this tool does not have: none of its CHECK constraints were evaluated for the rows read from its pages; check them in the app"),
                "\(report.notes)")
        #expect(try rows("SELECT body FROM note ORDER BY id") == [[.text("a")], [.text("bb")], [.text("ccc")]])
        // The constraint is the app's again, once the repair is done.
        let app = try Connection(path: output, key: key)
        defer { try? app.close() }
        try app.add(function: Self.myLength)
        #expect(try app.fetchScalar(String.self, sql: "PRAGMA integrity_check") == "ok")
        #expect(throws: DatabaseError.self) { try app.execute(sql: "INSERT INTO note(body) VALUES (?)", arguments: [refused]) }
        try app.execute(sql: "INSERT INTO note(body) VALUES ('dddd')")
    }

    func rootPages() throws -> [String: Int] {
        let db = try Connection(path: output, key: key)
        defer { try? db.close() }
        return Dictionary(uniqueKeysWithValues: try db.fetchAll(sql: "SELECT name, rootpage FROM sqlite_master").map {
            (try $0.value(String.self, at: 0), try $0.value(Int.self, at: 1))
        })
    }

    @Test func aColumnNamedRowidKeepsItsValues() throws {
        try make("CREATE TABLE r(rowid TEXT, x); INSERT INTO r VALUES ('r1', 'a'), ('r2', 'b');")
        let report = try DatabaseRepair.salvage(path: path, key: key, to: output)
        #expect(report.isComplete)
        let expected: [[DatabaseValue]] = [[.text("r1"), .text("a")], [.text("r2"), .text("b")]]
        #expect(try rows("SELECT rowid, x FROM r ORDER BY x") == expected)
    }

    @Test(arguments: ["CREATE TABLE w(k TEXT PRIMARY KEY, v)\tWITHOUT\tROWID",
                      "CREATE TABLE w(k TEXT PRIMARY KEY, v) WITHOUT\nROWID",
                      "CREATE TABLE w(k TEXT PRIMARY KEY, v) without /* c */ rowid"])
    func aWithoutRowidTableIsNamedHoweverItIsSpelled(_ sql: String) throws {
        try make(sql + "; INSERT INTO w VALUES ('k', 1);")
        let report = try DatabaseRepair.salvage(path: path, key: key, to: output)
        #expect(!report.isComplete)
        #expect(report.problems.contains { $0.contains("WITHOUT ROWID") })
    }

    @Test func anIntegerPrimaryKeyDescendingIsAColumnNotTheRowid() throws {
        try make("CREATE TABLE d(id INTEGER PRIMARY KEY DESC, x); INSERT INTO d VALUES (10, 'a'), (20, 'b');")
        let report = try DatabaseRepair.salvage(path: path, key: key, to: output)
        #expect(report.isComplete, "\(report.problems)")
        let expected: [[DatabaseValue]] = [[.integer(10), .text("a")], [.integer(20), .text("b")]]
        #expect(try rows("SELECT id, x FROM d ORDER BY id") == expected)
    }

    @Test func aSchemaOverSeveralPagesIsReadFromItsLeavesWhenPageOneIsLost() throws {
        // Forty tables: sqlite_master no longer fits page 1, which becomes its root.
        var script = "CREATE TABLE five(a, b, c, d, e); INSERT INTO five VALUES (1, 2, 3, 4, 5);"
        for index in 0..<40 {
            script += "CREATE TABLE t\(index)(id INTEGER PRIMARY KEY, body TEXT, padding TEXT DEFAULT '\(String(repeating: "p", count: 40))');"
            script += "INSERT INTO t\(index)(body) VALUES ('row of t\(index)');"
        }
        try make(script)
        try damage(page: 1)
        let report = try DatabaseRepair.salvage(path: path, key: key, to: output)
        #expect(report.tables.first { $0.name == "five" }?.recoveredRows == 1, "schema rows were taken for a table's")
        #expect(report.tables.filter { $0.name.hasPrefix("t") }.count == 40)
        #expect(report.recoveredRows == 41)
        #expect(try rows("SELECT body FROM t7") == [[.text("row of t7")]])
    }

    @Test func anEmptyDatabaseIsRepairedWholeAndAllPagesLostIsDamageNotAWrongKey() throws {
        let queue = try DatabaseQueue(path: path, key: key)
        try queue.write { db in try db.execute(sql: "PRAGMA user_version = 1") }
        try queue.close()
        let report = try DatabaseRepair.salvage(path: path, key: key, to: output)
        #expect(report.isComplete && report.schemaRecovered)

        // A one-page file whose page is lost, beside a schema copy that opens with the key.
        let copy = try #require(try SchemaCopyKey.forDatabase(at: path, key: key, cipher: .libraryDefaults))
        try SchemaCopy(objects: [], rowCounts: [:], schemaVersion: 0, taken: Date()).write(forDatabase: path, key: copy)
        try damage(page: 1)
        #expect(throws: DatabaseFileError.self) { try DatabaseRepair.salvage(path: path, key: key, to: directory.path("none.db")) }
    }

    /// A record of no values is valid (SQLite reads each column's default, as after
    /// `ALTER TABLE ADD COLUMN`): the salvage keeps such a row under its rowid.
    @Test func aRecordOfNoValuesIsSalvagedUnderItsRowid() throws {
        let pageSize = SQLCipherLibrary.defaultPageSize
        let plain = directory.path("plain.db")
        let db = try Connection(path: plain, key: nil)
        try db.executeScript("""
            PRAGMA page_size = \(pageSize); PRAGMA journal_mode = DELETE;
            CREATE TABLE t(a DEFAULT 7, b);
            INSERT INTO t(rowid, a, b) VALUES (1, 'one', 'two'), (100, NULL, NULL);
            """)
        try db.close()
        var image = try [UInt8](Data(contentsOf: URL(fileURLWithPath: plain)))
        // Row 100's cell: payload of 3 bytes, rowid 100, record header [3, NULL, NULL]. The
        // same five bytes as a record of no values under rowid 20000 (a three-byte varint).
        let cell: [UInt8] = [0x03, 0x64, 0x03, 0x00, 0x00]
        let start = try #require((pageSize..<(image.count - cell.count)).first { Array(image[$0..<($0 + cell.count)]) == cell })
        image.replaceSubrange(start..<(start + cell.count), with: [0x01, 0x81, 0x9C, 0x20, 0x01])

        // The salvage's transaction is rolled back: an observer sees what it inserted.
        let check = try Connection(location: .inMemory, key: nil)
        let inserts = InsertedRowIDs()
        check.add(transactionObserver: inserts, extent: .databaseLifetime)
        let decoded = try DatabaseRepair.salvage(image: image, log: nil, pageSize: pageSize, into: check)
        #expect(decoded.rows == 2 && decoded.problems == 0, "rows \(decoded.rows), problems \(decoded.problems)")
        #expect(inserts.rowIDs == [1, 20000])
    }
}

/// The rowids inserted into table `t`, committed or not.
private final class InsertedRowIDs: TransactionObserver {
    var rowIDs: [Int64] = []
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        if case .insert(let table) = eventKind { return table == "t" }
        return false
    }
    func databaseDidChange(with event: DatabaseEvent) { rowIDs.append(event.rowID) }
    func databaseDidCommit(_ db: Database) {}
    func databaseDidRollback(_ db: Database) {}
}
