import CipherStore
import Foundation
import TestSupport
import Testing

/// `eraseDatabaseOnSchemaChange`: a database whose applied migrations this migrator does not
/// register is erased and migrated again; any other database is left alone.
@Suite struct MigratorEraseTests {
    static func migrator(_ names: [String]) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for name in names {
            migrator.registerMigration(name) { db in
                try db.execute(sql: "CREATE TABLE IF NOT EXISTS note(body TEXT)")
                try db.execute(sql: "INSERT INTO note VALUES (?)", arguments: [name])
            }
        }
        return migrator
    }

    /// A database migrated with "a" and "b", plus a row and a user_version of the app's.
    static func database(_ directory: TemporaryDirectory) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: directory.path("dev.db"), key: .passphrase("development"))
        try migrator(["a", "b"]).migrate(queue)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE scratch(x)")
            try db.execute(sql: "PRAGMA user_version = 7")
        }
        return queue
    }

    @Test func renamedMigrationErasesTheDatabaseAndMigratesFromScratch() throws {
        let directory = try TemporaryDirectory()
        let queue = try Self.database(directory)
        var renamed = Self.migrator(["a", "b renamed"])
        renamed.eraseDatabaseOnSchemaChange = true
        try renamed.migrate(queue)
        try queue.read { (db: Connection) throws in
            #expect(try renamed.appliedMigrations(db) == ["a", "b renamed"])
            #expect(try db.fetchAll(sql: "SELECT body FROM note").map { try $0.value(String.self, at: 0) } == ["a", "b renamed"])
            #expect(try !db.tableExists("scratch"))
            #expect(try db.userVersion() == 0)
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path("dev.db.migration-snapshot")))
    }

    @Test func unchangedMigrationsAreNotErased() throws {
        let directory = try TemporaryDirectory()
        let queue = try Self.database(directory)
        var grown = Self.migrator(["a", "b", "c"])
        grown.eraseDatabaseOnSchemaChange = true
        try grown.migrate(queue)
        try queue.read { (db: Connection) throws in
            #expect(try db.fetchAll(sql: "SELECT body FROM note").map { try $0.value(String.self, at: 0) } == ["a", "b", "c"])
            #expect(try db.tableExists("scratch"))
            #expect(try db.userVersion() == 7)
        }
    }

    @Test func withoutTheOptionARenamedMigrationIsRefusedAndNothingChanges() throws {
        let directory = try TemporaryDirectory()
        let queue = try Self.database(directory)
        #expect(throws: MigrationError.databaseIsNewer(unknownMigrations: ["b"])) {
            try Self.migrator(["a", "b renamed"]).migrate(queue)
        }
        #expect(try queue.read { db in try db.tableExists("scratch") })
    }

    @Test func aFailureAfterTheErasePutsTheDatabaseBackAsItWasBeforeIt() throws {
        let directory = try TemporaryDirectory()
        let queue = try Self.database(directory)
        var renamed = Self.migrator(["a"])
        renamed.registerMigration("b broken") { _ in throw CancellationError() }
        renamed.eraseDatabaseOnSchemaChange = true
        #expect(throws: MigrationError.self) { try renamed.migrate(queue) }
        try queue.read { (db: Connection) throws in
            #expect(try db.tableExists("scratch"))
            #expect(try db.userVersion() == 7)
            #expect(try DatabaseMigrator().appliedMigrations(db) == ["a", "b"])
        }
    }
}
