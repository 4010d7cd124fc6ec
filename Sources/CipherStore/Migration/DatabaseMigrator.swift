import Logging

/// Named, ordered schema migrations, each run once, recorded in the database itself.
///
/// ```swift
/// var migrator = DatabaseMigrator()
/// migrator.registerMigration("v1 notes") { db in
///     try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT)")
/// }
/// try migrator.migrate(queue)   // a DatabaseQueue or a DatabasePool
/// ```
///
/// In `async` code, `try await migrator.migrate(queue)` runs them without blocking the
/// task's thread.
///
/// Each migration runs in its own transaction with foreign key enforcement off, and commits
/// only when `PRAGMA foreign_key_check` finds no violation (so a migration may rebuild tables,
/// see ``Connection/rebuildTable(_:as:copying:)``). Applied migrations are listed, by name, in
/// the migrator's own table `cipherstore_migrations`. Running the migrator again does nothing;
/// a failing migration is rolled back entirely and its error is rethrown as it was (see
/// ``migrate(_:)-(Connection)``); a database that has migrations this app does not know (made
/// by a newer version) is refused.
///
/// ## `user_version` belongs to the app
///
/// The migrator never writes `PRAGMA user_version`: an app may keep its own schema version
/// there, and a migration may set it (`try db.execute(sql: "PRAGMA user_version = 3")`; it
/// commits or rolls back with the migration). Databases migrated by earlier versions of
/// CipherStore, which also counted applied migrations in `user_version`, are recognised by
/// their `cipherstore_migrations` table as before; their `user_version` is left as it is.
///
/// An app that already numbered its schema in `user_version` before it used the migrator
/// adopts that number once with ``migrate(_:adoptingUserVersion:)-(Connection,_)``: version
/// *n* stands for the first *n* registered migrations.
public struct DatabaseMigrator: Sendable {
    private var migrations: [(name: String, body: @Sendable (Connection) throws -> Void)] = []

    /// A migrator with no migrations yet.
    public init() {}

    /// Adds a migration after the ones registered before. Names must be unique.
    public mutating func registerMigration(_ name: String, _ body: @escaping @Sendable (Connection) throws -> Void) {
        precondition(!migrations.contains { $0.name == name }, "migration \(name) is registered twice")
        migrations.append((name, body))
    }

    /// The names of the registered migrations, in order.
    public var migrationNames: [String] { migrations.map(\.name) }

    /// Runs the migrations not yet applied, on the writing connection of a queue or pool.
    /// Blocks the calling thread.
    ///
    /// Errors are the same as for ``migrate(_:)-(Connection)``: the failing migration's own
    /// error, unchanged.
    @available(*, noasync, message: "this form blocks the thread: in async code, `try await` the async form; in top-level code, where Swift picks this form even after await, move the code into an async function")
    public func migrate(_ writer: any DatabaseWriter) throws {
        try writer.writeWithoutTransaction { try migrate($0) }
    }

    /// Runs the migrations not yet applied, on the writing connection of a queue or pool,
    /// after adopting the database's `user_version` when no migration is recorded yet. Blocks
    /// the calling thread. See ``migrate(_:adoptingUserVersion:)-(Connection,_)``.
    @available(*, noasync, message: "this form blocks the thread: in async code, `try await` the async form; in top-level code, where Swift picks this form even after await, move the code into an async function")
    public func migrate(_ writer: any DatabaseWriter, adoptingUserVersion: Bool) throws {
        try writer.writeWithoutTransaction { try migrate($0, adoptingUserVersion: adoptingUserVersion) }
    }

    /// Runs the migrations not yet applied, on the writing connection of a queue or pool,
    /// without blocking the caller's thread.
    ///
    /// ```swift
    /// try await migrator.migrate(pool)
    /// ```
    /// - Throws: `CancellationError` when the task is cancelled before the migrations start
    ///   (none runs then), and the errors of ``migrate(_:)-(Connection)``: the failing
    ///   migration's own error, unchanged. A task cancelled once they run lets them finish.
    public func migrate(_ writer: any DatabaseWriter) async throws {
        try await writer.writeWithoutTransaction { db in try self.migrate(db) }
    }

