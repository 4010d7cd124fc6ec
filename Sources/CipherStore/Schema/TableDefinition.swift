/// The columns and constraints of a table made with ``Connection/create(table:options:body:)``,
/// in GRDB's spelling.
///
/// ```swift
/// try db.create(table: "player") { t in
///     t.autoIncrementedPrimaryKey("id")
///     t.column("name", .text).notNull().unique()
///     t.column("score", .integer).notNull().defaults(to: 0)
///     t.column("teamId", .integer).references("team", onDelete: .setNull).indexed()
///     t.uniqueKey(["name", "teamId"])
///     t.check(sql: "score >= 0")
/// }
/// ```
///
/// The SQL is SQLite 3.15's, the same schema on every SQLCipher version, except for what
/// needs a newer SQLite: generated columns (``ColumnDefinition/generatedAs(sql:_:)``, 3.31) and
/// ``TableOptions/strict`` tables (3.37), which throw on SQLCipher 3.4.1 before anything is created.
public final class TableDefinition {
    let name: String
    let options: TableOptions
    private(set) var columns: [ColumnDefinition] = []
    private var constraints: [String] = []

    init(name: String, options: TableOptions) {
        self.name = name
        self.options = options
    }

    /// A column; its constraints follow: `t.column("name", .text).notNull()`.
    @discardableResult
    public func column(_ name: String, _ type: Connection.ColumnType? = nil) -> ColumnDefinition {
        let column = ColumnDefinition(name: name, type: type)
        columns.append(column)
        return column
    }

    /// `INTEGER PRIMARY KEY AUTOINCREMENT`: the rowid, never reused after a delete.
    @discardableResult
    public func autoIncrementedPrimaryKey(_ name: String, onConflict: ConflictResolution? = nil) -> ColumnDefinition {
        column(name, .integer).primaryKey(onConflict: onConflict, autoincrement: true)
    }

    /// A primary key column of another type than the rowid: also `NOT NULL` (SQLite allows NULL
    /// in a primary key that is not the rowid, for compatibility), except for `INTEGER`.
    @discardableResult
    public func primaryKey(_ name: String, _ type: Connection.ColumnType, onConflict: ConflictResolution? = nil) -> ColumnDefinition {
        let column = column(name, type).primaryKey(onConflict: onConflict)
        return type == .integer ? column : column.notNull()
    }

    /// `PRIMARY KEY (a, b)` on several columns.
    public func primaryKey(_ columns: [String], onConflict: ConflictResolution? = nil) {
        constraints.append("PRIMARY KEY (" + Self.quoted(columns) + ")" + ColumnDefinition.onConflict(onConflict))
    }

    /// `UNIQUE (a, b)` on several columns.
    public func uniqueKey(_ columns: [String], onConflict: ConflictResolution? = nil) {
        constraints.append("UNIQUE (" + Self.quoted(columns) + ")" + ColumnDefinition.onConflict(onConflict))
    }

    /// `FOREIGN KEY (a, b) REFERENCES table(c, d)`; the referenced table's primary key when
    /// `columns` is nil.
    public func foreignKey(_ columns: [String], references table: String, columns destinationColumns: [String]? = nil,
                           onDelete: Connection.ForeignKeyAction? = nil, onUpdate: Connection.ForeignKeyAction? = nil, deferred: Bool = false) {
        constraints.append("FOREIGN KEY (" + Self.quoted(columns) + ") REFERENCES "
            + SQLLiteralRendering.foreignKeyClause(table, destinationColumns, onDelete: onDelete, onUpdate: onUpdate, deferred: deferred))
    }

    /// `CHECK (…)` on the row, written in SQL.
    public func check(sql: String) {
        constraints.append("CHECK (" + sql + ")")
    }

    /// `CHECK (…)` on the row: `t.check(Column("min") <= Column("max"))`.
    public func check(_ condition: some SQLSpecificExpressible) {
        constraints.append("CHECK (" + SQLLiteralRendering.render(condition.sqlExpression) + ")")
    }

    /// A table constraint written in SQL.
    public func constraint(sql: String) {
        constraints.append(sql)
    }

    /// `CREATE TABLE …`.
    var sql: String {
        var sql = "CREATE " + (options.contains(.temporary) ? "TEMPORARY " : "") + "TABLE "
        if options.contains(.ifNotExists) { sql += "IF NOT EXISTS " }
        sql += Connection.quoteIdentifier(name) + " (" + (columns.map(\.sql) + constraints).joined(separator: ", ") + ")"
        sql += [options.contains(.withoutRowID) ? " WITHOUT ROWID" : nil, options.contains(.strict) ? " STRICT" : nil]
            .compactMap { $0 }.joined(separator: ",")
        return sql
    }

    /// Throws when the definition needs a newer SQLite than the linked one.
    func checkFeatures() throws {
        if options.contains(.strict) { try SQLiteFeature.strictTables.require("create(table:) of a STRICT table") }
        if columns.contains(where: \.isGenerated) { try SQLiteFeature.generatedColumns.require("create(table:) with a generated column") }
    }

    static func quoted(_ columns: [String]) -> String {
        columns.map(Connection.quoteIdentifier).joined(separator: ", ")
    }
}

/// How ``Connection/create(table:options:body:)`` creates a table.
public struct TableOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `IF NOT EXISTS`: nothing happens when the table exists.
    public static let ifNotExists = TableOptions(rawValue: 1 << 0)
    /// A `TEMPORARY` table, gone when the connection closes.
    public static let temporary = TableOptions(rawValue: 1 << 1)
    /// `WITHOUT ROWID`: the primary key is the table's key (it must have one).
    public static let withoutRowID = TableOptions(rawValue: 1 << 2)
    /// `STRICT`: each value must be of its column's declared type (`INTEGER`, `INT`, `REAL`,
    /// `TEXT`, `BLOB` or `ANY`). Needs SQLite 3.37 (SQLCipher 4); on SQLCipher 3.4.1
    /// `create(table:)` throws, naming the version, and creates nothing.
    public static let strict = TableOptions(rawValue: 1 << 3)
}

/// How ``Connection/create(index:on:columns:options:condition:)`` creates an index.
public struct IndexOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `IF NOT EXISTS`.
    public static let ifNotExists = IndexOptions(rawValue: 1 << 0)
    /// `UNIQUE`.
    public static let unique = IndexOptions(rawValue: 1 << 1)
}
