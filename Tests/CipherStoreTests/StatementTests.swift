import CipherStore
import Foundation
import TestSupport
import Testing

@Suite struct StatementTests {
    let db: Connection

    init() throws {
        db = try Connection(location: .inMemory, key: .passphrase("k"))
        try db.execute(sql: "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price REAL, data BLOB, flag INTEGER, at TEXT)")
    }

    @Test func positionalArgumentsBindEveryType() throws {
        let date = Date(timeIntervalSince1970: 1_416_000_000.123)
        try db.execute(sql: "INSERT INTO item(name, price, data, flag, at) VALUES (?, ?, ?, ?, ?)",
                       arguments: ["名字 \"quoted\" 'single'", 9.5, Data([0, 1, 2, 255]), true, date])
        let row = try #require(try db.fetchOne(sql: "SELECT * FROM item"))
        #expect(try row.value(Int64.self, named: "id") == db.lastInsertedRowID)
        #expect(try row.value(String.self, named: "NAME") == "名字 \"quoted\" 'single'")
        #expect(try row.value(Double.self, named: "price") == 9.5)
        #expect(try row.value(Data.self, named: "data") == Data([0, 1, 2, 255]))
        #expect(try row.value(Bool.self, named: "flag") == true)
        #expect(try row.value(Date.self, named: "at") == date)
        #expect(try row.value(String.self, named: "at") == "2014-11-14 21:20:00.123")
    }

    @Test func valuesBoundDirectlyBindAsArgumentsDo() throws {
        let date = Date(timeIntervalSince1970: 1_416_000_000.123)
        let sql = "INSERT INTO item(name, price, data, flag, at) VALUES (?, ?, ?, ?, ?)"
        let insert = try db.makeStatement(sql: sql)
        let note: String? = nil
        try insert.execute(values: "名字 \"quoted\" 'single'", 9.5, Data([0, 1, 2, 255]), true, date)
        try insert.execute(values: note, 2, Data(), false, Optional<Date>.none)
        try db.execute(sql: sql, arguments: ["名字 \"quoted\" 'single'", 9.5, Data([0, 1, 2, 255]), true, date])
        try db.execute(sql: sql, arguments: [note, 2, Data(), false, nil])
        let rows = try db.fetchAll(sql: "SELECT name, price, data, flag, at, typeof(price) FROM item ORDER BY id")
        #expect(rows.count == 4)
        #expect(rows[0].values == rows[2].values)
        #expect(rows[1].values == rows[3].values)
        #expect(rows[0].values == [.text("名字 \"quoted\" 'single'"), .real(9.5), .blob(Data([0, 1, 2, 255])), .integer(1), .text("2014-11-14 21:20:00.123"), .text("real")])
        #expect(rows[1].values == [.null, .real(2), .blob(Data()), .integer(0), .null, .text("real")])

        // The wrong number of values: refused before anything is bound or run, and the
        // statement still runs with the right number afterwards.
        for attempt in [{ try insert.execute(values: "one") }, { try insert.execute(values: "a", 1, Data(), true, date, "six") }, { try insert.execute(values: 1, 2) }] {
            let error = try #require(throws: CipherStoreError.self) { try attempt() }
            #expect(error.description.contains("the statement has 5 parameter(s)"))
        }
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM item") == 4)
        try insert.execute(values: "again", 1, Data([1]), true, date)
        #expect(try db.fetchScalar(String.self, sql: "SELECT name FROM item ORDER BY id DESC LIMIT 1") == "again")

        // Refused in the middle of a run, a statement is still reset: it lets go of its read,
        // and steps from its first row again.
        let select = try db.makeStatement(sql: "SELECT name FROM item WHERE id = ?")
        try select.bind([1])
        #expect(try select.step())
        #expect(throws: CipherStoreError.self) { try select.execute(values: 1, 2) }
        #expect(try select.step())
        #expect(select.string(at: 0) == "名字 \"quoted\" 'single'")
        select.reset()
    }