    /// Runs the migrations not yet applied, after adopting the database's `user_version` when
    /// no migration is recorded yet, without blocking the caller's thread. See
    /// ``migrate(_:adoptingUserVersion:)-(Connection,_)``.
    /// - Throws: `CancellationError` when the task is cancelled before the migrations start
    ///   (nothing is adopted or run then), and the errors of
    ///   ``migrate(_:adoptingUserVersion:)-(Connection,_)``.
    public func migrate(_ writer: any DatabaseWriter, adoptingUserVersion: Bool) async throws {
        try await writer.writeWithoutTransaction { db in try self.migrate(db, adoptingUserVersion: adoptingUserVersion) }
    }

    /// Runs the migrations not yet applied, after taking the database's `PRAGMA user_version`
    /// as the number of registered migrations it already has, when asked to and when no
    /// migration is recorded yet.
    ///
    /// For an app that numbered its schema in `user_version` (1, 2, 3…) before it used the
    /// migrator: register one migration per former version, in order, and adopt once.
    ///
    /// ```swift
    /// var migrator = DatabaseMigrator()
    /// migrator.registerMigration("v1 notes") { db in … }   // what version 1 created
    /// migrator.registerMigration("v2 tags") { db in … }    // what version 2 added
    /// migrator.registerMigration("v3 pins") { db in … }    // new
    /// // A database at user_version 2: v1 and v2 are marked as applied, only v3 runs.
    /// try migrator.migrate(queue, adoptingUserVersion: true)
    /// ```
    ///
    /// A `user_version` of 0, or a database that already lists applied migrations, adopts
    /// nothing: the list in `cipherstore_migrations` is what counts from then on. The migrator
    /// does not change `user_version`, now or later.
    ///
    /// - Parameters:
    ///   - db: the connection.
    ///   - adoptingUserVersion: whether to adopt `user_version`; `false` is ``migrate(_:)-(Connection)``.
    /// - Throws: ``MigrationError/userVersionBeyondMigrations(userVersion:registered:)`` when
    ///   `user_version` is larger than the number of registered migrations (nothing is marked
    ///   or run then), and the errors of ``migrate(_:)-(Connection)``.
    public func migrate(_ db: Connection, adoptingUserVersion: Bool) throws {
        if adoptingUserVersion {
            try adoptUserVersion(db)
        }
        try migrate(db)
    }

    /// Marks the first `user_version` migrations as applied when none is recorded yet.
    private func adoptUserVersion(_ db: Connection) throws {
        guard try appliedMigrations(db).isEmpty else { return }
        let userVersion = try db.userVersion()
        guard userVersion > 0 else { return }
        guard userVersion <= migrations.count else {
            throw MigrationError.userVersionBeyondMigrations(userVersion: userVersion, registered: migrations.count)
        }
        let adopted = migrations.prefix(userVersion).map(\.name)
        try markApplied(adopted, in: db)
        db.logger?.info("adopted user_version", metadata: ["userVersion": "\(userVersion)", "migrations": "\(adopted.joined(separator: ", "))"])
    }

