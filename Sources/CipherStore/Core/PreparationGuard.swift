import CSQLCipher

/// What a whole-file operation's connection allows while the app's preparation runs on it
/// (``DatabaseFileOptions/prepareDatabase(_:)``): adding functions and collations, reading,
/// and temporary objects, but nothing that changes a file, so that an app's own preparation,
/// written for its connections, can be reused on the files a backup, a repair or a rewrite
/// reads and writes.
enum PreparationGuard {
    /// The message of the `SQLITE_AUTH` error a refused statement gets.
    static let refusal = "a whole-file operation's prepareDatabase may add functions and collations, read, and make temporary tables and triggers, but not change a file: writes and schema changes outside temp, ATTACH, DETACH, VACUUM and REINDEX are refused here"

    /// What the authorizer answers for `action` while a preparation runs: `SQLITE_OK`,
    /// `SQLITE_DENY` for what would change a file, or `SQLITE_IGNORE` for a pragma that would
    /// change a setting of the operation's own (it then does nothing, as it says nothing).
    static func answer(action: Int32, name: UnsafePointer<CChar>?, detail: UnsafePointer<CChar>?,
                       database: UnsafePointer<CChar>?, trigger: UnsafePointer<CChar>?) -> Int32 {
        switch action {
        case SQLITE_SELECT, SQLITE_READ, SQLITE_FUNCTION, SQLITE_TRANSACTION, SQLITE_SAVEPOINT, SQLITE_RECURSIVE,
             SQLITE_CREATE_TEMP_TABLE, SQLITE_CREATE_TEMP_INDEX, SQLITE_CREATE_TEMP_TRIGGER, SQLITE_CREATE_TEMP_VIEW,
             SQLITE_DROP_TEMP_TABLE, SQLITE_DROP_TEMP_INDEX, SQLITE_DROP_TEMP_TRIGGER, SQLITE_DROP_TEMP_VIEW:
            return SQLITE_OK
        case SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE:
            // Rows of temporary tables; the body of a temporary trigger (dropped before the
            // operation writes, and no write of the preparation's own can fire one); and the
            // schema table's row of a temporary object being created (SQL cannot write that table
            // itself without `writable_schema`, a setting refused here; a table in `main` is
            // refused at its own CREATE).
            if trigger != nil { return SQLITE_OK }
            if let name, sqlite3_stricmp(name, "sqlite_master") == 0 || sqlite3_stricmp(name, "sqlite_temp_master") == 0 { return SQLITE_OK }
            guard let database, sqlite3_stricmp(database, "temp") == 0 else { return SQLITE_DENY }
            return SQLITE_OK
        case SQLITE_PRAGMA:
            guard let name else { return SQLITE_IGNORE }
            let pragma = String(cString: name).lowercased()
            if detail == nil { return writesWithoutValue.contains(pragma) ? SQLITE_IGNORE : SQLITE_OK }
            return connectionOnlySettings.contains(pragma) ? SQLITE_OK : SQLITE_IGNORE
        default:
            // Schema changes outside temp, ATTACH, DETACH, ALTER, REINDEX, ANALYZE, virtual tables.
            return SQLITE_DENY
        }
    }

    /// Pragmas that write though they are given no value.
    private static let writesWithoutValue: Set<String> = ["wal_checkpoint", "incremental_vacuum", "optimize"]

    /// Settings that change how this connection waits or reads, not what it writes nor what the
    /// operation checks: an app's preparation may set them. Any other setting (a journal mode,
    /// `query_only`, `user_version`, `foreign_keys`, `synchronous`…) is left to the operation.
    private static let connectionOnlySettings: Set<String> = [
        "busy_timeout", "cache_size", "cache_spill", "mmap_size", "threads", "automatic_index", "case_sensitive_like",
    ]
}
