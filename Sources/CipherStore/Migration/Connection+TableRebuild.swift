extension Connection {
    /// Changes a table in a way SQLite 3.15.2 cannot do with `ALTER TABLE` (rename, drop or
    /// retype a column, change a constraint), by the full procedure: create the new table,
    /// copy the rows, drop the old table, rename the new one, recreate the table's indexes
    /// and triggers, keep its `sqlite_sequence` value, then check foreign keys. All in one
    /// savepoint: on any error nothing is changed.
    ///
    /// ```swift
    /// // Make Status.text NOT NULL, inside a migration:
    /// try db.rebuildTable("Status", as: """
    ///     CREATE TABLE Status(Id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT NOT NULL, user INTEGER REFERENCES User(Id))
    ///     """, copying: "Id, coalesce(text, ''), user")
    /// ```
    ///
    /// Foreign key enforcement must be off (it is, inside ``DatabaseMigrator`` migrations),
    /// since dropping the old table would otherwise delete or block the rows that refer to it.
    ///
    /// - Parameters:
    ///   - table: the table to change.
    ///   - createStatement: `CREATE TABLE <table>(…)` with the new definition, under the table's own name.
    ///   - selectList: the expressions, in the new table's column order, computed from the old table's columns.
    /// - Throws: ``DatabaseError``, or ``MigrationError/foreignKeyViolation(table:)``.
    public func rebuildTable(_ table: String, as createStatement: String, copying selectList: String) throws {
        guard try fetchScalar(Bool.self, sql: "PRAGMA foreign_keys") == false else {
            throw CipherStoreError.invalidConfiguration(reason: "rebuildTable needs foreign keys off (PRAGMA foreign_keys = OFF, outside any transaction); DatabaseMigrator does that for its migrations.")
        }
        let temporaryName = "cipherstore_rebuild_" + table
        let quotedTable = Self.quoteIdentifier(table)
        let quotedTemporary = Self.quoteIdentifier(temporaryName)
        // CREATE TABLE under the temporary name: replace the leading name, as written.
        guard let nameRange = createStatement.range(of: "(") else {
            throw CipherStoreError.invalidArguments(reason: "not a CREATE TABLE statement", sql: createStatement)
        }
        let createTemporary = "CREATE TABLE \(quotedTemporary) " + createStatement[nameRange.lowerBound...]
        try inSavepoint {
            let dependents = try fetchAll(
                sql: "SELECT sql FROM sqlite_master WHERE tbl_name = ? COLLATE NOCASE AND type IN ('index', 'trigger') AND sql IS NOT NULL",
                arguments: [table]).map { try $0.value(String.self, at: 0) }
            let hasSequence = try tableExists("sqlite_sequence")
            let sequence = hasSequence
                ? try fetchScalar(Int64.self, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [table]) : nil
            try execute(sql: createTemporary)
            try execute(sql: "INSERT INTO \(quotedTemporary) SELECT \(selectList) FROM \(quotedTable)")
            try execute(sql: "DROP TABLE \(quotedTable)")
            try execute(sql: "ALTER TABLE \(quotedTemporary) RENAME TO \(quotedTable)")
            for sql in dependents { try execute(sql: sql) }
            if let sequence {
                try execute(sql: "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", arguments: [sequence, table])
                if changesCount == 0, try tableExists("sqlite_sequence") {
                    try execute(sql: "INSERT INTO sqlite_sequence(name, seq) VALUES (?, ?)", arguments: [table, sequence])
                }
            }
            if let violation = try fetchOne(sql: "PRAGMA foreign_key_check") {
                throw MigrationError.foreignKeyViolation(table: try violation.value(String.self, at: 0))
            }
            return .commit
        }
    }
}