    /// Runs the migrations not yet applied, in the order they were registered.
    ///
    /// A migration that fails is rolled back entirely, the migrations after it do not run, and
    /// **the error it threw is rethrown unchanged**, so a caller can catch it as it would
    /// outside a migration:
    ///
    /// ```swift
    /// do {
    ///     try migrator.migrate(queue)
    /// } catch ResultCode.SQLITE_CONSTRAINT {
    ///     // e.g. a new UNIQUE index that existing rows break
    /// } catch let error as DatabaseError {
    ///     print(error.resultCode, error.sql ?? "")
    /// }
    /// ```
    ///
    /// The error does not carry the failing migration's name. To know it, either read the
    /// connection's logger (``Configuration/logger``: one `error` message "migration failed"
    /// with the migration's name in the `migration` metadata), or apply the rule that the
    /// failing migration is the first of ``migrationNames`` that `appliedMigrations(_:)` does
    /// not list: migrations run in order and each one that succeeds is recorded before the next
    /// one starts.
    ///
    /// - Throws: the failing migration's error as it threw it: a ``DatabaseError`` for SQL that
    ///   failed, or any Swift error the migration's block threw; ``MigrationError`` when the
    ///   database was made by a newer app or a migration left a foreign key violation;
    ///   ``CipherStoreError/rollbackFailed(bodyError:rollbackError:)`` when even the rollback
    ///   failed. In every case but the last, the database keeps the schema and data it had
    ///   after the last migration that succeeded.
    public func migrate(_ db: Connection) throws {
        try migrate(db, through: migrations.count)
    }

    /// Runs the migrations not yet applied, up to and including `targetIdentifier`, in the
    /// order they were registered; the ones registered after it do not run. GRDB's spelling,
    /// for tests of a migration and for apps that migrate in stages.
    ///
    /// ```swift
    /// try migrator.migrate(db, upTo: "v2 tags")
    /// ```
    ///
    /// - Throws: ``MigrationError/unregisteredMigration(name:)`` for a name no migration has,
    ///   ``MigrationError/migratedBeyond(target:laterMigrations:)`` when the database already
    ///   has migrations registered after it (a migrator never goes back); in both cases
    ///   nothing runs. Otherwise the errors of ``migrate(_:)-(Connection)``.
    public func migrate(_ db: Connection, upTo targetIdentifier: String) throws {
        guard let target = migrations.firstIndex(where: { $0.name == targetIdentifier }) else {
            throw MigrationError.unregisteredMigration(name: targetIdentifier)
        }
        let applied = Set(try appliedMigrations(db))
        let later = migrations[(target + 1)...].map(\.name).filter(applied.contains)
        guard later.isEmpty else { throw MigrationError.migratedBeyond(target: targetIdentifier, laterMigrations: later) }
        try migrate(db, through: target + 1)
    }

    /// Runs the migrations not yet applied, up to and including `targetIdentifier`, on the
    /// writing connection of a queue or pool. Blocks the calling thread. See
    /// ``migrate(_:upTo:)-(Connection,_)``.
    @available(*, noasync, message: "this form blocks the thread: in async code, `try await` the async form; in top-level code, where Swift picks this form even after await, move the code into an async function")
    public func migrate(_ writer: any DatabaseWriter, upTo targetIdentifier: String) throws {
        try writer.writeWithoutTransaction { try migrate($0, upTo: targetIdentifier) }
    }

    /// Runs the migrations not yet applied, up to and including `targetIdentifier`, on the
    /// writing connection of a queue or pool, without blocking the caller's thread. See
    /// ``migrate(_:upTo:)-(Connection,_)``.
    public func migrate(_ writer: any DatabaseWriter, upTo targetIdentifier: String) async throws {
        try await writer.writeWithoutTransaction { db in try self.migrate(db, upTo: targetIdentifier) }
    }

    /// Runs the first `count` registered migrations that are not applied yet.
    private func migrate(_ db: Connection, through count: Int) throws {
        try Self.createLog(db)
        let applied = try appliedMigrations(db)
        let unknown = applied.filter { name in !migrations.contains { $0.name == name } }
        guard unknown.isEmpty else { throw MigrationError.databaseIsNewer(unknownMigrations: unknown) }
        let foreignKeysWereOn = try db.fetchScalar(Bool.self, sql: "PRAGMA foreign_keys") ?? false
        // foreign_keys cannot change inside a transaction: switch it off around each one.
        try db.execute(sql: "PRAGMA foreign_keys = OFF")
        defer { if foreignKeysWereOn { try? db.execute(sql: "PRAGMA foreign_keys = ON") } }
        for migration in migrations.prefix(count) where !applied.contains(migration.name) {
            do {
                try db.inTransaction(.immediate) {
                    try migration.body(db)
                    if let violation = try db.fetchOne(sql: "PRAGMA foreign_key_check") {
                        throw MigrationError.foreignKeyViolation(table: try violation.value(String.self, at: 0))
                    }
                    try db.execute(sql: "INSERT INTO cipherstore_migrations(name) VALUES (?)", arguments: [migration.name])
                    return .commit
                }
            } catch {
                // The error goes back unchanged (callers match it by type and result code);
                // the log is where the failing migration's name goes with it. Only the error's
                // type is logged: a migration's own error may hold anything.
                db.logger?.error("migration failed", metadata: ["migration": "\(migration.name)", "error": "\(type(of: error))"])
                throw error
            }
        }
    }

