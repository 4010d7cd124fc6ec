import CipherStore
import Foundation
import TestSupport
import Logging
import Testing

/// A failing migration rolls back and its error reaches the caller, with the migration's name.
@Suite struct MigratorErrorTests {
    struct BadSeedData: Error, Equatable { let line: Int }

    /// A table with a UNIQUE column, and one row.
    static func addVersion1(to migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v1 tag") { db in
            try db.execute(sql: "CREATE TABLE tag(name TEXT NOT NULL UNIQUE)")
            try db.execute(sql: "INSERT INTO tag(name) VALUES ('swift')")
        }
    }

    /// v1, then `v2` (the migration under test), then a v3 that must never run.
    func migrator(v2: @escaping @Sendable (Connection) throws -> Void) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        Self.addVersion1(to: &migrator)
        migrator.registerMigration("v2 note", v2)
        migrator.registerMigration("v3 never reached") { db in
            try db.execute(sql: "CREATE TABLE later(x)")
        }
        return migrator
    }

    /// Opens a fresh encrypted database at v1, with a logger that records what is logged.
    func databaseAtVersion1(_ directory: TemporaryDirectory) throws -> (DatabaseQueue, LogCapture) {
        let capture = LogCapture()
        let logger = Logger(label: "migrator") { _ in LogCaptureHandler(capture: capture) }
        let queue = try DatabaseQueue(path: directory.path("app.db"), key: .passphrase("migrations"),
                                      configuration: Configuration(logger: logger))
        var version1 = DatabaseMigrator()
        Self.addVersion1(to: &version1)
        try version1.migrate(queue)
        return (queue, capture)
    }

    /// The schema and data as of v1, whatever v2 did before it failed.
    func expectVersion1(_ queue: DatabaseQueue, migrator: DatabaseMigrator, capture: LogCapture) throws {
        try queue.inDatabase { db in
            #expect(try migrator.appliedMigrations(db) == ["v1 tag"])
            #expect(try db.userVersion() == 0)
            #expect(try !db.tableExists("note"))
            #expect(try !db.tableExists("later"))
            #expect(try db.fetchAll(sql: "SELECT name FROM tag").map { try $0.value(String.self, at: 0) } == ["swift"])
            // The documented rule names the failing migration…
            let applied = try migrator.appliedMigrations(db)
            #expect(migrator.migrationNames.first { !applied.contains($0) } == "v2 note")
            // …and so does the log.
            #expect(capture.lines.contains { $0.contains("migration failed") && $0.contains("v2 note") })
            // Foreign keys are enforced again after the failure.
            #expect(try db.fetchScalar(Bool.self, sql: "PRAGMA foreign_keys") == true)
        }
    }

    @Test func constraintViolationInAMigrationIsCaughtByResultCodeAndRolledBack() throws {
        let directory = try TemporaryDirectory()
        let migrator = migrator { db in
            try db.execute(sql: "CREATE TABLE note(body TEXT)")
            try db.execute(sql: "INSERT INTO tag(name) VALUES ('swift')")
        }
        let (queue, capture) = try databaseAtVersion1(directory)

        var caughtByCode = false
        do {
            try migrator.migrate(queue)
        } catch ResultCode.SQLITE_CONSTRAINT {
            caughtByCode = true
        }
        #expect(caughtByCode)

        // The same failure, caught by type, keeps SQLite's code, message and statement.
        let wrapped = try #require(throws: MigrationError.self) { try migrator.migrate(queue) }
        let error = try #require(wrapped.underlyingError as? DatabaseError)
        #expect(error.resultCode.primaryResultCode == .SQLITE_CONSTRAINT)
        #expect(error.message?.contains("UNIQUE") == true)
        #expect(error.sql == "INSERT INTO tag(name) VALUES ('swift')")
        try expectVersion1(queue, migrator: migrator, capture: capture)
    }

    @Test func swiftErrorThrownByAMigrationComesWithTheMigrationsNameAndIsRolledBack() throws {
        let directory = try TemporaryDirectory()
        let migrator = migrator { db in
            try db.execute(sql: "CREATE TABLE note(body TEXT)")
            try db.execute(sql: "INSERT INTO note(body) VALUES ('half done')")
            throw BadSeedData(line: 42)
        }
        let (queue, capture) = try databaseAtVersion1(directory)

        #expect(throws: MigrationError.failedAndRestored(migration: "v2 note", underlying: BadSeedData(line: 42))) {
            try migrator.migrate(queue)
        }
        try expectVersion1(queue, migrator: migrator, capture: capture)
    }

    @Test func markingAnUnregisteredMigrationAppliedIsRefusedByName() throws {
        let directory = try TemporaryDirectory()
        let migrator = migrator { _ in }
        let queue = try DatabaseQueue(path: directory.path("app.db"), key: .passphrase("migrations"))
        #expect(throws: MigrationError.unregisteredMigration(name: "v9 typo")) {
            try queue.inDatabase { try migrator.markApplied(["v1 tag", "v9 typo"], in: $0) }
        }
        #expect(try queue.inDatabase { try migrator.appliedMigrations($0) }.isEmpty)
    }
}
