import CSQLCipher

/// SQL features newer than SQLite 3.15.2 (SQLCipher 3.4.1) that the library uses where the
/// linked SQLite has them, with a clear error where it has not.
enum SQLiteFeature {
    /// `RETURNING` (SQLite 3.35), with `ON CONFLICT DO UPDATE` without a target.
    case returning
    /// `ALTER TABLE … RENAME COLUMN` (SQLite 3.25).
    case renameColumn
    /// `ALTER TABLE … DROP COLUMN` (SQLite 3.35).
    case dropColumn
    /// `GENERATED ALWAYS AS (…)` columns (SQLite 3.31).
    case generatedColumns
    /// `STRICT` tables (SQLite 3.37).
    case strictTables

    var minimumVersion: (number: Int32, text: String) {
        switch self {
        case .returning, .dropColumn: return (3_035_000, "3.35")
        case .renameColumn: return (3_025_000, "3.25")
        case .generatedColumns: return (3_031_000, "3.31")
        case .strictTables: return (3_037_000, "3.37")
        }
    }

    /// The SQL the feature is, and what works on every version instead.
    private var explanation: (sql: String, advice: String) {
        switch self {
        case .returning: return ("RETURNING", "Use save(_:) (update, else insert), which works on every version")
        case .renameColumn: return ("ALTER TABLE … RENAME COLUMN", "Rebuild the table with the new name with Connection.rebuildTable(_:as:copying:)")
        case .dropColumn: return ("ALTER TABLE … DROP COLUMN", "Rebuild the table without the column with Connection.rebuildTable(_:as:copying:)")
        case .generatedColumns: return ("GENERATED ALWAYS AS", "Compute the value in the query, a view or the app")
        case .strictTables: return ("STRICT", "Leave out .strict: CHECK (typeof(column) = '…') constraints enforce types on every version")
        }
    }

    /// Throws when the linked SQLite is older than the feature.
    func require(_ operation: String) throws {
        guard sqlite3_libversion_number() < minimumVersion.number else { return }
        throw DatabaseError(resultCode: .SQLITE_ERROR,
                            message: "\(operation) needs SQLite \(minimumVersion.text) or newer (\(explanation.sql)), and the linked SQLCipher \(SQLCipherLibrary.sqlcipherVersion ?? "?") is SQLite \(SQLCipherLibrary.sqliteVersion); nothing was written. \(explanation.advice), or link SQLCipher 4.")
    }
}
