/// Why the migrator refused to run, or why a migration was rolled back.
///
/// A migration's own errors (a ``DatabaseError`` for failed SQL, or any error its block
/// throws) are not wrapped in this type: ``DatabaseMigrator/migrate(_:)-(Connection)``
/// rethrows them unchanged.
public enum MigrationError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The database has migrations this app does not know: a newer app made it.
    case databaseIsNewer(unknownMigrations: [String])
    /// A migration (or a table rebuild) left rows that break a foreign key; it was rolled back.
    case foreignKeyViolation(table: String)
    /// ``DatabaseMigrator/markApplied(_:in:)`` was given a name no registered migration has.
    case unregisteredMigration(name: String)
    /// ``DatabaseMigrator/migrate(_:adoptingUserVersion:)-(Connection,_)`` found a
    /// `user_version` larger than the number of registered migrations.
    case userVersionBeyondMigrations(userVersion: Int, registered: Int)
    /// ``DatabaseMigrator/migrate(_:upTo:)-(Connection,_)`` was asked to stop at a migration,
    /// and the database already has migrations registered after it.
    case migratedBeyond(target: String, laterMigrations: [String])

    public var description: String {
        switch self {
        case .databaseIsNewer(let unknown):
            return "The database was migrated by a newer version of the app (unknown migrations: \(unknown.joined(separator: ", "))). Update the app; the database was not changed."
        case .foreignKeyViolation(let table):
            return "The migration left rows in \(table) that break a foreign key, so it was rolled back: the database is as it was before it. Fix the migration or the data so that `PRAGMA foreign_key_check` finds nothing, then retry."
        case .unregisteredMigration(let name):
            return "No migration named '\(name)' is registered, so nothing was marked as applied. Register it with registerMigration(_:_:) first, or check the name's spelling."
        case .userVersionBeyondMigrations(let userVersion, let registered):
            return "The database's user_version is \(userVersion), but only \(registered) migrations are registered, so there is nothing to adopt it as. Register one migration per former schema version (in order), or migrate without adopting user_version; the database was not changed."
        case .migratedBeyond(let target, let later):
            return "The database is already migrated beyond '\(target)' (it has \(later.joined(separator: ", "))), and a migrator never undoes a migration; nothing was run. Migrate up to a later migration, or start from a database that is not that far along."
        }
    }
}
