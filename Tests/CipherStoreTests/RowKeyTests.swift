import CipherStore
import Foundation
import TestSupport
import Testing

/// Which columns find a record's row: its `id` only where the schema makes `id` name one row,
/// else the table's declared primary key, as GRDB reads it; an error, with nothing run, where
/// neither exists. Every outcome is checked against the table's rows read with SQL.
@Suite struct RowKeyTests {
    /// A legacy table keyed by `uuid`, whose `id` repeats.
    struct LegacyUser: Codable, Equatable, FetchableRecord, PersistableRecord, Identifiable {
        static let databaseTableName = "legacyUser"
        var uuid: String
        var id: Int64
        var name: String
    }

    /// A table with no primary key and an `id` that repeats.
    struct Note: Codable, Equatable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "note"
        var id: Int64
        var body: String
    }

    /// A `WITHOUT ROWID` table keyed by `k`, with no `id`.
    struct Setting: Codable, Equatable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "setting"
        var k: String
        var v: String
    }

    final class EventLog {
        var events: [String] = []
    }

    /// A record whose `id` is set by `didInsert`, as GRDB apps write it (no ``RowIDRecord``).
    struct Player: Codable, FetchableRecord, MutablePersistableRecord {
        static let databaseTableName = "player"
        var id: Int64?
        var name: String
        var log = EventLog()
        enum CodingKeys: String, CodingKey { case id, name }

        mutating func willInsert(_ db: Database) throws { log.events.append("willInsert") }
        mutating func didInsert(_ inserted: InsertionSuccess) {
            id = inserted.rowID
            log.events.append("didInsert")
        }
        func willUpdate(_ db: Database, columns: Set<String>) throws { log.events.append("willUpdate") }
        func didUpdate(_ updated: PersistenceSuccess) { log.events.append("didUpdate") }
    }

    let directory: TemporaryDirectory
    let db: Connection

    init() throws {
        directory = try TemporaryDirectory()
        db = try Connection(path: directory.path("keys.db"), key: .rawKey(hex: String(repeating: "4b", count: 32)))
        try db.executeScript("""
            CREATE TABLE legacyUser(uuid TEXT PRIMARY KEY NOT NULL, id INTEGER NOT NULL, name TEXT NOT NULL);
            INSERT INTO legacyUser VALUES ('u1', 7, 'alice'), ('u2', 7, 'bob'), ('u3', 8, 'carol');
            CREATE TABLE note(id INTEGER, body TEXT NOT NULL);
            INSERT INTO note VALUES (1, 'first'), (1, 'second'), (2, 'third');
            CREATE TABLE setting(k TEXT PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID;
            INSERT INTO setting VALUES ('x', 'one'), ('y', 'two');
            CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            """)
    }

    func rows(_ sql: String) throws -> [String] { try String.fetchAll(db, sql: sql) }

    @Test func aRecordWhoseIDRepeatsIsFoundByTheTablesPrimaryKey() throws {
        let all = "SELECT uuid || ':' || id || ':' || name FROM legacyUser ORDER BY uuid"
        var alice = try #require(try LegacyUser.fetchOne(db, sql: "SELECT * FROM legacyUser WHERE uuid = 'u1'"))
        alice.name = "alicia"
        try alice.update(db)
        #expect(try rows(all) == ["u1:7:alicia", "u2:7:bob", "u3:8:carol"], "only alice's row, found by uuid, changed")

        #expect(try LegacyUser.fetchOne(db, key: "u2") == LegacyUser(uuid: "u2", id: 7, name: "bob"))
        #expect(try LegacyUser.exists(db, key: "u3"))
        #expect(try LegacyUser.fetchAll(db, keys: ["u3", "u1"]).map(\.name).sorted() == ["alicia", "carol"])
        // An `id` is no key of this table: id 7 names no uuid, as in GRDB, and deletes nothing.
        #expect(try LegacyUser.deleteOne(db, id: 7) == false)
        #expect(try rows(all).count == 3)

        #expect(try alice.delete(db))
        #expect(try rows(all) == ["u2:7:bob", "u3:8:carol"], "bob, who shares alice's id, is still there")
        #expect(try LegacyUser.deleteOne(db, key: "u3"))
        #expect(try rows(all) == ["u2:7:bob"])
    }

    @Test func anIDThatRepeatsInATableWithoutAPrimaryKeyIsRefusedAndNothingChanges() throws {
        let all = "SELECT id || ':' || body FROM note ORDER BY rowid"
        let before = try rows(all)
        let first = Note(id: 1, body: "edited")
        func refused(_ error: any Error) -> Bool {
            guard case RecordError.keyNamesSeveralRows(let table, let column) = error else { return false }
            return table == "note" && column == "id" && "\(error)".contains("Declare id PRIMARY KEY or give it such a UNIQUE index")
        }
        #expect(performing: { try first.update(db) }, throws: refused)
        #expect(performing: { try first.delete(db) }, throws: refused)
        #expect(performing: { try Note.deleteOne(db, key: 1) }, throws: refused)
        #expect(performing: { try Note.deleteAll(db, keys: [1, 2]) }, throws: refused)
        #expect(performing: { try Note.fetchOne(db, key: 1) }, throws: refused)
        #expect(performing: { try db.deleteOne(from: "note", key: 1) }, throws: refused)
        #expect(try rows(all) == before, "nothing was changed")

        // A UNIQUE index makes `id` name one row: the same calls then work by it.
        try db.execute(sql: "DELETE FROM note WHERE body = 'second'")
        try db.execute(sql: "CREATE UNIQUE INDEX note_id ON note(id)")
        try first.update(db)
        #expect(try rows(all) == ["1:edited", "2:third"])
        #expect(try Note.fetchOne(db, key: 2) == Note(id: 2, body: "third"))
        #expect(try Note.deleteOne(db, key: 2))
        #expect(try rows(all) == ["1:edited"])
    }

    @Test func aTableKeyedByAnotherColumnIsFoundByItWithoutAnID() throws {
        let all = "SELECT k || '=' || v FROM setting ORDER BY k"
        #expect(try Setting.fetchOne(db, key: "y") == Setting(k: "y", v: "two"))
        #expect(try Setting.find(db, key: "x") == Setting(k: "x", v: "one"))
        try Setting(k: "x", v: "uno").update(db)
        #expect(try rows(all) == ["x=uno", "y=two"])
        #expect(try Setting.deleteOne(db, key: "y"))
        #expect(try rows(all) == ["x=uno"])
    }

    @Test func saveInsertsARecordWithANilKeyWithoutTheUpdatesCallbacks() throws {
        var player = Player(name: "Arthur")
        try player.save(db)
        #expect(player.log.events == ["willInsert", "didInsert"], "no update was tried for a record that has no key yet")
        #expect(player.id == 1)
        #expect(try rows("SELECT id || ':' || name FROM player") == ["1:Arthur"])

        player.log.events = []
        player.name = "Arthur II"
        try player.save(db)
        #expect(player.log.events == ["willUpdate", "didUpdate"])
        #expect(try rows("SELECT id || ':' || name FROM player") == ["1:Arthur II"])
    }

    /// A record with an `id` and a name, for the tables below.
    struct Named: Codable, Equatable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "named"
        var id: String
        var name: String
    }

    @Test func aTemporaryTableIsFoundByItsOwnPrimaryKey() throws {
        try db.executeScript("""
            CREATE TEMP TABLE legacyUser(uuid TEXT PRIMARY KEY NOT NULL, id INTEGER NOT NULL, name TEXT NOT NULL);
            INSERT INTO temp.legacyUser VALUES ('t1', 5, 'tina'), ('t2', 5, 'tom');
            """)
        // The temporary table shadows the main one of the same name, as SQLite reads the name.
        let all = "SELECT uuid || ':' || name FROM temp.legacyUser ORDER BY uuid"
        try LegacyUser(uuid: "t1", id: 5, name: "tania").update(db)
        #expect(try rows(all) == ["t1:tania", "t2:tom"])
        #expect(try LegacyUser.deleteOne(db, key: "t2"))
        #expect(try rows(all) == ["t1:tania"])
        #expect(try rows("SELECT uuid FROM main.legacyUser ORDER BY uuid") == ["u1", "u2", "u3"], "the main table is untouched")

        try db.executeScript("CREATE TEMP TABLE named(id TEXT, name TEXT); INSERT INTO temp.named VALUES ('k', 'a'), ('k', 'b');")
        #expect(performing: { try Named(id: "k", name: "z").delete(db) }, throws: { ($0 as? RecordError) == .keyNamesSeveralRows(table: "named", column: "id") })
        #expect(try rows("SELECT name FROM temp.named ORDER BY name") == ["a", "b"])
    }

    @Test func aUniqueIndexUnderAnotherCollationThanItsColumnsIsNoKey() throws {
        // `id = 'a'` compares under NOCASE and finds 'A' too, though the index keeps both.
        try db.executeScript("""
            CREATE TABLE named(uuid TEXT PRIMARY KEY, id TEXT COLLATE NOCASE, name TEXT NOT NULL);
            CREATE UNIQUE INDEX named_id ON named(id COLLATE BINARY);
            INSERT INTO named VALUES ('u1', 'a', 'x'), ('u2', 'A', 'y');
            """)
        let all = "SELECT uuid || ':' || name FROM named ORDER BY uuid"
        #expect(performing: { try Named(id: "a", name: "changed").update(db) }, throws: { ($0 as? RecordError) == .keyNamesSeveralRows(table: "named", column: "id") })
        // A key of one value is then the primary key's: no uuid is 'a'.
        #expect(try Named.deleteOne(db, key: "a") == false)
        #expect(try rows(all) == ["u1:x", "u2:y"], "nothing was changed")
        // Under the column's own collation, the index makes `id` a key.
        try db.executeScript("DROP INDEX named_id; DELETE FROM named WHERE uuid = 'u2'; CREATE UNIQUE INDEX named_id ON named(id);")
        try Named(id: "A", name: "changed").update(db)
        #expect(try rows(all) == ["u1:changed"])
    }

    @Test func namesAreFoldedAsSQLiteFoldsThemOnlyForASCII() throws {
        struct Umlaut: Codable, FetchableRecord, PersistableRecord {
            static let databaseTableName = "umlaut"
            static let primaryKeyColumn = "ä"
            var ä: Int64
            var name: String
        }
        // "Ä" is unique, "ä" (another column to SQLite) repeats.
        try db.executeScript("""
            CREATE TABLE umlaut(name TEXT NOT NULL, "Ä" INTEGER UNIQUE, "ä" INTEGER);
            INSERT INTO umlaut VALUES ('a', 1, 5), ('b', 2, 5);
            """)
        #expect(performing: { try Umlaut(ä: 5, name: "z").update(db) }, throws: { ($0 as? RecordError) == .keyNamesSeveralRows(table: "umlaut", column: "ä") })
        #expect(try rows("SELECT name FROM umlaut ORDER BY name") == ["a", "b"])
    }

    @Test func aViewKeepsItsKeyColumnOnEitherSQLCipher() throws {
        try db.executeScript("CREATE VIEW namedView AS SELECT uuid AS id, name FROM legacyUser")
        struct Viewed: Codable, Equatable, FetchableRecord, TableRecord {
            static let databaseTableName = "namedView"
            var id: String
            var name: String
        }
        #expect(try Viewed.fetchOne(db, key: "u2") == Viewed(id: "u2", name: "bob"))
    }

    /// A view whose INSTEAD OF triggers write its table: SQLite counts none of the view's rows
    /// as changed, and what the triggers wrote is what tells whether the row was there.
    @Test func aViewWrittenThroughItsTriggersReportsWhatTheyWrote() throws {
        struct Person: Codable, Equatable, FetchableRecord, PersistableRecord {
            static let databaseTableName = "person"
            var id: Int64
            var name: String
        }
        try db.executeScript("""
            CREATE TABLE personBase(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            INSERT INTO personBase VALUES (1, 'ann'), (2, 'bob');
            CREATE VIEW person AS SELECT id, name FROM personBase;
            CREATE TRIGGER personUpdate INSTEAD OF UPDATE ON person BEGIN UPDATE personBase SET name = NEW.name WHERE id = OLD.id; END;
            CREATE TRIGGER personDelete INSTEAD OF DELETE ON person BEGIN DELETE FROM personBase WHERE id = OLD.id; END;
            CREATE TRIGGER personInsert INSTEAD OF INSERT ON person BEGIN INSERT INTO personBase VALUES (NEW.id, NEW.name); END;
            """)
        let all = "SELECT id || ':' || name FROM personBase ORDER BY id"
        try Person(id: 1, name: "anne").update(db)
        #expect(try rows(all) == ["1:anne", "2:bob"])
        #expect(performing: { try Person(id: 9, name: "nobody").update(db) }, throws: { ($0 as? RecordError) == .rowNotFound(table: "person", primaryKey: "id") })
        // save updates the row it finds, and inserts only where there is none.
        try Person(id: 2, name: "bobby").save(db)
        try Person(id: 3, name: "cy").save(db)
        #expect(try rows(all) == ["1:anne", "2:bobby", "3:cy"])
        #expect(try Person(id: 3, name: "cy").delete(db))
        #expect(try Person(id: 3, name: "cy").delete(db) == false)
        #expect(try Person.deleteOne(db, key: 2))
        #expect(try rows(all) == ["1:anne"])
    }

    @Test func anOverriddenKeyColumnThatRepeatsIsNamedInTheError() throws {
        struct Coded: Codable, FetchableRecord, PersistableRecord {
            static let databaseTableName = "coded"
            static let primaryKeyColumn = "code"
            var code: String
            var name: String
        }
        try db.executeScript("CREATE TABLE coded(id INTEGER PRIMARY KEY, code TEXT, name TEXT); INSERT INTO coded(code, name) VALUES ('c', 'a'), ('c', 'b');")
        #expect(performing: { try Coded(code: "c", name: "z").update(db) }, throws: { error in
            (error as? RecordError) == .keyNamesSeveralRows(table: "coded", column: "code") && "\(error)".contains("code can hold one value in several rows")
        })
        #expect(try rows("SELECT name FROM coded ORDER BY id") == ["a", "b"])
    }
}
