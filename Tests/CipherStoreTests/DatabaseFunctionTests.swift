import CipherStore
import Foundation
import TestSupport
import Testing

/// SQL functions written in Swift on an encrypted file: in queries, in an index on an
/// expression, in a trigger, as aggregates; their errors; and the release of what they capture.
@Suite struct DatabaseFunctionTests {
    let directory: TemporaryDirectory
    let path: String
    let key: DatabaseKey

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.path("functions.db")
        key = try DatabaseKey.rawKey(hex: String(repeating: "3c", count: 32))
    }

    /// Lowercased words joined by dashes; NULL for anything but text.
    static let slug = DatabaseFunction("slug", argumentCount: 1, pure: true) { values in
        guard case .text(let text)? = values.first else { return nil }
        return text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).joined(separator: "-")
    }

    @Test func aFunctionAnswersInAQueryWithEveryStorageClass() throws {
        let db = try Connection(path: path, key: key)
        defer { try? db.close() }
        try db.add(function: Self.slug)
        try db.add(function: DatabaseFunction("echo", argumentCount: 1) { $0[0] })
        #expect(try db.fetchScalar(String.self, sql: "SELECT slug(?)", arguments: ["Hello, Encrypted World!"]) == "hello-encrypted-world")
        #expect(try db.fetchOne(sql: "SELECT slug(42)")?[0] == .null)
        // Each value crosses with its storage class, text with a NUL and an empty blob included.
        let values: [DatabaseValue] = [.null, .integer(-7), .real(2.5), .text("a\u{0}b 冰"), .blob(Data([0, 255])), .blob(Data())]
        for value in values {
            let echoed = try db.fetchOne(sql: "SELECT echo(?), typeof(echo(?))", arguments: StatementArguments([value, value]))
            #expect(echoed?[0] == value)
            #expect(echoed?[1] == .text(["null", "integer", "real", "text", "blob", "blob"][values.firstIndex(of: value)!]))
        }
    }

    @Test func grdbsStringFunctionsUnderGRDBsNames() throws {
        let db = try Connection(path: path, key: key)
        defer { try? db.close() }
        let functions: [(DatabaseFunction, String, (String) -> String)] = [
            (.capitalize, "swiftCapitalizedString", { $0.capitalized }),
            (.lowercase, "swiftLowercaseString", { $0.lowercased() }),
            (.uppercase, "swiftUppercaseString", { $0.uppercased() }),
            (.localizedCapitalize, "swiftLocalizedCapitalizedString", { $0.localizedCapitalized }),
            (.localizedLowercase, "swiftLocalizedLowercaseString", { $0.localizedLowercase }),
            (.localizedUppercase, "swiftLocalizedUppercaseString", { $0.localizedUppercase }),
        ]
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.execute(sql: "INSERT INTO t VALUES ('élan vital straße'), (42), (NULL), (CAST('élan vital straße' AS BLOB)), (x'ff00')")
        // Every connection has them as it opens, as in GRDB.
        for (function, name, transform) in functions {
            #expect(function.name == name)
            let rows = try Row.fetchAll(db, sql: "SELECT \(name)(x) FROM t ORDER BY rowid")
            // A blob is read as UTF-8 text, as GRDB does; one that is not UTF-8 is NULL.
            let expected = DatabaseValue.text(transform("élan vital straße"))
            #expect(rows.map { $0.values[0] } == [expected, .null, .null, expected, .null], "\(name)")
        }
        // In the query interface, called or as GRDB's properties, each against its SQL.
        struct T: TableRecord { static let databaseTableName = "t" }
        #expect(try T.select(DatabaseFunction.uppercase(Column("x")), as: String.self).fetchOne(db) == "ÉLAN VITAL STRASSE")
        let properties: [(SQLExpression, String)] = [
            (Column("x").capitalized, "swiftCapitalizedString"), (Column("x").lowercased, "swiftLowercaseString"),
            (Column("x").uppercased, "swiftUppercaseString"), (Column("x").localizedCapitalized, "swiftLocalizedCapitalizedString"),
            (Column("x").localizedLowercased, "swiftLocalizedLowercaseString"), (Column("x").localizedUppercased, "swiftLocalizedUppercaseString"),
        ]
        for (expression, name) in properties {
            let request = T.select(expression).filter(expression != "x").order(Column("rowid"))
            let written = "SELECT \(name)(\"x\") FROM \"t\" WHERE (\(name)(\"x\") <> ?) ORDER BY \"rowid\""
            #expect(try request.makeSQL(db).sql == written)
            let expected = try Row.fetchAll(db, sql: "SELECT \(name)(x) FROM t WHERE \(name)(x) <> 'x' ORDER BY rowid")
            #expect(try Row.fetchAll(db, request).map(\.values) == expected.map(\.values), "\(name)")
            #expect(expected.count == 2)
        }
        #expect(try T.select(Column("x").capitalized, as: String.self).fetchOne(db) == "Élan Vital Straße")
        #expect(try T.select(Column("x").lowercased, as: String.self).filter(Column("x") == "ÉLAN").fetchOne(db) == nil)

        // A function added later under the same name and argument count replaces it.
        try db.add(function: DatabaseFunction("swiftUppercaseString", argumentCount: 1, pure: true) { _ in "replaced" })
        #expect(try T.select(Column("x").uppercased, as: String.self).fetchOne(db) == "replaced")
    }

    @Test func everyConnectionOfAQueueOrPoolHasGRDBsFunctions() async throws {
        let pool = try DatabasePool(path: path, key: key)
        try await pool.write { db in try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES ('ärger')") }
        struct T: TableRecord { static let databaseTableName = "t" }
        #expect(try await pool.read { db in try T.select(Column("x").uppercased, as: String.self).fetchOne(db) } == "ÄRGER")
        try pool.close()
        let queue = try DatabaseQueue(path: path, key: key)
        #expect(try await queue.read { db in try T.select(Column("x").localizedCapitalized, as: String.self).fetchOne(db) } == "Ärger")
        try queue.close()
    }

    @Test func aVariadicFunctionTakesAnyNumberOfArguments() throws {
        let db = try Connection(path: path, key: key)
        defer { try? db.close() }
        try db.add(function: DatabaseFunction("count_args") { $0.count })
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count_args()") == 0)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count_args(1, 'a', NULL, x'00')") == 4)
        // A fixed count is checked by SQLite when the statement is prepared.
        try db.add(function: DatabaseFunction("two", argumentCount: 2) { _ in 2 })
        #expect(throws: DatabaseError.self) { try db.fetchScalar(Int.self, sql: "SELECT two(1)") }
    }

    @Test func aPureFunctionIndexesAnExpressionThatTheFileKeeps() throws {
        let db = try Connection(path: path, key: key)
        try db.add(function: Self.slug)
        try db.executeScript("""
            CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT);
            CREATE UNIQUE INDEX note_slug ON note(slug(title));
            INSERT INTO note(title) VALUES ('Hello World'), ('Second Note');
            """)
        // The index holds the function's results: a title with the same slug is a duplicate.
        let duplicate = try #require(throws: DatabaseError.self) {
            try db.execute(sql: "INSERT INTO note(title) VALUES ('hello -- world')")
        }
        #expect(duplicate.resultCode.primaryResultCode == .SQLITE_CONSTRAINT)
        let plan = try db.fetchAll(sql: "EXPLAIN QUERY PLAN SELECT id FROM note WHERE slug(title) = 'second-note'")
            .map { try $0.value(String.self, at: 3) }
        #expect(plan.contains { $0.contains("note_slug") }, "\(plan)")
        #expect(try db.fetchScalar(Int.self, sql: "SELECT id FROM note WHERE slug(title) = 'second-note'") == 2)
        try db.close()

        // Reopened, the index is intact once the function is back.
        let reopened = try Connection(path: path, key: key)
        defer { try? reopened.close() }
        try reopened.add(function: Self.slug)
        #expect(try reopened.fetchScalar(String.self, sql: "PRAGMA integrity_check") == "ok")
        #expect(try reopened.fetchScalar(Int.self, sql: "SELECT id FROM note WHERE slug(title) = 'hello-world'") == 1)
    }

    @Test func aFunctionThatIsNotPureIsRefusedInAnIndex() throws {
        let db = try Connection(path: path, key: key)
        defer { try? db.close() }
        try db.add(function: DatabaseFunction("impure_slug", argumentCount: 1) { $0.first?.description })
        try db.execute(sql: "CREATE TABLE note(title TEXT)")
        let error = try #require(throws: DatabaseError.self) {
            try db.execute(sql: "CREATE INDEX note_impure ON note(impure_slug(title))")
        }
        #expect(error.message?.contains("non-deterministic") == true, "\(error)")
    }

    @Test func aTriggerCallsTheFunctionForEachRowWritten() throws {
        let db = try Connection(path: path, key: key)
        defer { try? db.close() }
        try db.add(function: Self.slug)
        try db.executeScript("""
            CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT, slug TEXT);
            CREATE TRIGGER note_slug AFTER INSERT ON note BEGIN
                UPDATE note SET slug = slug(NEW.title) WHERE id = NEW.id;
            END;
            INSERT INTO note(title) VALUES ('First Post'), ('C''est la vie');
            """)
        #expect(try String.fetchAll(db, sql: "SELECT slug FROM note ORDER BY id") == ["first-post", "c-est-la-vie"])
    }

    /// The product of the integers of a group; NULL for a group without rows.
    struct Product: DatabaseAggregate {
        var product: Int64?
        mutating func step(_ values: [DatabaseValue]) throws {
            guard case .integer(let factor)? = values.first else {
                throw CipherStoreError.invalidConfiguration(reason: "product takes integers")
            }
            product = (product ?? 1) * factor
        }
        func finalize() -> (any DatabaseValueConvertible)? { product }
    }

    @Test func anAggregateComputesOneResultPerGroup() throws {
        let db = try Connection(path: path, key: key)
        defer { try? db.close() }
        try db.add(function: DatabaseFunction("product", argumentCount: 1, aggregate: Product.self))
        try db.executeScript("""
            CREATE TABLE factor(team TEXT, n INTEGER);
            INSERT INTO factor VALUES ('a', 2), ('a', 3), ('a', 7), ('b', 5), ('b', -1);
            """)
        let rows = try db.fetchAll(sql: "SELECT team, product(n) FROM factor GROUP BY team ORDER BY team")
        #expect(rows.map { $0[1] } == [.integer(42), .integer(-5)])
        // No row: a fresh aggregate is finalized.
        #expect(try db.fetchOne(sql: "SELECT product(n) FROM factor WHERE 0")?[0] == .null)
        // A step that throws fails the statement with the function's name; the connection goes on.
        try db.execute(sql: "INSERT INTO factor VALUES ('c', 'x')")
        let error = try #require(throws: DatabaseError.self) { try db.fetchAll(sql: "SELECT product(n) FROM factor") }
        #expect(error.message == "the SQL function product failed: Invalid configuration: product takes integers", "\(error)")
        #expect(try db.fetchScalar(Int.self, sql: "SELECT product(n) FROM factor WHERE team = 'a'") == 42)
    }

    @Test func aThrownErrorFailsTheStatementWithAMessageThatNamesTheFunction() throws {
        struct NotAnEmail: Error, CustomStringConvertible {
            var description: String { "the address has no @" }
        }
        let db = try Connection(path: path, key: key)
        defer { try? db.close() }
        try db.add(function: DatabaseFunction("domain", argumentCount: 1) { values in
            guard case .text(let address)? = values.first, let at = address.firstIndex(of: "@") else { throw NotAnEmail() }
            return String(address[address.index(after: at)...])
        })
        #expect(try db.fetchScalar(String.self, sql: "SELECT domain('ann@example.org')") == "example.org")
        let error = try #require(throws: DatabaseError.self) { try db.fetchScalar(String.self, sql: "SELECT domain('nobody')") }
        #expect(error.resultCode == .SQLITE_ERROR)
        #expect(error.message == "the SQL function domain failed: the address has no @")
        #expect(error.sql == "SELECT domain('nobody')")
        // A DatabaseError keeps its code.
        try db.add(function: DatabaseFunction("busy", argumentCount: 0) { _ in
            throw DatabaseError(resultCode: .SQLITE_CONSTRAINT, message: "refused by the app")
        })
        let constraint = try #require(throws: DatabaseError.self) { try db.execute(sql: "SELECT busy()") }
        #expect(constraint.resultCode.primaryResultCode == .SQLITE_CONSTRAINT)
        #expect(constraint.message == "the SQL function busy failed: refused by the app")
        // …but for a code that says the file is damaged: a function cannot damage it, and the
        // user must not be sent to restore a backup.
        for code in [ResultCode.SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_IOERR] {
            try db.add(function: DatabaseFunction("damaged", argumentCount: 0) { _ in
                throw DatabaseError(resultCode: code, message: "the app's own file is unreadable")
            })
            let error = try #require(throws: DatabaseError.self) { try db.execute(sql: "SELECT damaged()") }
            #expect(error.resultCode == .SQLITE_ERROR)
            #expect(error.message == "the SQL function damaged failed: the app's own file is unreadable")
        }
        #expect(try db.fetchScalar(String.self, sql: "PRAGMA integrity_check") == "ok")
    }

    /// SQLite refuses to change a function while a statement of the connection runs: the
    /// message says so, not that another process holds a lock.
    @Test func removingAFunctionWhileAStatementRunsSaysWhichStatementToFinish() throws {
        let db = try Connection(path: path, key: key)
        defer { try? db.close() }
        try db.add(function: Self.slug)
        let statement = try db.makeStatement(sql: "SELECT slug('A b') UNION ALL SELECT slug('C d')")
        #expect(try statement.step())
        let error = try #require(throws: DatabaseError.self) { try db.remove(function: Self.slug) }
        #expect(error.resultCode.primaryResultCode == .SQLITE_BUSY)
        #expect(error.description.contains("A statement of this connection is still running"), "\(error)")
        #expect(!error.description.contains("busyTimeout"))
        statement.reset()
        try db.remove(function: Self.slug)
        #expect(throws: DatabaseError.self) { try db.execute(sql: "SELECT slug('x')") }
    }

    @Test func aRemovedFunctionIsGoneAndItsCapturesAreReleased() throws {
        final class Counter: @unchecked Sendable { var calls = 0 }
        let db = try Connection(path: path, key: key)
        defer { try? db.close() }
        weak var released: Counter?
        do {
            let counter = Counter()
            released = counter
            let function = DatabaseFunction("counted", argumentCount: 0) { _ in
                counter.calls += 1
                return counter.calls
            }
            try db.add(function: function)
            #expect(try db.fetchScalar(Int.self, sql: "SELECT counted()") == 1)
            try db.remove(function: function)
        }
        #expect(released == nil)
        let error = try #require(throws: DatabaseError.self) { try db.execute(sql: "SELECT counted()") }
        #expect(error.message == "no such function: counted")
    }

    @Test func closingTheConnectionReleasesItsFunctions() throws {
        final class Token: Sendable {}
        weak var released: Token?
        let db = try Connection(path: path, key: key)
        do {
            let token = Token()
            released = token
            try db.add(function: DatabaseFunction("token", argumentCount: 0) { _ in withExtendedLifetime(token) { 1 } })
            try db.add(function: DatabaseFunction("product", argumentCount: 1, aggregate: Product.self))
            #expect(try db.fetchScalar(Int.self, sql: "SELECT token()") == 1)
        }
        #expect(released != nil)
        try db.close()
        #expect(released == nil)
    }

    @Test func aNameOrArgumentCountSQLiteRefusesIsSaidPlainly() throws {
        let db = try Connection(path: path, key: key)
        defer { try? db.close() }
        #expect(throws: CipherStoreError.self) { try db.add(function: DatabaseFunction("", argumentCount: 0) { _ in nil }) }
        #expect(throws: CipherStoreError.self) { try db.add(function: DatabaseFunction("many", argumentCount: 128) { _ in nil }) }
        #expect(throws: CipherStoreError.self) { try db.add(function: DatabaseFunction("negative", argumentCount: -2) { _ in nil }) }
        try db.close()
        #expect(throws: CipherStoreError.connectionClosed) { try db.add(function: Self.slug) }
    }

    @Test func theQueryInterfaceCallsAFunction() throws {
        struct Note: Codable, FetchableRecord, TableRecord {
            static let databaseTableName = "note"
            var id: Int64
            var title: String
        }
        let db = try Connection(path: path, key: key)
        defer { try? db.close() }
        try db.add(function: Self.slug)
        try db.executeScript("""
            CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT);
            INSERT INTO note(title) VALUES ('Hello World'), ('Other');
            """)
        let notes = try Note.filter(Self.slug(Column("title")) == "hello-world").fetchAll(db)
        #expect(notes.map(\.id) == [1])
    }

    @Test func aConversionRunsWithTheAppsFunctionsOrChangesNothing() throws {
        let db = try Connection(path: path, key: key)
        try db.add(function: Self.slug)
        try db.executeScript("""
            CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT);
            CREATE INDEX note_slug ON note(slug(title));
            INSERT INTO note(title) VALUES ('Hello World'), ('Second Note');
            """)
        try db.close()
        let before = fileBytes(path)
        let plain = directory.path("plain.db")
        #expect(throws: DatabaseFileError.missingFunction(path: path, function: "slug")) {
            try DatabaseFile.decrypt(path: path, key: key, to: .file(plain))
        }
        #expect(fileBytes(path) == before)
        #expect(!FileManager.default.fileExists(atPath: plain))

        var options = DatabaseFileOptions()
        options.prepareDatabase { db in try db.add(function: Self.slug) }
        try DatabaseFile.decrypt(path: path, key: key, to: .file(plain), options: options)
        let copy = try Connection(path: plain, key: nil)
        defer { try? copy.close() }
        try copy.add(function: Self.slug)
        #expect(try copy.fetchScalar(String.self, sql: "PRAGMA integrity_check") == "ok")
        #expect(try Int.fetchOne(copy, sql: "SELECT id FROM note INDEXED BY note_slug WHERE slug(title) = 'second-note'") == 2)
    }
}
