/// Copies the main database of a connection into a database attached to it, as
/// `sqlcipher_export` does, but with every row's rowid kept.
///
/// `sqlcipher_export` copies each table with `INSERT INTO target.t SELECT * FROM main.t`, and
/// SQLite gives the copied rows new rowids (1, 2, 3 …) wherever no column holds the rowid and
/// the table has no index: anything that refers to rows by rowid (an FTS index with external
/// content, an app's own references) then points at other rows. Here such a table is copied
/// with its rowid named in the column list; a table whose rowid is a column
/// (`INTEGER PRIMARY KEY`) is copied as a whole, which lets SQLite move its records without
/// decoding them, and a `WITHOUT ROWID` table row by row (see ``copyStatement(for:into:)``).
///
/// The steps and their order are `sqlcipher_export`'s, on both SQLCipher versions: tables,
/// indexes, rows, `sqlite_sequence`, then views, triggers and virtual tables as schema
/// entries. Foreign keys are off on the exporting connection; CHECK constraints are not
/// evaluated (the rows passed them once); triggers do not exist yet when the rows arrive.
/// A table whose columns take all three names of the rowid is copied as a whole: SQL cannot
/// reach its rowids, so its rows get new ones, and ``run()`` names it.
struct DatabaseExport {
    let connection: Connection
    /// The attached database that receives the copy: new and empty.
    let target: String

    /// - Returns: the tables whose rowids could not be kept (columns named `rowid`, `_rowid_`
    ///   and `oid`).
    @discardableResult
    func run() throws -> [String] {
        let db = connection
        let target = Connection.quoteIdentifier(self.target)
        // Reserved `sqlite_` tables (sqlite_stat1) and the schema entries of views, triggers
        // and virtual tables are written as sqlcipher_export writes them: into the schema.
        try db.execute(sql: "PRAGMA writable_schema = ON")
        defer { try? db.execute(sql: "PRAGMA writable_schema = OFF") }
        try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
        defer { try? db.execute(sql: "PRAGMA ignore_check_constraints = OFF") }

        let tables = try db.fetchAll(sql: """
            SELECT name, sql FROM main.sqlite_master WHERE type = 'table' AND name != 'sqlite_sequence' AND rootpage > 0 ORDER BY rowid
            """).map { (name: try $0.value(String.self, at: 0), sql: try $0.value(String.self, at: 1)) }
        for table in tables {
            try db.execute(sql: qualified(table.sql, prefix: "CREATE TABLE ", schema: target))
        }
        for sql in try String.fetchAll(db, sql: "SELECT sql FROM main.sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY rowid") {
            let prefix = sql.hasPrefix("CREATE UNIQUE INDEX ") ? "CREATE UNIQUE INDEX " : "CREATE INDEX "
            try db.execute(sql: qualified(sql, prefix: prefix, schema: target))
        }
        var rowidsNotKept: [String] = []
        for table in tables {
            let shape = try TableShape.read(table.name, in: db)
            if shape.rowidName == nil, shape.rowidShadowed, !DatabaseSalvage.compactSQL(table.sql).hasSuffix("WITHOUTROWID") {
                rowidsNotKept.append(table.name)
            }
            try db.execute(sql: Self.copyStatement(for: shape, into: target))
        }
        if try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM \(target).sqlite_master WHERE name = 'sqlite_sequence'") == 1 {
            try db.execute(sql: "DELETE FROM \(target).sqlite_sequence")
            try db.execute(sql: "INSERT INTO \(target).sqlite_sequence SELECT * FROM main.sqlite_sequence")
        }
        try db.execute(sql: """
            INSERT INTO \(target).sqlite_master SELECT type, name, tbl_name, rootpage, sql FROM main.sqlite_master
            WHERE type = 'view' OR type = 'trigger' OR (type = 'table' AND rootpage = 0)
            """)
        return rowidsNotKept
    }

    /// `CREATE TABLE name(…)` as `CREATE TABLE target.name(…)`. SQLite stores every table's
    /// and index's statement with these first words, spelled so.
    private func qualified(_ sql: String, prefix: String, schema: String) throws -> String {
        guard sql.hasPrefix(prefix) else {
            throw DatabaseFileError.unreadableSchema(path: connection.location.displayName,
                                                   detail: "a schema entry does not start with '\(prefix)': \(sql.prefix(80))")
        }
        return prefix + schema + "." + sql.dropFirst(prefix.count)
    }

    /// The statement that copies one table's rows, rowids included.
    static func copyStatement(for table: TableShape, into target: String) -> String {
        let name = Connection.quoteIdentifier(table.name)
        if table.rowidName == nil, !table.rowidShadowed {
            // WITHOUT ROWID. Named columns: SQLite then inserts each row into the key's b-tree
            // under this process's collations, which checks that the keys are still unique
            // and in order; `SELECT *` would copy the records as they are, trusting the key's
            // collation by its name (integrity_check does not check such a key).
            let columns = table.columns.map(Connection.quoteIdentifier).joined(separator: ", ")
            return "INSERT INTO \(target).\(name)(\(columns)) SELECT \(columns) FROM main.\(name)"
        }
        guard let rowid = table.rowidName, !table.hasRowidAlias else {
            return "INSERT INTO \(target).\(name) SELECT * FROM main.\(name)"
        }
        let columns = ([rowid] + table.columns.map(Connection.quoteIdentifier)).joined(separator: ", ")
        return "INSERT INTO \(target).\(name)(\(columns)) SELECT \(columns) FROM main.\(name)"
    }
}
