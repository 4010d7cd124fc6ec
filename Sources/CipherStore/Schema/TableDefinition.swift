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
    /// The columns and `belongsTo` definitions, in the order they were given.
    private var elements: [Element] = []
    private var constraints: [String] = []
    /// The columns of `primaryKey(_:)` of several columns.
    private var primaryKeyColumns: [String] = []

    private enum Element {
        case column(ColumnDefinition)
        case foreignKey(ForeignKeyDefinition)
    }

    var columns: [ColumnDefinition] {
        elements.compactMap { if case .column(let column) = $0 { return column } else { return nil } }
    }

    init(name: String, options: TableOptions) {
        self.name = name
        self.options = options
    }

    /// A column; its constraints follow: `t.column("name", .text).notNull()`.
    @discardableResult
    public func column(_ name: String, _ type: Connection.ColumnType? = nil) -> ColumnDefinition {
        let column = ColumnDefinition(name: name, type: type)
        elements.append(.column(column))
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
        primaryKeyColumns = columns
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

    /// Columns that refer to another table's primary key, with their foreign key and an
    /// index, in GRDB's spelling: `t.belongsTo("team", onDelete: .cascade)` adds `teamId`
    /// (see ``ForeignKeyDefinition``). The referenced table is `table`, else `name`, else its
    /// plural (`teams`) when only that exists; a table may refer to itself.
    /// - Parameters:
    ///   - name: the association's name, the prefix of the added columns.
    ///   - table: the referenced table, when it is not `name` (or its plural).
    ///   - onDelete: what deleting a referenced row does to the rows that refer to it.
    ///   - onUpdate: what changing a referenced key does to the rows that refer to it.
    ///   - deferred: whether the constraint is checked at commit (`DEFERRABLE INITIALLY DEFERRED`).
    ///   - indexed: whether to index the columns (`table_on_teamId`); yes by default.
    @discardableResult
    public func belongsTo(_ name: String, inTable table: String? = nil, onDelete: Connection.ForeignKeyAction? = nil,
                          onUpdate: Connection.ForeignKeyAction? = nil, deferred: Bool = false, indexed: Bool = true) -> ForeignKeyDefinition {
        let foreignKey = ForeignKeyDefinition(name: name, table: table, onDelete: onDelete, onUpdate: onUpdate, deferred: deferred, indexed: indexed)
        elements.append(.foreignKey(foreignKey))
        return foreignKey
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

    /// `CREATE TABLE …`, and the indexes of its `belongsTo` definitions, their columns read
    /// from the referenced tables in `db`.
    /// - Throws: ``DatabaseError`` when a `belongsTo` names no table, or one without a primary key.
    func statements(_ db: Connection) throws -> (table: String, indexes: [String]) {
        var columnsSQL: [String] = []
        var foreignKeyConstraints: [String] = []
        var indexes: [String] = []
        for element in elements {
            switch element {
            case .column(let column):
                columnsSQL.append(column.sql)
            case .foreignKey(let foreignKey):
                let (referenced, primaryKey) = try referencedKey(of: foreignKey, in: db)
                let resolved = foreignKey.resolve(in: name, referencedTable: referenced, primaryKey: primaryKey, ifNotExists: options.contains(.ifNotExists))
                columnsSQL += resolved.columnsSQL
                foreignKeyConstraints += resolved.constraint.map { [$0] } ?? []
                indexes += resolved.index.map { [$0] } ?? []
            }
        }
        var sql = "CREATE " + (options.contains(.temporary) ? "TEMPORARY " : "") + "TABLE "
        if options.contains(.ifNotExists) { sql += "IF NOT EXISTS " }
        sql += Connection.quoteIdentifier(name) + " (" + (columnsSQL + constraints + foreignKeyConstraints).joined(separator: ", ") + ")"
        sql += [options.contains(.withoutRowID) ? " WITHOUT ROWID" : nil, options.contains(.strict) ? " STRICT" : nil]
            .compactMap { $0 }.joined(separator: ",")
        return (sql, indexes)
    }

    /// The table a `belongsTo` refers to, and its primary key's columns with their declared types.
    private func referencedKey(of foreignKey: ForeignKeyDefinition, in db: Connection) throws -> (String, [(name: String, type: String)]) {
        var candidates = foreignKey.table.map { [$0] } ?? [foreignKey.name]
        if foreignKey.table == nil, AssociationKeyName.plural(foreignKey.name) != foreignKey.name { candidates.append(AssociationKeyName.plural(foreignKey.name)) }
        // The first candidate that is this table or an existing one, in order: `name` before its plural.
        var found: String?
        for candidate in candidates {
            if try candidate.lowercased() == name.lowercased() || db.tableExists(candidate) {
                found = candidate
                break
            }
        }
        guard let referenced = found else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "belongsTo(\"\(foreignKey.name)\"): there is no table \(candidates.joined(separator: " or ")); create it first or name it with inTable:; nothing was created")
        }
        if referenced.lowercased() == name.lowercased() {
            // A table that refers to itself: its primary key is in this definition.
            let ownKey = columns.filter(\.isPrimaryKey).map { ($0.name, $0.type?.rawValue ?? "") }
                + primaryKeyColumns.map { key in (key, columns.first { $0.name.lowercased() == key.lowercased() }?.type?.rawValue ?? "") }
            guard !ownKey.isEmpty else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "belongsTo(\"\(foreignKey.name)\"): the table \(name) refers to itself, and its definition has no primary key given with primaryKey(…) or autoIncrementedPrimaryKey(…) (one written with constraint(sql:) is not read); give it one that way, or write the column with references(_:column:); nothing was created")
            }
            return (referenced, ownKey)
        }
        // SQLite checks a foreign key within one schema: a temporary table's would name temp's table.
        guard !options.contains(.temporary) else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "belongsTo(\"\(foreignKey.name)\"): a temporary table cannot refer to \(referenced), a table of the main database (SQLite checks a foreign key within one schema, so every insert would fail); store the key in a plain column; nothing was created")
        }
        let info = try db.fetchAll(sql: "PRAGMA table_info(\(Connection.quoteIdentifier(referenced)))")
        let key = try info.filter { try $0.value(Int.self, at: 5) > 0 }.sorted { try $0.value(Int.self, at: 5) < $1.value(Int.self, at: 5) }
            .map { (name: try $0.value(String.self, at: 1), type: try $0.value(String?.self, at: 2) ?? "") }
        guard !key.isEmpty else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "belongsTo(\"\(foreignKey.name)\"): the table \(referenced) has no primary key for a foreign key to refer to; give it one, or use references(_:column:) with a unique column; nothing was created")
        }
        return (referenced, key)
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
