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
            // GRDB's answer: its last migration is applied (the newer one is hasBeenSuperseded's).
            #expect(try older.hasCompletedMigrations(db))
            #expect(try older.completedMigrations(db) == ["v1"])
        }
    }

    /// `foreignKeyChecks: .immediate` enforces foreign keys at each statement of the migration;
    /// the default defers them to one check before it commits, so a migration may pass through
    /// a violation it repairs.
    @Test func foreignKeyChecksImmediateOrDeferred() throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.path("keys.db"), key: .passphrase("foreign keys"))
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.executeScript("CREATE TABLE author(id INTEGER PRIMARY KEY); CREATE TABLE book(id INTEGER PRIMARY KEY, authorId INTEGER NOT NULL REFERENCES author(id))")
        }
        try migrator.migrate(queue)
        // A book before its author: refused at the INSERT when checked immediately…
        var immediate = migrator
        immediate.registerMigration("v2", foreignKeyChecks: .immediate) { db in
            try db.execute(sql: "INSERT INTO book VALUES (1, 7)")
            try db.execute(sql: "INSERT INTO author VALUES (7)")
        }
        let refused = #expect(throws: (any Error).self) { try immediate.migrate(queue) }
        #expect("\(refused.map { String(describing: $0) } ?? "")".contains("FOREIGN KEY constraint failed"))
        try queue.inDatabase { db throws in
            #expect(try migrator.appliedMigrations(db) == ["v1"])
            #expect(try db.fetchOne(Int.self, sql: "SELECT count(*) FROM book") == 0)
        }
        // …and let through by the default, whose check before the commit finds nothing wrong.
        var deferred = migrator
        deferred.registerMigration("v2") { db in
            try db.execute(sql: "INSERT INTO book VALUES (1, 7)")
            try db.execute(sql: "INSERT INTO author VALUES (7)")
        }
        try deferred.migrate(queue)
        try queue.inDatabase { db throws in
            #expect(try deferred.appliedMigrations(db) == ["v1", "v2"])
            #expect(try db.fetchAll(sql: "SELECT book.id, author.id FROM book JOIN author ON author.id = book.authorId").map(\.values) == [[.integer(1), .integer(7)]])
            // Enforcement is back on after the migrations, as configured.
            #expect(try db.fetchOne(Bool.self, sql: "PRAGMA foreign_keys") == true)
        }
    }
}
