import CipherStore
import Foundation
import TestSupport
import Testing

/// Migrating in stages, and asking where a database stands: GRDB's `migrate(upTo:)`,
/// `completedMigrations`, `hasCompletedMigrations` and `hasBeenSuperseded`.
@Suite struct MigratorStagesTests {
    static func migrator(_ names: [String]) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for name in names {
            migrator.registerMigration(name) { db in try db.execute(sql: "CREATE TABLE \"\(name)\"(x)") }
        }
        return migrator
    }

    func tables(_ db: Connection) throws -> [String] {
        try db.fetchAll(sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'v%' ORDER BY name").map { try $0.value(String.self, at: 0) }
    }

    @Test func upToRunsTheMigrationsUpToTheTargetAndNoFurther() throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.path("stages.db"), key: .passphrase("stages"))
        let migrator = Self.migrator(["v1", "v2", "v3"])
        try queue.inDatabase { db throws in
            #expect(try migrator.hasCompletedMigrations(db) == false)
            try migrator.migrate(db, upTo: "v2")
            #expect(try tables(db) == ["v1", "v2"])
            #expect(try migrator.completedMigrations(db) == ["v1", "v2"])
            #expect(try migrator.hasCompletedMigrations(db) == false)
            // Again: nothing to do. Back to an earlier target: refused (GRDB stops the app there).
            try migrator.migrate(db, upTo: "v2")
            #expect(throws: MigrationError.migratedBeyond(target: "v1", laterMigrations: ["v2"])) {
                try migrator.migrate(db, upTo: "v1")
            }
            #expect(try tables(db) == ["v1", "v2"])
            try migrator.migrate(db)
            #expect(try tables(db) == ["v1", "v2", "v3"])
            #expect(try migrator.hasCompletedMigrations(db))
            #expect(try migrator.hasBeenSuperseded(db) == false)
        }
    }

    @Test func aTargetBehindTheDatabaseOrUnknownIsRefusedAndRunsNothing() throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.path("stages.db"), key: .passphrase("stages"))
        let partial = Self.migrator(["v1", "v3"])
        try partial.migrate(queue)
        let migrator = Self.migrator(["v1", "v2", "v3"])
        try queue.inDatabase { db throws in
            // v3 was applied out of order by an app that did not have v2: migrating up to v2 would go behind it.
            #expect(throws: MigrationError.migratedBeyond(target: "v2", laterMigrations: ["v3"])) {
                try migrator.migrate(db, upTo: "v2")
            }
            #expect(throws: MigrationError.unregisteredMigration(name: "v9")) {
                try migrator.migrate(db, upTo: "v9")
            }
            #expect(try tables(db) == ["v1", "v3"])
            #expect(try migrator.completedMigrations(db) == ["v1", "v3"])
        }
        let message = MigrationError.migratedBeyond(target: "v2", laterMigrations: ["v3"]).description
        #expect(message.contains("'v2'") && message.contains("v3") && message.contains("nothing was run"))
    }

    @Test func aDatabaseFromANewerAppIsSuperseded() async throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.path("stages.db"), key: .passphrase("stages"))
        try await Self.migrator(["v1", "v2"]).migrate(queue, upTo: "v2")
        let older = Self.migrator(["v1"])
        try await queue.read { db throws in
            #expect(try older.hasBeenSuperseded(db))
            #expect(try older.hasCompletedMigrations(db) == false)
            #expect(try older.completedMigrations(db) == ["v1"])
        }
    }
}
