/// Tables and indexes made, changed and dropped without writing SQL, in GRDB's spelling, so
/// that a GRDB app's migrations move over as they are:
///
/// ```swift
/// migrator.registerMigration("v1") { db in
///     try db.create(table: "author") { t in
///         t.autoIncrementedPrimaryKey("id")
///         t.column("name", .text).notNull()
///     }
///     try db.create(table: "book") { t in
///         t.autoIncrementedPrimaryKey("id")
///         t.column("authorId", .integer).notNull().indexed().references("author", onDelete: .cascade)
///         t.column("title", .text).notNull()
///     }
/// }
/// migrator.registerMigration("v2") { db in
///     try db.alter(table: "book") { t in t.add(column: "year", .integer) }
/// }
/// ```
///
/// A `create(table:)` with indexed columns runs its statements in a savepoint: the table and
/// its indexes are made together, or not at all.
extension Connection {
    /// `CREATE TABLE`, with an index for each `indexed()` column (`table_on_column`).
    /// - Throws: ``DatabaseError`` (the table exists, a column is defined twice…); nothing is
    ///   created then.
    public func create(table name: String, options: TableOptions = [], body: (TableDefinition) throws -> Void) throws {
        let table = TableDefinition(name: name, options: options)
        try body(table)
        try table.checkFeatures()
        // IF NOT EXISTS on an existing table changes nothing: its indexes would name columns it
        // may not have (SQLite reads a missing "column" in an index as a string).
        if options.contains(.ifNotExists), try tableExists(name, in: options.contains(.temporary) ? "temp" : "main") { return }
        let statements = try table.statements(self)
        let indexes = table.columns.filter(\.isIndexed).map { column in
            Self.indexStatement(table: name, column: column.name, ifNotExists: options.contains(.ifNotExists))
        } + statements.indexes
        guard !indexes.isEmpty else { return try execute(sql: statements.table) }
        try inSavepoint {
            try execute(sql: statements.table)
            for index in indexes { try execute(sql: index) }
            return .commit
        }
    }

    /// The index `indexed()` asks for: `CREATE INDEX "table_on_column" ON "table"("column")`.
    static func indexStatement(table: String, column: String, ifNotExists: Bool = false) -> String {
        "CREATE INDEX " + (ifNotExists ? "IF NOT EXISTS " : "") + quoteIdentifier(table + "_on_" + column)
            + " ON " + quoteIdentifier(table) + "(" + quoteIdentifier(column) + ")"
    }

    /// `CREATE TABLE` with GRDB's boolean options.
    @_disfavoredOverload
    public func create(table name: String, temporary: Bool = false, ifNotExists: Bool = false, withoutRowID: Bool = false,
                       body: (TableDefinition) throws -> Void) throws {
        var options: TableOptions = []
        if temporary { options.insert(.temporary) }
        if ifNotExists { options.insert(.ifNotExists) }
        if withoutRowID { options.insert(.withoutRowID) }
        try create(table: name, options: options, body: body)
    }

    /// `CREATE INDEX` on columns of a table; `condition` makes a partial index
    /// (`WHERE …`, its values written into the schema).
    public func create(index name: String, on table: String, columns: [String], options: IndexOptions = [],
                       condition: (some SQLSpecificExpressible)? = SQLExpression?.none) throws {
        var sql = "CREATE " + (options.contains(.unique) ? "UNIQUE " : "") + "INDEX "
        if options.contains(.ifNotExists) { sql += "IF NOT EXISTS " }
        sql += Connection.quoteIdentifier(name) + " ON " + Connection.quoteIdentifier(table) + "(" + TableDefinition.quoted(columns) + ")"
        if let condition { sql += " WHERE " + SQLLiteralRendering.render(condition.sqlExpression) }
        try execute(sql: sql)
    }

    /// `CREATE INDEX` with GRDB's boolean options.
    @_disfavoredOverload
    public func create(index name: String, on table: String, columns: [String], unique: Bool = false, ifNotExists: Bool = false) throws {
        var options: IndexOptions = []
        if unique { options.insert(.unique) }
        if ifNotExists { options.insert(.ifNotExists) }
        try create(index: name, on: table, columns: columns, options: options)
    }

    /// `ALTER TABLE … RENAME TO`.
    public func rename(table name: String, to newName: String) throws {
        try execute(sql: "ALTER TABLE " + Connection.quoteIdentifier(name) + " RENAME TO " + Connection.quoteIdentifier(newName))
    }

    /// `ALTER TABLE`: columns added, renamed or dropped, one statement each, in a savepoint;
    /// an added column marked `indexed()` gets its index (`table_on_column`) in the same savepoint.
    /// Renaming needs SQLite 3.25 and dropping 3.35 (SQLCipher 4): on SQLCipher 3.4.1 they
    /// throw a ``DatabaseError`` that names the version, and nothing changes.
    public func alter(table name: String, body: (TableAlteration) throws -> Void) throws {
        let alteration = TableAlteration(table: name)
        try body(alteration)
        try alteration.checkFeatures()
        try inSavepoint {
            for statement in alteration.statements { try execute(sql: statement) }
            return .commit
        }
    }

    /// `DROP TABLE`.
    public func drop(table name: String) throws {
        try execute(sql: "DROP TABLE " + Connection.quoteIdentifier(name))
    }

    /// `DROP INDEX`.
    public func drop(index name: String) throws {
        try execute(sql: "DROP INDEX " + Connection.quoteIdentifier(name))
    }
}

/// The changes of ``Connection/alter(table:body:)``.
public final class TableAlteration {
    let table: String
    private var changes: [Change] = []

    private enum Change {
        case add(ColumnDefinition)
        case rename(String, String)
        case drop(String)
    }

    init(table: String) {
        self.table = table
    }

    /// `ADD COLUMN`; its constraints follow (SQLite refuses a primary key or a unique column
    /// here, and a `NOT NULL` column without a default).
    @discardableResult
    public func add(column name: String, _ type: Connection.ColumnType? = nil) -> ColumnDefinition {
        let column = ColumnDefinition(name: name, type: type)
        changes.append(.add(column))
        return column
    }

    /// `RENAME COLUMN` (SQLite 3.25: SQLCipher 4).
    public func rename(column name: String, to newName: String) {
        changes.append(.rename(name, newName))
    }

    /// `DROP COLUMN` (SQLite 3.35: SQLCipher 4).
    public func drop(column name: String) {
        changes.append(.drop(name))
    }

    func checkFeatures() throws {
        for change in changes {
            switch change {
            case .add(let column):
                if column.isGenerated { try SQLiteFeature.generatedColumns.require("alter(table:) adding a generated column") }
            case .rename: try SQLiteFeature.renameColumn.require("alter(table:) renaming a column")
            case .drop: try SQLiteFeature.dropColumn.require("alter(table:) dropping a column")
            }
        }
    }

    var statements: [String] {
        let prefix = "ALTER TABLE " + Connection.quoteIdentifier(table)
        return changes.flatMap { change in
            switch change {
            case .add(let column):
                let add = prefix + " ADD COLUMN " + column.sql
                return column.isIndexed ? [add, Connection.indexStatement(table: table, column: column.name)] : [add]
            case .rename(let name, let newName): return [prefix + " RENAME COLUMN " + Connection.quoteIdentifier(name) + " TO " + Connection.quoteIdentifier(newName)]
            case .drop(let name): return [prefix + " DROP COLUMN " + Connection.quoteIdentifier(name)]
            }
        }
    }
}
