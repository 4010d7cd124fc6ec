import CipherStore
import Foundation
import StatusFeed
import Testing

@Suite struct MigrationTests {
    @Test func version1DatabaseWithDataMigratesToTheCurrentVersionWithNothingLost() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("migrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("feed.db").path
        let key = try DatabaseKey.passphrase("migrate")
        do {
            let queue = try DatabaseQueue(path: path, key: key)
            try FeedSchema.migrator(upTo: 1).migrate(queue)
            for user in SampleData.users { try UserService(queue: queue).add(user) }
            try queue.inDatabase { db in
                for status in SampleData.statuses {
                    try db.execute(sql: #"INSERT INTO Status(source, createdAt, "text", user) VALUES (?, ?, ?, ?)"#,
                                   arguments: [status.source, status.createdAt, status.text, status.user])
                }
                // A deleted last row: AUTOINCREMENT must not reuse its id after the rebuild.
                try db.execute(sql: "INSERT INTO Status(source, createdAt, \"text\", user) VALUES ('x', '2014-11-15', 'gone', 1)")
                try db.execute(sql: "DELETE FROM Status WHERE Id = 11")
                #expect(try db.userVersion() == 1)
            }
        }
        let queue = try DatabaseQueue(path: path, key: key)
        let contentSQL = #"SELECT Id, source, createdAt, "text", user FROM Status ORDER BY Id"#
        let before = try queue.inDatabase { try $0.fetchAll(sql: contentSQL).map(\.values) }
        #expect(before.count == 10)
        try FeedSchema.migrate(queue)
        try queue.inDatabase { db in
            #expect(try db.userVersion() == 4)
            #expect(try db.columnNames(ofTable: "Status").contains("clientMessageId"))
            let sql = try db.fetchScalar(String.self, sql: "SELECT sql FROM sqlite_master WHERE name = 'Status'") ?? ""
            #expect(sql.contains("NOT NULL CHECK"))
            #expect(try db.fetchScalar(Int.self, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'Status'") == 11)
            #expect(try db.fetchScalar(String.self, sql: "PRAGMA integrity_check") == "ok")
            #expect(try db.fetchAll(sql: "PRAGMA foreign_key_check").isEmpty)
            #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Status'") == 3)
        }
        #expect(try queue.inDatabase { try $0.fetchAll(sql: contentSQL).map(\.values) } == before)
        #expect(try StatusService(queue: queue).timeline().count == 10)
        // v4 indexed the statuses that were there.
        #expect(try StatusService(queue: queue).search("温泉").map(\.status.id) == [2, 1])
        let added = try StatusService(queue: queue).add(Status(source: "", createdAt: Date(), text: "after", user: 1))
        #expect(added.id == 12)
        // The rebuilt table keeps its constraints: empty text is refused by the schema itself.
        #expect(throws: DatabaseError.self) {
            try queue.inDatabase { try $0.execute(sql: #"INSERT INTO Status(createdAt, "text", user) VALUES ('2014-11-14', '', 1)"#) }
        }
        // Running it again changes nothing.
        try FeedSchema.migrate(queue)
        #expect(try queue.inDatabase { try $0.userVersion() } == 4)
    }

    @Test func failingMigrationRollsBackAndIsNamed() throws {
        let queue = try DatabaseQueue(location: .inMemory, key: .passphrase("k"))
        var migrator = DatabaseMigrator()
        migrator.registerMigration("one") { try $0.execute(sql: "CREATE TABLE a(x)") }
        migrator.registerMigration("two") { db in
            try db.execute(sql: "CREATE TABLE b(x)")
            try db.execute(sql: "INSERT INTO missing VALUES (1)")
        }
        // The migration's own error comes back unchanged…
        let error = try #require(throws: DatabaseError.self) { try migrator.migrate(queue) }
        #expect(error.message == "no such table: missing")
        try queue.inDatabase { (db: Connection) throws in
            #expect(try db.tableExists("a"))
            #expect(try !db.tableExists("b"))
            #expect(try migrator.appliedMigrations(db) == ["one"])
            // The migrator leaves user_version to the app.
            #expect(try db.userVersion() == 0)
            // …and the failing migration is the first one not applied.
            let applied = try migrator.appliedMigrations(db)
            #expect(migrator.migrationNames.first { !applied.contains($0) } == "two")
        }
    }

    @Test func databaseFromANewerAppIsRefused() throws {
        let queue = try DatabaseQueue(location: .inMemory, key: .passphrase("k"))
        try FeedSchema.migrator(upTo: 3).migrate(queue)
        #expect(throws: MigrationError.databaseIsNewer(unknownMigrations: [FeedSchema.v2, FeedSchema.v3])) {
            try FeedSchema.migrator(upTo: 1).migrate(queue)
        }
    }

    @Test func legacyDatabaseOfTheOldAppIsAdopted() throws {
        let queue = try DatabaseQueue(location: .inMemory, key: nil)
        try queue.inDatabase { db in
            try db.executeScript("""
                CREATE TABLE User (Id integer PRIMARY KEY AUTOINCREMENT, name text, screenName text, profileImageUrl text, mbtype text, city text);
                CREATE TABLE Status (Id integer PRIMARY KEY AUTOINCREMENT, source text, createdAt date, "text" text, user integer REFERENCES User (Id));
                INSERT INTO User(name) VALUES ('Binger');
                INSERT INTO Status(createdAt, "text", user) VALUES ('2014-11-14 01:00:00.000', 'hello', 1);
                """)
        }
        try FeedSchema.migrate(queue)
        #expect(try StatusService(queue: queue).timeline().map(\.status.text) == ["hello"])
        #expect(try queue.inDatabase { try FeedSchema.migrator().appliedMigrations($0) } == [FeedSchema.v1, FeedSchema.v2, FeedSchema.v3, FeedSchema.v4])
        #expect(try StatusService(queue: queue).search("HELLO").map(\.status.text) == ["hello"])
    }
}

@Suite struct RecordTests {
    struct Item: Codable, Equatable {
        var id: Int64?
        var name: String
        var price: Double
        var tag: String?
        var at: Date
    }

    @Test func encodableInsertAndDecodableFetchRoundTrip() throws {
        let db = try Connection(location: .inMemory, key: .passphrase("k"))
        try db.execute(sql: "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price REAL, tag TEXT, at TEXT)")
        let item = Item(id: nil, name: "茶 \"tea\"", price: 2.5, tag: nil, at: Date(timeIntervalSince1970: 1_416_000_000))
        try db.insert(item, into: "item")
        var stored = item
        stored.id = db.lastInsertedRowID
        #expect(try db.fetchOne(Item.self, sql: "SELECT * FROM item") == stored)
        stored.tag = "green"
        try db.update(stored, in: "item")
        #expect(try db.fetchAll(Item.self, sql: "SELECT * FROM item") == [stored])
        let cursor = try db.fetchCursor(Item.self, sql: "SELECT * FROM item")
        #expect(try cursor.next() == stored)
        #expect(try cursor.next() == nil)
        // A record that is not keyed is an error, not a crash.
        #expect(throws: EncodingError.self) { try db.insert([1, 2], into: "item") }
        // A missing column is a clear decoding error, not a default value.
        #expect(throws: RecordDecodingError(recordType: "Item", column: "price", problem: .missingColumn(availableColumns: ["id", "name"]))) {
            try db.fetchOne(Item.self, sql: "SELECT id, name FROM item")
        }
    }
}