    @Test func namedArgumentsBindWithAnyPrefix() throws {
        try db.execute(sql: "INSERT INTO item(name, price) VALUES (:name, @price)", arguments: ["name": "a", "price": 1.0])
        try db.execute(sql: "INSERT INTO item(name, price) VALUES ($name, :price)", arguments: [":price": 2.0, "name": "b"])
        let names = try db.fetchAll(sql: "SELECT name FROM item ORDER BY price").map { try $0.value(String.self, at: 0) }
        #expect(names == ["a", "b"])
    }

    @Test func argumentsThatDoNotFitAreRefusedAndNothingRuns() throws {
        let insert = "INSERT INTO item(name, price) VALUES (:name, :price)"
        func reason(_ arguments: StatementArguments, _ sql: String = insert) -> String? {
            do {
                try db.execute(sql: sql, arguments: arguments)
                return nil
            } catch CipherStoreError.invalidArguments(let reason, _) {
                return reason
            } catch {
                return "\(error)"
            }
        }
        #expect(reason(["name": "a"])?.contains("no value for parameter(s) price") == true)
        #expect(reason(["name": "a", "price": 1, "city": "x"])?.contains("no parameter named 'city'") == true)
        #expect(reason(["name": "a", ":name": "b"])?.contains("'name' was given more than one value") == true)
        // Named parameters have positions too: values in order bind them.
        #expect(reason(["a", 1.0]) == nil)
        #expect(reason(["a"], "INSERT INTO item(name) VALUES (?)") == nil)
        #expect(reason(["a", "b"], "INSERT INTO item(name) VALUES (?)")?.contains("1 parameter(s) but 2 value(s)") == true)
        #expect(reason(.named(["name": .text("c"), "price": .real(3)])) == nil)
        #expect(reason(StatementArguments(["name": "d", "price": nil])) == nil)
        // :p and @p are two parameters for SQLite: each is named with its prefix.
        let prefixes = "INSERT INTO item(name, price) VALUES (:p, @p)"
        #expect(reason([":p": "e", "@p": 6], prefixes) == nil)
        #expect(reason(["p": "f"], prefixes)?.contains("no parameter named 'p'") == true)
        #expect(reason([":p": "f"], prefixes)?.contains("no value for parameter(s) @p") == true)
        // A parameter named twice in the SQL takes one value.
        #expect(reason(["p": 5], "INSERT INTO item(name, price) VALUES (:p, :p)") == nil)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM item") == 6)

        // More parameters than a word has bits.
        let many = (1...70).map { "p\($0)" }
        try db.execute(sql: "CREATE TABLE wide(\(many.joined(separator: ", ")))")
        let sql = "INSERT INTO wide VALUES (\(many.map { ":" + $0 }.joined(separator: ", ")))"
        #expect(reason(StatementArguments(Dictionary(uniqueKeysWithValues: many.map { ($0, 1 as (any DatabaseValueConvertible)?) })), sql) == nil)
        #expect(reason(StatementArguments(Dictionary(uniqueKeysWithValues: many.dropLast().map { ($0, 1 as (any DatabaseValueConvertible)?) })), sql)?
            .contains("no value for parameter(s) p70") == true)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM wide") == 1)
    }

    @Test func nilBindsNull() throws {
        let missing: String? = nil
        try db.execute(sql: "INSERT INTO item(name) VALUES (?)", arguments: [missing])
        let row = try #require(try db.fetchOne(sql: "SELECT name FROM item"))
        #expect(row[0] == .null)
        #expect(try row.value(String?.self, at: 0) == nil)
        #expect(throws: CipherStoreError.self) { try row.value(String.self, at: 0) }
    }

    @Test func wrongArgumentCountIsAnError() throws {
        #expect(throws: CipherStoreError.self) {
            try db.execute(sql: "INSERT INTO item(name, price) VALUES (?, ?)", arguments: ["only one"])
        }
        #expect(throws: CipherStoreError.self) {
            try db.execute(sql: "INSERT INTO item(name) VALUES (?)", arguments: ["one", "two"])
        }
        #expect(throws: CipherStoreError.self) {
            try db.execute(sql: "INSERT INTO item(name) VALUES (?)")
        }
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM item") == 0)
    }

    @Test func unknownOrMissingParameterNameIsAnError() throws {
        #expect(throws: CipherStoreError.self) {
            try db.execute(sql: "INSERT INTO item(name) VALUES (:name)", arguments: ["nmae": "typo"])
        }
        #expect(throws: CipherStoreError.self) {
            try db.execute(sql: "INSERT INTO item(name, price) VALUES (:name, :price)", arguments: ["name": "x"])
        }
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM item") == 0)
    }

    @Test func sqlErrorsCarryCodeMessageAndSQLButNoArguments() throws {
        try db.execute(sql: "CREATE UNIQUE INDEX item_name ON item(name)")
        try db.execute(sql: "INSERT INTO item(name) VALUES (?)", arguments: ["secret-value-123"])
        do {
            try db.execute(sql: "INSERT INTO item(name) VALUES (?)", arguments: ["secret-value-123"])
            Issue.record("duplicate accepted")
        } catch ResultCode.SQLITE_CONSTRAINT {
            // matched through the primary code
        }
        do {
            try db.execute(sql: "INSERT INTO item(name) VALUES (?)", arguments: ["secret-value-123"])
        } catch let error as DatabaseError {
            #expect(error.resultCode == ResultCode(rawValue: 2067)) // SQLITE_CONSTRAINT_UNIQUE
            #expect(error.sql == "INSERT INTO item(name) VALUES (?)")
            #expect(error.message?.contains("UNIQUE") == true)
            #expect(!error.description.contains("secret-value-123"))
        }
        #expect(throws: DatabaseError.self) { try db.execute(sql: "SELEKT 1") }
    }

    @Test func executeRefusesSeveralStatementsAndScriptsRunThem() throws {
        #expect(throws: CipherStoreError.self) {
            try db.execute(sql: "INSERT INTO item(name) VALUES ('a'); INSERT INTO item(name) VALUES ('b')")
        }
        try db.executeScript("""
            INSERT INTO item(name) VALUES ('a');
            -- a comment
            INSERT INTO item(name) VALUES ('b;c');
            """)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM item") == 2)
    }

    @Test func statementCacheReusesPreparedStatements() throws {
        let first = try db.cachedStatement(sql: "SELECT count(*) FROM item")
        let second = try db.cachedStatement(sql: "SELECT count(*) FROM item")
        #expect(first === second)
        let other = try db.makeStatement(sql: "SELECT count(*) FROM item")
        #expect(other !== first)
    }

    @Test func nestedCursorsOverTheSameSQLDoNotInterfere() throws {
        for index in 1...3 { try db.execute(sql: "INSERT INTO item(id) VALUES (?)", arguments: [index]) }
        let outer = try db.fetchCursor(sql: "SELECT id FROM item ORDER BY id")
        var pairs: [String] = []
        while let row = try outer.next() {
            let inner = try db.fetchAll(sql: "SELECT id FROM item ORDER BY id")
            pairs.append("\(row[0])x\(inner.count)")
        }
        #expect(pairs == ["1x3", "2x3", "3x3"])
    }

    @Test func rowsReadByIndexAndCaseInsensitiveName() throws {
        try db.execute(sql: "INSERT INTO item(id, name) VALUES (7, 'seven')")
        let row = try #require(try db.fetchOne(sql: "SELECT id AS Ident, name FROM item"))
        #expect(row.columnNames == ["Ident", "name"])
        #expect(row["ident"] == .integer(7))
        #expect(row["missing"] == nil)
        #expect(try row.value(Int.self, at: 0) == 7)
        #expect(throws: CipherStoreError.self) { try row.value(Int.self, named: "name") }
        #expect(throws: CipherStoreError.self) { try row.value(Int.self, at: 5) }
    }

    @Test func namesFoundTheSameWhateverTheirStorage() throws {
        // Short literals, names built at run time (stored elsewhere), long names, non-ASCII
        // and repeated names: the two-word shortcut only ever speeds up a match.
        let long = "a_column_name_longer_than_fifteen_bytes"
        let row = try #require(try db.fetchOne(sql: """
            SELECT 1 AS i0, 2 AS "\(long)", 3 AS "café", 4 AS i0, 5 AS "Ünïcode"
            """))
        let built = String(["i", "0"].joined())
        let longBuilt = String(long.reversed().reversed())
        #expect(try row.value(Int.self, named: "i0") == 1)
        #expect(try row.value(Int.self, named: built) == 1)
        #expect(try row.value(Int.self, named: "I0") == 1)
        #expect(try row.value(Int.self, named: longBuilt) == 2)
        #expect(try row.value(Int.self, named: long.uppercased()) == 2)
        #expect(try row.value(Int.self, named: "café") == 3)
        #expect(try row.value(Int.self, named: "cafe\u{301}") == 3)
        #expect(try row.value(Int.self, named: "ünïcode") == 5)
        #expect(row["i1"] == nil)

        // Repeated names: the leftmost column, however the name asked for is stored.
        let twice = try #require(try db.fetchOne(sql: "SELECT 1 AS \"\(long)\", 2 AS \"\(long)\", 3 AS Id, 4 AS id"))
        #expect(try twice.value(Int.self, named: long) == 1)
        #expect(try twice.value(Int.self, named: twice.columnNames[1]) == 1)
        #expect(try twice.value(Int.self, named: longBuilt) == 1)
        // An exact spelling wins over a case-insensitive match further left.
        #expect(try twice.value(Int.self, named: "id") == 4)
        #expect(try twice.value(Int.self, named: "ID") == 3)

        try db.execute(sql: "INSERT INTO item(id, name) VALUES (:id, :name)", arguments: [built.replacingOccurrences(of: "i0", with: "id"): 8, "name": "eight"])
        try db.execute(sql: "INSERT INTO item(id, name) VALUES (:id, :\(long))", arguments: ["id": 9, longBuilt: "nine"])
        #expect(try db.fetchAll(sql: "SELECT name FROM item WHERE id IN (8, 9) ORDER BY id").map { try $0.value(String.self, at: 0) } == ["eight", "nine"])
    }

    @Test func everyColumnAndParameterOfAWideStatementIsFoundByName() throws {
        // 300 names, short and long, fill the table of name bits enough for slots to collide:
        // each name still finds its own column, in any order, and a name not there finds none.
        let names = (0..<300).map { $0 % 3 == 0 ? "c\($0)" : "column_with_a_long_name_\($0)" }
        let row = try #require(try db.fetchOne(sql: "SELECT " + names.enumerated().map { "\($0.offset) AS \($0.element)" }.joined(separator: ", ")))
        for (offset, name) in names.enumerated().reversed() {
            #expect(try row.value(Int.self, named: name) == offset)
            #expect(try row.value(Int.self, named: name.uppercased()) == offset)
        }
        for missing in ["c1", "c300", "column_with_a_long_name_0", ""] { #expect(row[missing] == nil) }

        try db.execute(sql: "CREATE TABLE wide(" + names.joined(separator: ", ") + ")")
        let insert = try db.makeStatement(sql: "INSERT INTO wide VALUES (" + names.map { ":" + $0 }.joined(separator: ", ") + ")")
        var arguments: [String: (any DatabaseValueConvertible)?] = [:]
        for (offset, name) in names.enumerated() { arguments[offset % 2 == 0 ? name : "@" + name] = offset * 7 }
        try insert.execute(arguments: StatementArguments(arguments))
        let stored = try #require(try db.fetchOne(sql: "SELECT * FROM wide"))
        #expect(try names.indices.allSatisfy { try stored.value(Int.self, at: $0) == $0 * 7 })
    }

    @Test func aCachedSelectStarSeesColumnsAddedSinceItWasPrepared() throws {
        try db.execute(sql: "INSERT INTO item(name) VALUES ('a')")
        let sql = "SELECT * FROM item"
        #expect(try db.fetchOne(sql: sql)?.columnNames == ["id", "name", "price", "data", "flag", "at"])
        try db.execute(sql: "ALTER TABLE item ADD COLUMN extra TEXT DEFAULT 'new'")
        let row = try #require(try db.fetchOne(sql: sql))
        #expect(row.columnNames == ["id", "name", "price", "data", "flag", "at", "extra"])
        #expect(try row.value(String.self, named: "extra") == "new")
        var viewed: [String] = []
        try db.forEachRow(sql: sql) { viewed.append(try $0.value(String.self, named: "extra")) }
        #expect(viewed == ["new"])
        // Through a script and a table made anew, the same.
        try db.executeScript("DROP TABLE item; CREATE TABLE item(only INTEGER)")
        try db.execute(sql: "INSERT INTO item VALUES (7)")
        #expect(try db.fetchOne(sql: sql)?.columnNames == ["only"])
        #expect(try db.cachedStatement(sql: sql).columnCount == 1)
    }

    @Test func quotingIdentifiersAndTableExists() throws {
        let name = #"odd "table" name"#
        try db.execute(sql: "CREATE TABLE \(Connection.quoteIdentifier(name)) (x)")
        #expect(Connection.quoteIdentifier(name) == #""odd ""table"" name""#)
        #expect(try db.tableExists(name))
        #expect(try db.tableExists("ITEM"))
        #expect(try !db.tableExists("nope"))
        #expect(try db.columnNames(ofTable: "item") == ["id", "name", "price", "data", "flag", "at"])
    }

    /// A quote followed by a combining mark is one character to Swift, but SQLite reads bytes:
    /// it must be doubled all the same, or the name ends early and the rest is read as SQL.
    @Test func quotingDoublesAQuoteFollowedByACombiningMark() throws {
        let name = "t\"\u{301}\"); DROP TABLE item; --"
        #expect(Array(Connection.quoteIdentifier(name).utf8) == Array("\"t\"\"\u{301}\"\"); DROP TABLE item; --\"".utf8))
        try db.execute(sql: "CREATE TABLE \(Connection.quoteIdentifier(name)) (x)")
        let stored = try db.fetchScalar(String.self, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'item'")
        #expect(stored.map { Array($0.utf8) } == Array(name.utf8))
        #expect(try db.tableExists("item"))
    }

    @Test func datesReadFromSeveralFormats() throws {
        let formats: [(DatabaseValue, TimeInterval)] = [
            (.text("2014-11-14"), 1_415_923_200),
            (.text("2014-11-14 09:30"), 1_415_957_400),
            (.text("2014-11-14T09:30:05Z"), 1_415_957_405),
            (.integer(1_415_957_405), 1_415_957_405),
        ]
        for (value, expected) in formats {
            #expect(Date.fromDatabaseValue(value)?.timeIntervalSince1970 == expected)
        }
        #expect(Date.fromDatabaseValue(.text("not a date")) == nil)
        #expect(Date.fromDatabaseValue(.text("2014-13-01")) == nil)
    }

    @Test func traceReportsSQLWithoutBoundValues() throws {
        var traced: [String] = []
        try db.trace { traced.append($0) }
        try db.execute(sql: "INSERT INTO item(name) VALUES (?)", arguments: ["bound-secret"])
        try db.trace(nil)
        try db.execute(sql: "SELECT 1")
        #expect(traced == ["INSERT INTO item(name) VALUES (?)"])
    }
}

@Suite struct RowCursorValueSemanticsTests {
    @Test func rowsKeptFromACursorDoNotChange() throws {
        let db = try Connection(location: .inMemory, key: nil)
        try db.execute(sql: "CREATE TABLE t(x)")
        for value in ["a", "b", "c"] { try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [value]) }
        let cursor = try db.fetchCursor(sql: "SELECT x FROM t ORDER BY x")
        var kept: [Row] = []
        while let row = try cursor.next() { kept.append(row) }
        #expect(try kept.map { try $0.value(String.self, at: 0) } == ["a", "b", "c"])
    }
}