    /// Marks migrations as applied without running them: for a database whose schema an
    /// older app created by hand, exactly as those migrations would have. Leaves
    /// `user_version` as it is.
    /// - Throws: ``MigrationError/unregisteredMigration(name:)`` for a name no migration has
    ///   (nothing is marked then), or ``DatabaseError``.
    public func markApplied(_ names: [String], in db: Connection) throws {
        try Self.createLog(db)
        try db.inTransaction(.immediate) {
            for name in names {
                guard migrations.contains(where: { $0.name == name }) else {
                    throw MigrationError.unregisteredMigration(name: name)
                }
                try db.execute(sql: "INSERT OR IGNORE INTO cipherstore_migrations(name) VALUES (?)", arguments: [name])
            }
            return .commit
        }
    }

    /// The migrator's own table, which lists the migrations applied.
    private static func createLog(_ db: Connection) throws {
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS cipherstore_migrations(name TEXT PRIMARY KEY NOT NULL)")
    }

    /// The names of the migrations applied to the database of a queue or pool, in order. Reads
    /// only: a read-only queue, or a pool's reader, answers it. Blocks the calling thread.
    /// - Throws: the errors of the reader's `read`.
    @available(*, noasync, message: "this form blocks the thread: in async code, `try await` the async form; in top-level code, where Swift picks this form even after await, move the code into an async function")
    public func appliedMigrations(_ reader: any DatabaseReader) throws -> [String] {
        try reader.read { try appliedMigrations($0) }
    }

    /// The names of the migrations applied to the database of a queue or pool, in order,
    /// without blocking the caller's thread.
    /// - Throws: `CancellationError` when the task is cancelled before the read starts, and
    ///   the errors of the reader's `read`.
    public func appliedMigrations(_ reader: any DatabaseReader) async throws -> [String] {
        try await reader.read { db in try self.appliedMigrations(db) }
    }

    /// The names of the migrations applied to the database, in order; none when the migrator
    /// never ran on it. Reads only, so it runs inside `read` too.
    public func appliedMigrations(_ db: Connection) throws -> [String] {
        guard try db.tableExists("cipherstore_migrations") else { return [] }
        return try db.fetchAll(sql: "SELECT name FROM cipherstore_migrations ORDER BY rowid").map { try $0.value(String.self, at: 0) }
    }

    /// The applied migrations this migrator knows, in registration order. GRDB's spelling.
    public func completedMigrations(_ db: Connection) throws -> [String] {
        let applied = Set(try appliedMigrations(db))
        return migrations.map(\.name).filter(applied.contains)
    }

    /// Whether every registered migration is applied (and no unknown one): the database has
    /// the schema this app expects. GRDB's spelling; reads only.
    public func hasCompletedMigrations(_ db: Connection) throws -> Bool {
        let applied = try appliedMigrations(db)
        return Set(applied) == Set(migrations.map(\.name))
    }

    /// Whether the database has migrations this migrator does not know: a newer app made it,
    /// and ``migrate(_:)-(Connection)`` would refuse it. GRDB's spelling; reads only.
    public func hasBeenSuperseded(_ db: Connection) throws -> Bool {
        let known = Set(migrations.map(\.name))
        return try appliedMigrations(db).contains { !known.contains($0) }
    }
}
