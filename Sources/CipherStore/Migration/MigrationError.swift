/// Why the migrator refused to run, or why a migration was rolled back.
///
/// On a database file, a migration's own error (a ``DatabaseError`` for failed SQL, or any
/// error its block throws) comes wrapped in ``failedAndRestored(migration:underlying:)``,
/// which names the migration and says that the database was put back as it was before the
/// migrations ran; `catch ResultCode.SQLITE_CONSTRAINT` still matches the error inside. On an
/// in-memory database, the migration's error is rethrown unchanged.
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
    /// A migration threw, and the database file was put back, byte for byte, as it was
    /// before the migrations ran (see ``DatabaseMigrator``): `underlying` is the migration's
    /// own error.
    case failedAndRestored(migration: String, underlying: any Error)
    /// A migration threw, and putting the database back failed too: the snapshot is kept at
    /// `snapshotPath`, and the next run of the migrator puts it back before anything else.
    case failedAndNotRestored(migration: String, underlying: any Error, restoreError: String, snapshotPath: String)
    /// The snapshot taken before the migrations could not be written or read back, so no
    /// migration ran and the database was not changed.
    case snapshotFailed(path: String, reason: String)

    /// Compares cases and their names; errors inside are compared by their description.
    public static func == (lhs: MigrationError, rhs: MigrationError) -> Bool {
        lhs.description == rhs.description
    }

    /// The migration's own error, for ``failedAndRestored(migration:underlying:)`` and
    /// ``failedAndNotRestored(migration:underlying:restoreError:snapshotPath:)``.
    public var underlyingError: (any Error)? {
        switch self {
        case .failedAndRestored(_, let underlying), .failedAndNotRestored(_, let underlying, _, _): return underlying
        default: return nil
        }
    }

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
        case .failedAndRestored(let migration, let underlying):
            return "Migration '\(migration)' failed: \(underlying). The database was restored to its state before the migrations (byte for byte, from its snapshot). Fix the migration, then migrate again."
        case .failedAndNotRestored(let migration, let underlying, let restoreError, let snapshotPath):
            return "Migration '\(migration)' failed: \(underlying). Restoring the database from its snapshot failed too (\(restoreError)). The snapshot is kept at \(snapshotPath), and the next migrate puts it back before anything else: fix the cause (disk space, permissions), then migrate again."
        case .snapshotFailed(let path, let reason):
            return "The snapshot of the database could not be taken before the migrations (\(path): \(reason)), so no migration ran and the database was not changed. Free disk space or fix the directory's permissions, then migrate again."
        }
    }
}
