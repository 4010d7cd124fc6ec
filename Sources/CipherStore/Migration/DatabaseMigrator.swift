/// Named, ordered schema migrations, each run once, recorded in the database itself.
///
/// ```swift
/// var migrator = DatabaseMigrator()
/// migrator.registerMigration("v1 notes") { db in
///     try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT)")
/// }
/// try migrator.migrate(queue)
/// ```
///
/// Each migration runs in its own transaction with foreign key enforcement off, and commits
/// only when `PRAGMA foreign_key_check` finds no violation (so a migration may rebuild tables,
/// see ``Connection/rebuildTable(_:as:copying:)``). Applied migrations are listed in the table
/// `cipherstore_migrations` and counted in `PRAGMA user_version`. Running the migrator again
/// does nothing; a failing migration is rolled back entirely and reported by name; a database
/// that has migrations this app does not know (made by a newer version) is refused.
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

    /// Runs the migrations not yet applied, through the queue.
    public func migrate(_ queue: DatabaseQueue) throws {
        try queue.inDatabase { try migrate($0) }
    }

    /// Runs the migrations not yet applied.
    /// - Throws: ``MigrationError``.
    public func migrate(_ db: Connection) throws {
        let applied = try appliedMigrations(db)
        let unknown = applied.filter { name in !migrations.contains { $0.name == name } }
        guard unknown.isEmpty else { throw MigrationError.databaseIsNewer(unknownMigrations: unknown) }
        let foreignKeysWereOn = try db.fetchScalar(Bool.self, sql: "PRAGMA foreign_keys") ?? false
        // foreign_keys cannot change inside a transaction: switch it off around each one.
        try db.execute(sql: "PRAGMA foreign_keys = OFF")
        defer { if foreignKeysWereOn { try? db.execute(sql: "PRAGMA foreign_keys = ON") } }
        for (position, migration) in migrations.enumerated() where !applied.contains(migration.name) {
            do {
                try db.inTransaction(.immediate) {
                    try migration.body(db)
                    if let violation = try db.fetchOne(sql: "PRAGMA foreign_key_check") {
                        throw MigrationError.foreignKeyViolation(table: try violation.value(String.self, at: 0))
                    }
                    try db.execute(sql: "INSERT INTO cipherstore_migrations(name) VALUES (?)", arguments: [migration.name])
                    try db.execute(sql: "PRAGMA user_version = \(position + 1)")
                    return .commit
                }
            } catch {
                throw MigrationError.migrationFailed(name: migration.name, reason: String(describing: error))
            }
        }
    }

    /// Marks migrations as applied without running them: for a database whose schema an
    /// older app created by hand, exactly as those migrations would have.
    public func markApplied(_ names: [String], in db: Connection) throws {
        _ = try appliedMigrations(db)
        try db.inTransaction(.immediate) {
            for name in names {
                guard let position = migrations.firstIndex(where: { $0.name == name }) else {
                    throw MigrationError.migrationFailed(name: name, reason: "no such migration is registered")
                }
                try db.execute(sql: "INSERT OR IGNORE INTO cipherstore_migrations(name) VALUES (?)", arguments: [name])
                try db.execute(sql: "PRAGMA user_version = \(position + 1)")
            }
            return .commit
        }
    }

    /// The names of the migrations applied to the database, in order.
    public func appliedMigrations(_ db: Connection) throws -> [String] {
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS cipherstore_migrations(name TEXT PRIMARY KEY NOT NULL)")
        return try db.fetchAll(sql: "SELECT name FROM cipherstore_migrations ORDER BY rowid").map { try $0.value(String.self, at: 0) }
    }
}

/// Why a migration did not happen. The database keeps its state from before that migration.
public enum MigrationError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The database has migrations this app does not know: a newer app made it.
    case databaseIsNewer(unknownMigrations: [String])
    /// A migration failed and was rolled back.
    case migrationFailed(name: String, reason: String)
    /// A migration left rows that break a foreign key.
    case foreignKeyViolation(table: String)

    public var description: String {
        switch self {
        case .databaseIsNewer(let unknown):
            return "The database was migrated by a newer version of the app (unknown migrations: \(unknown.joined(separator: ", "))). Update the app; the database was not changed."
        case .migrationFailed(let name, let reason):
            return "Migration '\(name)' failed and was rolled back: \(reason). The database is as it was before it; fix the migration and retry."
        case .foreignKeyViolation(let table):
            return "The migration left rows in \(table) that break a foreign key."
        }
    }
}
