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
/// a database that has migrations this app does not know (made by a newer version) is refused.
///
/// ## A snapshot before the migrations
///
/// Before pending migrations run on a database file, the migrator copies the file's raw bytes
/// to `NAME.migration-snapshot` beside it (mode 0600, synced, checked to open with the
/// database's key), and writes the marker `NAME.migration-in-progress`. A raw copy, because
/// under SQLCipher neither a rollback nor a backup gives back the same bytes: every page
/// written is encrypted with a fresh IV. The copy, and the restore, run while the writer holds
/// an exclusive transaction, after a WAL is checkpointed and emptied.
///
/// - When a migration throws, the file is put back byte for byte as it was before the
///   migrations (the ones that succeeded in this run are undone too), and
///   ``MigrationError/failedAndRestored(migration:underlying:)`` names the migration and
///   carries its error (see ``migrate(_:)-(Connection)``).
/// - When the process dies during a migration, the next run finds the snapshot with the
///   marker and puts the snapshot back before anything else.
/// - After success, the marker and the snapshot are removed; ``keepsSnapshotAfterMigration``
///   keeps the snapshot.
///
/// An in-memory database has no snapshot: a migration's error is rethrown unchanged, and the
/// migrations before it stay applied. On a ``DatabasePool``, migrations run with no read
/// running, so no reader keeps pages of a file the restore replaces. Other connections to the
/// file (other processes, or connections the app opened itself) must not read or write it
/// while the migrator runs.
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
    private var migrations: [(name: String, foreignKeyChecks: ForeignKeyChecks, body: @Sendable (Connection) throws -> Void)] = []

    /// Whether the snapshot taken before the migrations stays beside the database after they
    /// succeed, as `NAME.migration-snapshot` (a copy of the file before the last run of the
    /// migrator, still encrypted with the database's key). `false` by default: it is removed.
    /// A kept snapshot is replaced by the next run that has migrations to apply.
    public var keepsSnapshotAfterMigration = false

    /// For development: when the database lists applied migrations that this migrator does
    /// not register (a migration was renamed, or removed), the database is erased and every
    /// migration runs again, instead of ``MigrationError/databaseIsNewer(unknownMigrations:)``.
    /// GRDB's spelling.
    ///
    /// GRDB also notices a migration whose body was edited, by migrating a temporary copy and
    /// comparing schemas; this migrator compares names only: after editing a migration's body,
    /// rename it too. Erasing drops every table, index, view and trigger and sets
    /// `user_version` to 0; it runs under the snapshot like a migration, so a migration that
    /// then fails puts the database back as it was before the erase. Never set it in a build
    /// that ships: data a user has is lost.
    public var eraseDatabaseOnSchemaChange = false

    /// A migrator with no migrations yet.
    public init() {}

    /// When a migration's foreign keys are checked, in GRDB's spelling.
    public enum ForeignKeyChecks: Sendable {
        /// Enforcement off while the migration runs, and every foreign key checked before it
        /// commits (``MigrationError/foreignKeyViolation(table:)`` rolls it back): a migration
        /// may rebuild tables in any order. The default.
        case deferred
        /// Enforced by SQLite at each statement, as the connection's configuration has it
        /// (``Configuration/foreignKeys``), and checked again before the migration
        /// commits: a violation fails the statement that makes it.
        case immediate
    }

    /// Adds a migration after the ones registered before. Names must be unique.
    /// - Parameters:
    ///   - name: the migration's name, recorded in the database once it has run.
    ///   - foreignKeyChecks: ``ForeignKeyChecks/deferred`` by default, as in GRDB.
    ///   - body: the migration, run in its own transaction.
    public mutating func registerMigration(_ name: String, foreignKeyChecks: ForeignKeyChecks = .deferred,
                                           _ body: @escaping @Sendable (Connection) throws -> Void) {
        precondition(!migrations.contains { $0.name == name }, "migration \(name) is registered twice")
        migrations.append((name, foreignKeyChecks, body))
    }

    /// The names of the registered migrations, in order.
    public var migrationNames: [String] { migrations.map(\.name) }

    /// Runs the migrations not yet applied, on the writing connection of a queue or pool.
    /// Blocks the calling thread.
    ///
    /// Errors are the same as for ``migrate(_:)-(Connection)``.
    @available(*, noasync, message: "this form blocks the thread: in async code, `try await` the async form; in top-level code, where Swift picks this form even after await, move the code into an async function")
    public func migrate(_ writer: any DatabaseWriter) throws {
        try onWriter(writer) { try migrate($0) }
    }

    /// Runs the migrations not yet applied, on the writing connection of a queue or pool,
    /// after adopting the database's `user_version` when no migration is recorded yet. Blocks
    /// the calling thread. See ``migrate(_:adoptingUserVersion:)-(Connection,_)``.
    @available(*, noasync, message: "this form blocks the thread: in async code, `try await` the async form; in top-level code, where Swift picks this form even after await, move the code into an async function")
    public func migrate(_ writer: any DatabaseWriter, adoptingUserVersion: Bool) throws {
        try onWriter(writer) { try migrate($0, adoptingUserVersion: adoptingUserVersion) }
    }

    /// Runs the migrations not yet applied, on the writing connection of a queue or pool,
    /// without blocking the caller's thread.
    ///
    /// ```swift
    /// try await migrator.migrate(pool)
    /// ```
    /// - Throws: `CancellationError` when the task is cancelled before the migrations start
    ///   (none runs then), and the errors of ``migrate(_:)-(Connection)``. A task cancelled
    ///   while they run interrupts the running migration, whose failure restores the snapshot.
    public func migrate(_ writer: any DatabaseWriter) async throws {
        try await onWriter(writer) { db in try self.migrate(db) }
    }

    /// Runs the migrations not yet applied, after adopting the database's `user_version` when
    /// no migration is recorded yet, without blocking the caller's thread. See
    /// ``migrate(_:adoptingUserVersion:)-(Connection,_)``.
    /// - Throws: `CancellationError` when the task is cancelled before the migrations start
    ///   (nothing is adopted or run then), and the errors of
    ///   ``migrate(_:adoptingUserVersion:)-(Connection,_)``.
    public func migrate(_ writer: any DatabaseWriter, adoptingUserVersion: Bool) async throws {
        try await onWriter(writer) { db in try self.migrate(db, adoptingUserVersion: adoptingUserVersion) }
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
    /// On a database file, a migration that fails puts the file back as it was before the
    /// migrations (see ``DatabaseMigrator``), the migrations after it do not run, and its error
    /// comes wrapped in ``MigrationError/failedAndRestored(migration:underlying:)``, which names
    /// the migration. Result-code patterns still match the error inside:
    ///
    /// ```swift
    /// do {
    ///     try migrator.migrate(queue)
    /// } catch ResultCode.SQLITE_CONSTRAINT {
    ///     // e.g. a new UNIQUE index that existing rows break
    /// } catch MigrationError.failedAndRestored(let migration, let underlying) {
    ///     print("\(migration) failed (\(underlying)); the database is as it was")
    /// }
    /// ```
    ///
    /// The connection's logger (``Configuration/logger``) also gets one `error` message
    /// "migration failed" with the migration's name in the `migration` metadata.
    ///
    /// - Throws: ``MigrationError/failedAndRestored(migration:underlying:)`` for a migration
    ///   that failed on a file (a ``DatabaseError`` for SQL that failed, any Swift error its
    ///   block threw, or ``MigrationError/foreignKeyViolation(table:)`` inside);
    ///   ``MigrationError/failedAndNotRestored(migration:underlying:restoreError:snapshotPath:)``
    ///   when the restore failed too (the next run retries it);
    ///   ``MigrationError/snapshotFailed(path:reason:)`` when the snapshot could not be taken
    ///   (nothing ran); ``MigrationError/databaseIsNewer(unknownMigrations:)`` for a database
    ///   made by a newer app. On an in-memory database, the failing migration's error as it
    ///   threw it, and the migrations before it stay applied.
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
        try onWriter(writer) { try migrate($0, upTo: targetIdentifier) }
    }

    /// Runs the migrations not yet applied, up to and including `targetIdentifier`, on the
    /// writing connection of a queue or pool, without blocking the caller's thread. See
    /// ``migrate(_:upTo:)-(Connection,_)``.
    public func migrate(_ writer: any DatabaseWriter, upTo targetIdentifier: String) async throws {
        try await onWriter(writer) { db in try self.migrate(db, upTo: targetIdentifier) }
    }

    /// Runs the first `count` registered migrations that are not applied yet, under the
    /// snapshot of a database file (see ``MigrationSnapshot``).
    private func migrate(_ db: Connection, through count: Int) throws {
        let snapshot = MigrationSnapshot(for: db)
        if let snapshot {
            _ = try snapshot.recoverInterruptedMigration(db, keepingSnapshot: keepsSnapshotAfterMigration)
        }
        var applied = try appliedMigrations(db)
        let unknown = applied.filter { name in !migrations.contains { $0.name == name } }
        let erases = eraseDatabaseOnSchemaChange && !unknown.isEmpty
        guard unknown.isEmpty || erases else { throw MigrationError.databaseIsNewer(unknownMigrations: unknown) }
        if erases { applied = [] }
        let pending = migrations.prefix(count).filter { !applied.contains($0.name) }
        guard !pending.isEmpty || erases else {
            try Self.createLog(db)
            return
        }
        // Taken before anything is written, the log table included: what a failure restores.
        try snapshot?.take(db)
        do {
            if erases { try Self.erase(db, unknownMigrations: unknown) }
            try Self.createLog(db)
            try run(pending, on: db)
        } catch {
            guard let snapshot else { throw error }
            let failed = (error as? FailedMigration)?.name ?? "(before the first migration)"
            let underlying = (error as? FailedMigration)?.error ?? error
            do {
                try db.ignoringInterrupts { try snapshot.restore(db) }
            } catch let restoreError {
                throw MigrationError.failedAndNotRestored(migration: failed, underlying: underlying,
                                                          restoreError: "\(restoreError)", snapshotPath: snapshot.path)
            }
            throw MigrationError.failedAndRestored(migration: failed, underlying: underlying)
        }
        try snapshot?.finish(keepingSnapshot: keepsSnapshotAfterMigration)
    }

    /// A migration's error, with the migration's name, on its way to the snapshot's restore.
    private struct FailedMigration: Error {
        let name: String
        let error: any Error
    }

    /// Runs migrations in order, each in its own transaction.
    /// - Throws: the failing migration's error, unchanged for an in-memory database, as a
    ///   ``FailedMigration`` for a file (which the snapshot's restore turns into a
    ///   ``MigrationError``).
    private func run(_ pending: [(name: String, foreignKeyChecks: ForeignKeyChecks, body: @Sendable (Connection) throws -> Void)], on db: Connection) throws {
        let foreignKeysWereOn = try db.fetchScalar(Bool.self, sql: "PRAGMA foreign_keys") ?? false
        // foreign_keys cannot change inside a transaction: switch it off around each one.
        try db.execute(sql: "PRAGMA foreign_keys = OFF")
        defer { if foreignKeysWereOn { try? db.execute(sql: "PRAGMA foreign_keys = ON") } }
        let wrapsErrors = MigrationSnapshot(for: db) != nil
        for migration in pending {
            do {
                // foreign_keys cannot change inside a transaction: set before each one.
                try db.execute(sql: migration.foreignKeyChecks == .immediate && foreignKeysWereOn ? "PRAGMA foreign_keys = ON" : "PRAGMA foreign_keys = OFF")
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
                throw wrapsErrors ? FailedMigration(name: migration.name, error: error) : error
            }
        }
    }

    /// Drops every table, index, view and trigger, and sets `user_version` to 0, in one
    /// transaction (``eraseDatabaseOnSchemaChange``).
    private static func erase(_ db: Connection, unknownMigrations: [String]) throws {
        db.logger?.warning("erasing the database: applied migrations are not registered",
                           metadata: ["migrations": "\(unknownMigrations.joined(separator: ", "))"])
        try db.execute(sql: "PRAGMA foreign_keys = OFF")
        try db.inTransaction(.immediate) {
            let objects = try db.fetchAll(sql: "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND type IN ('view', 'trigger', 'table') ORDER BY type = 'table'")
            for object in objects {
                let type = try object.value(String.self, at: 0)
                let name = Connection.quoteIdentifier(try object.value(String.self, at: 1))
                // Dropping a table drops its indexes and triggers: they may be gone already.
                try db.execute(sql: "DROP \(type.uppercased()) IF EXISTS \(name)")
            }
            if try db.tableExists("sqlite_sequence") { try db.execute(sql: "DELETE FROM sqlite_sequence") }
            try db.execute(sql: "PRAGMA user_version = 0")
            return .commit
        }
    }

    /// Runs `body` on the writer of a queue, or on a pool's writer with no read running (so no
    /// reader keeps pages of a file the snapshot's restore replaces).
    private func onWriter(_ writer: any DatabaseWriter, _ body: (Connection) throws -> Void) throws {
        if let pool = writer as? DatabasePool {
            try pool.barrierWrite(body)
        } else {
            try writer.writeWithoutTransaction(body)
        }
    }

    /// The same as the blocking form, without blocking the caller's thread.
    private func onWriter(_ writer: any DatabaseWriter, _ body: @escaping @Sendable (Connection) throws -> Void) async throws {
        if let pool = writer as? DatabasePool {
            try await pool.barrierWrite(body)
        } else {
            try await writer.writeWithoutTransaction(body)
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

    /// Whether the last registered migration is applied, as GRDB answers it: `true` also for
    /// a database that has migrations this migrator does not know (see
    /// ``hasBeenSuperseded(_:)``). Reads only.
    public func hasCompletedMigrations(_ db: Connection) throws -> Bool {
        guard let last = migrations.last?.name else { return true }
        return try appliedMigrations(db).contains(last)
    }

    /// Whether the database has migrations this migrator does not know: a newer app made it,
    /// and ``migrate(_:)-(Connection)`` would refuse it. GRDB's spelling; reads only.
    public func hasBeenSuperseded(_ db: Connection) throws -> Bool {
        let known = Set(migrations.map(\.name))
        return try appliedMigrations(db).contains { !known.contains($0) }
    }
}
