import CipherStore
import Foundation
import TestSupport
import Testing

/// The migrator keeps its list in `cipherstore_migrations` and leaves `PRAGMA user_version`
/// to the app.
@Suite struct MigratorUserVersionTests {
    let directory: TemporaryDirectory
    let queue: DatabaseQueue

    init() throws {
        directory = try TemporaryDirectory()
        queue = try DatabaseQueue(path: directory.path("app.db"), key: .passphrase("user version"))
    }

    /// v1 `note`, v2 `tag`, v3 `pin`: one table each.
    static func migrator(upTo count: Int = 3) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for (name, table) in [("v1 note", "note"), ("v2 tag", "tag"), ("v3 pin", "pin")].prefix(count) {
            migrator.registerMigration(name) { db in try db.execute(sql: "CREATE TABLE \(table)(id INTEGER PRIMARY KEY)") }
        }
        return migrator
    }

    func tables() throws -> [String] {
        try queue.inDatabase { db in
            try db.fetchAll(sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'cipherstore%' ORDER BY name")
                .map { try $0.value(String.self, at: 0) }
        }
    }

    @Test func theAppsUserVersionSurvivesMigrations() throws {
        try queue.inDatabase { try $0.execute(sql: "PRAGMA user_version = 42") }
        try Self.migrator(upTo: 2).migrate(queue)
        try Self.migrator().migrate(queue)
        #expect(try queue.inDatabase { try $0.userVersion() } == 42)
        #expect(try tables() == ["note", "pin", "tag"])
        #expect(try queue.inDatabase { try Self.migrator().appliedMigrations($0) } == ["v1 note", "v2 tag", "v3 pin"])
    }

    @Test func aMigrationMaySetUserVersionAndItRollsBackWithTheMigration() throws {
        var migrator = Self.migrator(upTo: 1)
        migrator.registerMigration("v2 sets its version") { db in try db.execute(sql: "PRAGMA user_version = 2") }
        migrator.registerMigration("v3 fails") { db in
            try db.execute(sql: "PRAGMA user_version = 3")
            try db.execute(sql: "INSERT INTO missing VALUES (1)")
        }
        let before = try queue.inDatabase { try $0.userVersion() }
        #expect(throws: MigrationError.self) { try migrator.migrate(queue) }
        // The whole run is undone: v2's user_version too.
        #expect(try queue.inDatabase { try $0.userVersion() } == before)
    }

    @Test func adoptingUserVersionMarksThatManyMigrationsAndRunsTheRest() throws {
        // An app that numbered its schema by hand: version 2 has note and tag.
        try queue.inDatabase { db in
            try db.executeScript("CREATE TABLE note(id INTEGER PRIMARY KEY); CREATE TABLE tag(id INTEGER PRIMARY KEY); PRAGMA user_version = 2;")
        }
        let migrator = Self.migrator()
        try migrator.migrate(queue, adoptingUserVersion: true)
        #expect(try tables() == ["note", "pin", "tag"])
        #expect(try queue.inDatabase { try migrator.appliedMigrations($0) } == ["v1 note", "v2 tag", "v3 pin"])
        #expect(try queue.inDatabase { try $0.userVersion() } == 2)
        // Once migrations are recorded, the list counts, not user_version.
        try queue.inDatabase { try $0.execute(sql: "PRAGMA user_version = 1") }
        try migrator.migrate(queue, adoptingUserVersion: true)
        #expect(try queue.inDatabase { try migrator.appliedMigrations($0) } == ["v1 note", "v2 tag", "v3 pin"])
    }

    @Test func withoutAdoptingEveryMigrationRunsWhateverUserVersionSays() throws {
        try queue.inDatabase { try $0.execute(sql: "PRAGMA user_version = 2") }
        try Self.migrator().migrate(queue)
        #expect(try tables() == ["note", "pin", "tag"])
    }

    @Test func adoptingAUserVersionBeyondTheRegisteredMigrationsIsRefusedAndChangesNothing() throws {
        try queue.inDatabase { try $0.execute(sql: "PRAGMA user_version = 5") }
        let migrator = Self.migrator()
        let error = try #require(throws: MigrationError.self) { try migrator.migrate(queue, adoptingUserVersion: true) }
        #expect(error == .userVersionBeyondMigrations(userVersion: 5, registered: 3))
        #expect(error.description.contains("user_version is 5, but only 3 migrations are registered"))
        #expect(try tables().isEmpty)
        #expect(try queue.inDatabase { try migrator.appliedMigrations($0) }.isEmpty)
        #expect(try queue.inDatabase { try $0.userVersion() } == 5)
    }

    /// Earlier versions of the migrator also wrote the count of applied migrations into
    /// user_version; such a database is recognised by its table and upgrades.
    @Test func aDatabaseMigratedTheFormerWayUpgrades() throws {
        try queue.inDatabase { db in
            try db.executeScript("""
                CREATE TABLE note(id INTEGER PRIMARY KEY);
                CREATE TABLE tag(id INTEGER PRIMARY KEY);
                CREATE TABLE cipherstore_migrations(name TEXT PRIMARY KEY NOT NULL);
                INSERT INTO cipherstore_migrations(name) VALUES ('v1 note'), ('v2 tag');
                PRAGMA user_version = 2;
                """)
        }
        let migrator = Self.migrator()
        // Adopting or not, the recorded list wins: only v3 runs (v1 and v2 would fail: their tables exist).
        try migrator.migrate(queue, adoptingUserVersion: true)
        #expect(try tables() == ["note", "pin", "tag"])
        #expect(try queue.inDatabase { try migrator.appliedMigrations($0) } == ["v1 note", "v2 tag", "v3 pin"])
        #expect(try queue.inDatabase { try $0.userVersion() } == 2)
    }
}
