@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// `db.create(table:)` and its siblings in GRDB's spelling: the SQL each writes into the schema,
/// checked word for word, and what the schema then does (constraints, defaults, foreign keys),
/// on the linked SQLCipher.
@Suite struct SchemaDefinitionTests {
    let directory: TemporaryDirectory
    let db: Connection
    var sqliteHasAlterColumn: Bool { SQLCipherLibrary.sqliteVersion.compare("3.35", options: .numeric) != .orderedAscending }

    init() throws {
        directory = try TemporaryDirectory()
        db = try Connection(path: directory.path("schema.db"), key: .rawKey(hex: String(repeating: "3c", count: 32)))
        try db.execute(sql: "PRAGMA foreign_keys = ON")
    }

    func schemaSQL(_ name: String) throws -> String? {
        try db.fetchScalar(String.self, sql: "SELECT sql FROM sqlite_master WHERE name = ?", arguments: [name])
    }

    @Test func createTableWritesTheSQLOfItsDefinition() throws {
        try db.create(table: "author") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("name", .text).notNull().collate(.nocase)
            t.column("country", .text).defaults(to: "FR")
        }
        try db.create(table: "book") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("authorId", .integer).notNull().indexed().references("author", onDelete: .cascade)
            t.column("title", .text).notNull().unique(onConflict: .replace)
            t.column("price", .double).check { $0 >= 0 }.defaults(to: 0.5)
            t.column("cover", .blob).defaults(to: Data([0, 255]))
            t.column("note", .text).defaults(to: "it's")
            t.column("added", .datetime).defaults(sql: "CURRENT_TIMESTAMP")
            t.uniqueKey(["authorId", "title"])
            t.check(Column("price") < 1000)
        }
        #expect(try schemaSQL("author") == #"CREATE TABLE "author" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "name" TEXT NOT NULL COLLATE "NOCASE", "country" TEXT DEFAULT 'FR')"#)
        #expect(try schemaSQL("book") == #"""
            CREATE TABLE "book" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "authorId" INTEGER NOT NULL REFERENCES "author" ON DELETE CASCADE, "title" TEXT NOT NULL UNIQUE ON CONFLICT REPLACE, "price" DOUBLE CHECK ("price" >= 0) DEFAULT 0.5, "cover" BLOB DEFAULT X'00FF', "note" TEXT DEFAULT 'it''s', "added" DATETIME DEFAULT (CURRENT_TIMESTAMP), UNIQUE ("authorId", "title"), CHECK ("price" < 1000))
            """#)
        #expect(try schemaSQL("book_on_authorId") == #"CREATE INDEX "book_on_authorId" ON "book"("authorId")"#)

        // What the schema does.
        try db.execute(sql: "INSERT INTO author(name) VALUES ('Hugo')")
        try db.execute(sql: "INSERT INTO book(authorId, title) VALUES (1, 'Les Misérables')")
        let row = try #require(try db.fetchOne(sql: "SELECT price, cover, note, added IS NOT NULL FROM book"))
        #expect(row.values == [.real(0.5), .blob(Data([0, 255])), .text("it's"), .integer(1)])
        #expect(try db.fetchScalar(String.self, sql: "SELECT country FROM author") == "FR")
        #expect(throws: DatabaseError.self) { try db.execute(sql: "INSERT INTO book(authorId, title, price) VALUES (1, 'x', -1)") }
        #expect(throws: DatabaseError.self) { try db.execute(sql: "INSERT INTO book(authorId, title) VALUES (2, 'no such author')") }
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM author WHERE name = 'HUGO'") == 1, "NOCASE")
        try db.execute(sql: "DELETE FROM author")
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM book") == 0, "ON DELETE CASCADE")
    }

    @Test func primaryKeysOptionsAndForeignKeysAsGRDBWritesThem() throws {
        try db.create(table: "country", options: [.withoutRowID]) { t in
            t.primaryKey("code", .text)
            t.column("name", .text)
        }
        #expect(try schemaSQL("country") == #"CREATE TABLE "country" ("code" TEXT PRIMARY KEY NOT NULL, "name" TEXT) WITHOUT ROWID"#)
        try db.create(table: "citizenship", ifNotExists: true) { t in
            t.column("personId", .integer).notNull()
            t.column("countryCode", .text).notNull()
            t.primaryKey(["personId", "countryCode"])
            t.foreignKey(["countryCode"], references: "country", onDelete: .restrict, deferred: true)
        }
        #expect(try schemaSQL("citizenship") == #"CREATE TABLE "citizenship" ("personId" INTEGER NOT NULL, "countryCode" TEXT NOT NULL, PRIMARY KEY ("personId", "countryCode"), FOREIGN KEY ("countryCode") REFERENCES "country" ON DELETE RESTRICT DEFERRABLE INITIALLY DEFERRED)"#)
        // SQLite keeps the statement without IF NOT EXISTS; a second time is no error.
        try db.create(table: "citizenship", options: .ifNotExists) { t in t.column("other") }
        try db.create(index: "citizenship_on_country", on: "citizenship", columns: ["countryCode"], options: [.unique, .ifNotExists],
                      condition: Column("personId") > 0)
        #expect(try schemaSQL("citizenship_on_country") == #"CREATE UNIQUE INDEX "citizenship_on_country" ON "citizenship"("countryCode") WHERE "personId" > 0"#)
        try db.create(index: "country_on_name", on: "country", columns: ["name"], unique: true)
        #expect(try schemaSQL("country_on_name") == #"CREATE UNIQUE INDEX "country_on_name" ON "country"("name")"#)
        try db.drop(index: "country_on_name")
        try db.rename(table: "country", to: "nation")
        #expect(try schemaSQL("nation") != nil && schemaSQL("country") == nil)
        try db.drop(table: "citizenship")
        #expect(try schemaSQL("citizenship") == nil)
    }

    @Test func aTableAndItsIndexesAreCreatedTogetherOrNotAtAll() throws {
        try db.execute(sql: "CREATE TABLE other(x)")
        try db.execute(sql: "CREATE INDEX player_on_name ON other(x)")   // the name the index would take
        #expect(throws: DatabaseError.self) {
            try db.create(table: "player") { t in
                t.column("name", .text).indexed()
            }
        }
        #expect(try schemaSQL("player") == nil, "the table was left without its index")
    }

    @Test func alterTableAddsColumnsAndRenamesOrDropsWhereTheLinkedSQLiteCan() throws {
        try db.create(table: "player") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("name", .text)
        }
        try db.execute(sql: "INSERT INTO player(name) VALUES ('Arthur')")
        try db.alter(table: "player") { t in
            t.add(column: "score", .integer).notNull().defaults(to: 0)
        }
        #expect(try db.fetchScalar(Int.self, sql: "SELECT score FROM player") == 0)
        // indexed() on an added column creates its index, as in create(table:).
        try db.alter(table: "player") { t in
            t.add(column: "rank", .integer).indexed()
        }
        #expect(try schemaSQL("player_on_rank") == #"CREATE INDEX "player_on_rank" ON "player"("rank")"#)
        let before = try schemaSQL("player")
        let change = {
            try db.alter(table: "player") { t in
                t.add(column: "team", .text)
                t.rename(column: "name", to: "fullName")
                t.drop(column: "score")
            }
        }
        if sqliteHasAlterColumn {
            try change()
            #expect(try db.fetchAll(sql: "SELECT * FROM player").first?.columnNames == ["id", "fullName", "rank", "team"])
        } else {
            #expect {
                try change()
            } throws: { error in
                guard let message = (error as? DatabaseError)?.message else { return false }
                return message.contains("needs SQLite 3.25") && message.contains("RENAME COLUMN") && message.contains("rebuildTable")
            }
            #expect(try schemaSQL("player") == before, "nothing changed, not even the column that could be added")
        }
    }

    /// A NUL inside a text written into the schema (a default, a check) is kept whole: the
    /// statement's text would end at it.
    @Test func aNULInsideATextLiteralIsKeptWhole() throws {
        let text = "a\0b'c\0"
        try db.create(table: "tag") { t in
            t.column("id", .integer).primaryKey()
            t.column("label", .text).defaults(to: text).check { $0 != "x\0y" }
        }
        try db.execute(sql: "INSERT INTO tag(id) VALUES (1)")
        let stored = try db.fetchScalar(Data.self, sql: "SELECT CAST(label AS BLOB) FROM tag")
        #expect(stored == Data(text.utf8))
        #expect(try db.fetchScalar(Int.self, sql: "SELECT length(CAST(label AS BLOB)) FROM tag") == 6)
        // The check compares the whole text: "x\0y" is refused, "x" is not.
        #expect(throws: DatabaseError.self) { try db.execute(sql: "INSERT INTO tag VALUES (2, CAST(X'780079' AS TEXT))") }
        try db.execute(sql: "INSERT INTO tag VALUES (3, 'x')")
    }

    /// Generated columns (SQLite 3.31) and STRICT tables (3.37) where the linked SQLite has
    /// them; on SQLCipher 3.4.1 a clear error naming the version, and nothing created.
    @Test func generatedColumnsAndStrictTablesWhereTheLinkedSQLiteHasThem() throws {
        let sqliteHas = { (version: String) in SQLCipherLibrary.sqliteVersion.compare(version, options: .numeric) != .orderedAscending }
        let createScore = {
            try db.create(table: "score", options: [.strict]) { t in
                t.column("id", .integer).primaryKey()
                t.column("points", .integer).notNull()
                t.column("bonus", .integer).notNull().defaults(to: 0)
                t.column("total", .integer).generatedAs(Column("points") + Column("bonus"), .stored)
                t.column("label", .text).generatedAs(sql: "'#' || id")
            }
        }
        let addDouble = {
            try db.alter(table: "plain") { t in t.add(column: "double", .integer).generatedAs(sql: "n * 2") }
        }
        try db.execute(sql: "CREATE TABLE plain(n INTEGER)")
        try db.execute(sql: "INSERT INTO plain VALUES (21)")
        if sqliteHas("3.37") {
            try createScore()
            #expect(try schemaSQL("score") == #"CREATE TABLE "score" ("id" INTEGER PRIMARY KEY, "points" INTEGER NOT NULL, "bonus" INTEGER NOT NULL DEFAULT 0, "total" INTEGER GENERATED ALWAYS AS ("points" + "bonus") STORED, "label" TEXT GENERATED ALWAYS AS ('#' || id) VIRTUAL) STRICT"#)
            try db.execute(sql: "INSERT INTO score(id, points, bonus) VALUES (1, 10, 5)")
            #expect(try db.fetchOne(sql: "SELECT total, label FROM score")?.values == [.integer(15), .text("#1")])
            #expect(throws: DatabaseError.self, "STRICT refuses text in an INTEGER column") {
                try db.execute(sql: "INSERT INTO score(id, points) VALUES (2, 'many')")
            }
            try addDouble()
            #expect(try db.fetchScalar(Int.self, sql: "SELECT double FROM plain") == 42)
        } else {
            #expect {
                try createScore()
            } throws: { error in
                (error as? DatabaseError)?.message?.contains("needs SQLite 3.37") == true
            }
            #expect(try db.tableExists("score") == false)
            #expect {
                try db.create(table: "score") { t in
                    t.column("points", .integer)
                    t.column("twice", .integer).generatedAs(sql: "points * 2")
                }
            } throws: { error in
                (error as? DatabaseError)?.message?.contains("needs SQLite 3.31") == true
            }
            #expect(try db.tableExists("score") == false)
            let before = try schemaSQL("plain")
            #expect(throws: DatabaseError.self) { try addDouble() }
            #expect(try schemaSQL("plain") == before)
        }
    }

    /// `t.belongsTo` as GRDB writes it: columns named after the association and the referenced
    /// primary key, of its types, with the foreign key and an index; a table may refer to itself.
    @Test func belongsToAddsTheReferringColumnsTheirForeignKeyAndIndex() throws {
        try db.create(table: "teams") { t in
            t.autoIncrementedPrimaryKey("id")
        }
        try db.create(table: "country") { t in
            t.primaryKey("code", .text)
        }
        try db.create(table: "region") { t in
            t.column("country", .text).notNull()
            t.column("number", .integer).notNull()
            t.primaryKey(["country", "number"])
        }
        try db.create(table: "player") { t in
            t.autoIncrementedPrimaryKey("id")
            t.belongsTo("team", onDelete: .cascade)
            t.belongsTo("country", indexed: false).notNull()
            t.belongsTo("home", inTable: "region")
            t.belongsTo("captain", inTable: "player", onDelete: .setNull).unique()
            t.column("name", .text)
        }
        #expect(try schemaSQL("player") == #"CREATE TABLE "player" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "teamId" INTEGER REFERENCES "teams"("id") ON DELETE CASCADE, "countryCode" TEXT NOT NULL REFERENCES "country"("code"), "homeCountry" TEXT, "homeNumber" INTEGER, "captainId" INTEGER REFERENCES "player"("id") ON DELETE SET NULL, "name" TEXT, FOREIGN KEY ("homeCountry", "homeNumber") REFERENCES "region"("country", "number"))"#)
        #expect(try schemaSQL("player_on_teamId") == #"CREATE INDEX "player_on_teamId" ON "player"("teamId")"#)
        #expect(try schemaSQL("player_on_homeCountry_homeNumber") == #"CREATE INDEX "player_on_homeCountry_homeNumber" ON "player"("homeCountry", "homeNumber")"#)
        #expect(try schemaSQL("player_on_captainId") == #"CREATE UNIQUE INDEX "player_on_captainId" ON "player"("captainId")"#)
        #expect(try schemaSQL("player_on_countryCode") == nil)

        // What the schema enforces: the foreign keys, the cascade, the unique captain.
        try db.executeScript("""
            INSERT INTO teams(id) VALUES (1);
            INSERT INTO country VALUES ('FR');
            INSERT INTO region VALUES ('FR', 75);
            INSERT INTO player(id, teamId, countryCode, homeCountry, homeNumber, name) VALUES (1, 1, 'FR', 'FR', 75, 'Ann');
            INSERT INTO player(id, teamId, countryCode, captainId, name) VALUES (2, 1, 'FR', 1, 'Bob');
            """)
        #expect(throws: DatabaseError.self) { try db.execute(sql: "INSERT INTO player(id, countryCode, homeCountry, homeNumber) VALUES (3, 'FR', 'FR', 99)") }
        #expect(throws: DatabaseError.self) { try db.execute(sql: "INSERT INTO player(id, countryCode, captainId) VALUES (4, 'FR', 1)") }
        #expect(throws: DatabaseError.self) { try db.execute(sql: "INSERT INTO player(id, countryCode) VALUES (5, NULL)") }
        try db.execute(sql: "DELETE FROM teams")
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM player") == 0)

        // `name` before its plural, the table being created included.
        try db.create(table: "club") { t in t.autoIncrementedPrimaryKey("id") }
        try db.create(table: "clubs") { t in
            t.autoIncrementedPrimaryKey("id")
            t.belongsTo("club")
        }
        #expect(try schemaSQL("clubs")?.contains(#""clubId" INTEGER REFERENCES "club"("id")"#) == true)
        try db.create(table: "squads") { t in
            t.autoIncrementedPrimaryKey("id")
            t.belongsTo("squad")
        }
        #expect(try schemaSQL("squads")?.contains(#""squadId" INTEGER REFERENCES "squads"("id")"#) == true)
        // An irregular plural, as GRDB's inflections write it.
        try db.create(table: "people") { t in t.autoIncrementedPrimaryKey("id") }
        try db.create(table: "pet") { t in
            t.autoIncrementedPrimaryKey("id")
            t.belongsTo("person")
        }
        #expect(try schemaSQL("pet")?.contains(#""personId" INTEGER REFERENCES "people"("id")"#) == true)

        // IF NOT EXISTS on an existing table creates nothing, indexes included.
        try db.create(table: "player", options: .ifNotExists) { t in
            t.autoIncrementedPrimaryKey("id")
            t.belongsTo("coach", inTable: "teams").unique()
        }
        #expect(try schemaSQL("player_on_coachId") == nil)

        // A temporary table cannot refer to a table of the main database.
        #expect {
            try db.create(table: "scratch", options: .temporary) { t in t.belongsTo("country") }
        } throws: { error in
            (error as? DatabaseError)?.message?.contains("a temporary table cannot refer to country") == true
        }
        #expect(try db.tableExists("scratch", in: "temp") == false)

        // No such table, and a table without a primary key: clear errors, nothing created.
        #expect {
            try db.create(table: "match") { t in t.belongsTo("stadium") }
        } throws: { error in
            (error as? DatabaseError)?.message?.contains("there is no table stadium or stadiums") == true
        }
        try db.execute(sql: "CREATE TABLE note(body TEXT)")
        #expect {
            try db.create(table: "match") { t in t.belongsTo("note") }
        } throws: { error in
            (error as? DatabaseError)?.message?.contains("has no primary key") == true
        }
        #expect(try db.tableExists("match") == false)
    }
}
