/// One column of a table made with ``Connection/create(table:options:body:)``, in GRDB's
/// spelling: constraints chained after `t.column(name, type)`.
///
/// ```swift
/// try db.create(table: "book") { t in
///     t.autoIncrementedPrimaryKey("id")
///     t.column("title", .text).notNull().collate(.nocase)
///     t.column("authorId", .integer).notNull().indexed().references("author", onDelete: .cascade)
///     t.column("price", .double).check(sql: "price >= 0").defaults(to: 0)
/// }
/// ```
public final class ColumnDefinition {
    let name: String
    let type: Connection.ColumnType?
    private var constraints: [String] = []
    /// Whether `indexed()` or `unique()` asked for an index beside the table.
    private(set) var isIndexed = false
    /// Whether the column is generated (SQLite 3.31: SQLCipher 4).
    private(set) var isGenerated = false
    /// Whether the column is the table's primary key (`primaryKey()`).
    private(set) var isPrimaryKey = false

    /// Whether a generated column's value is computed when read or stored when written.
    public enum GeneratedColumnQualification: Sendable {
        /// `VIRTUAL`: computed when read; takes no space.
        case virtual
        /// `STORED`: computed when the row is written, and stored.
        case stored
    }

    init(name: String, type: Connection.ColumnType?) {
        self.name = name
        self.type = type
    }

    /// `PRIMARY KEY`, with `AUTOINCREMENT` (an integer column only: rowids never reused).
    @discardableResult
    public func primaryKey(onConflict: ConflictResolution? = nil, autoincrement: Bool = false) -> Self {
        isPrimaryKey = true
        return add("PRIMARY KEY" + Self.onConflict(onConflict) + (autoincrement ? " AUTOINCREMENT" : ""))
    }

    /// `NOT NULL`.
    @discardableResult
    public func notNull(onConflict: ConflictResolution? = nil) -> Self {
        add("NOT NULL" + Self.onConflict(onConflict))
    }

    /// `UNIQUE`.
    @discardableResult
    public func unique(onConflict: ConflictResolution? = nil) -> Self {
        add("UNIQUE" + Self.onConflict(onConflict))
    }

    /// An index on the column, created with the table (`CREATE INDEX "table_on_column"`).
    @discardableResult
    public func indexed() -> Self {
        isIndexed = true
        return self
    }

    /// `CHECK (…)` with a condition written in SQL.
    @discardableResult
    public func check(sql: String) -> Self {
        add("CHECK (" + sql + ")")
    }

    /// `CHECK (…)` with a condition on the column: `check { $0 > 0 }`.
    @discardableResult
    public func check(_ condition: (Column) -> some SQLSpecificExpressible) -> Self {
        add("CHECK (" + SQLLiteralRendering.render(condition(Column(name)).sqlExpression) + ")")
    }

    /// `DEFAULT` a value, written into the schema as a literal.
    @discardableResult
    public func defaults(to value: some DatabaseValueConvertible) -> Self {
        add("DEFAULT " + SQLLiteralRendering.literal(value.databaseValue))
    }

    /// `DEFAULT (…)` an expression written in SQL: `defaults(sql: "CURRENT_TIMESTAMP")`.
    @discardableResult
    public func defaults(sql: String) -> Self {
        add("DEFAULT (" + sql + ")")
    }

    /// `COLLATE` a collation SQLite has (``Connection/CollationName``) or one the app adds.
    @discardableResult
    public func collate(_ collation: Connection.CollationName) -> Self {
        add("COLLATE " + Connection.quoteIdentifier(collation.rawValue))
    }

    /// `COLLATE` a collation the app adds (it must be added to every connection that writes
    /// the table: see ``DatabaseCollation``).
    @discardableResult
    public func collate(_ collation: DatabaseCollation) -> Self {
        add("COLLATE " + Connection.quoteIdentifier(collation.name))
    }

    /// `REFERENCES table(column)`: a foreign key to the table's primary key, or to `column`.
    @discardableResult
    public func references(_ table: String, column: String? = nil, onDelete: Connection.ForeignKeyAction? = nil,
                           onUpdate: Connection.ForeignKeyAction? = nil, deferred: Bool = false) -> Self {
        add("REFERENCES " + SQLLiteralRendering.foreignKeyClause(table, column.map { [$0] }, onDelete: onDelete, onUpdate: onUpdate, deferred: deferred))
    }

    /// `GENERATED ALWAYS AS (…)`, an expression written in SQL: the column's value is
    /// computed from the row's other columns. Needs SQLite 3.31 (SQLCipher 4): on SQLCipher
    /// 3.4.1 `create(table:)` and `alter(table:)` throw a ``DatabaseError`` naming the version,
    /// and create nothing.
    @discardableResult
    public func generatedAs(sql: String, _ qualification: GeneratedColumnQualification = .virtual) -> Self {
        isGenerated = true
        return add("GENERATED ALWAYS AS (" + sql + ")" + (qualification == .virtual ? " VIRTUAL" : " STORED"))
    }

    /// `GENERATED ALWAYS AS (…)`, an expression of the row's columns, its values written into
    /// the schema: `generatedAs(Column("score") + Column("bonus"))`.
    @discardableResult
    public func generatedAs(_ expression: some SQLSpecificExpressible, _ qualification: GeneratedColumnQualification = .virtual) -> Self {
        generatedAs(sql: SQLLiteralRendering.render(expression.sqlExpression), qualification)
    }

    /// The column as `CREATE TABLE` and `ALTER TABLE … ADD COLUMN` write it.
    var sql: String {
        ([Connection.quoteIdentifier(name)] + (type.map { [$0.rawValue] } ?? []) + constraints).joined(separator: " ")
    }

    private func add(_ constraint: String) -> Self {
        constraints.append(constraint)
        return self
    }

    static func onConflict(_ resolution: ConflictResolution?) -> String {
        resolution.map { " ON CONFLICT " + $0.rawValue } ?? ""
    }
}

extension Connection {
    /// A column's declared type, in GRDB's spelling: it sets the column's affinity
    /// (`INTEGER`, `TEXT`, `REAL`, `NUMERIC`, `BLOB`) the way SQLite reads type names.
    public struct ColumnType: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let text = ColumnType(rawValue: "TEXT")
        public static let integer = ColumnType(rawValue: "INTEGER")
        public static let double = ColumnType(rawValue: "DOUBLE")
        public static let real = ColumnType(rawValue: "REAL")
        public static let numeric = ColumnType(rawValue: "NUMERIC")
        public static let boolean = ColumnType(rawValue: "BOOLEAN")
        public static let blob = ColumnType(rawValue: "BLOB")
        /// Dates as the library stores them (text); the name says what the column holds.
        public static let date = ColumnType(rawValue: "DATE")
        public static let datetime = ColumnType(rawValue: "DATETIME")
        public static let any = ColumnType(rawValue: "ANY")
        /// JSON text.
        public static let jsonText = ColumnType(rawValue: "TEXT")
    }

    /// What a foreign key does to the rows that refer to a row deleted or updated.
    public enum ForeignKeyAction: String, Sendable {
        case cascade = "CASCADE"
        case restrict = "RESTRICT"
        case setNull = "SET NULL"
        case setDefault = "SET DEFAULT"
    }

    /// The collations SQLite has built in.
    public struct CollationName: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Byte by byte (SQLite's default).
        public static let binary = CollationName(rawValue: "BINARY")
        /// ASCII letters without case.
        public static let nocase = CollationName(rawValue: "NOCASE")
        /// Trailing spaces ignored.
        public static let rtrim = CollationName(rawValue: "RTRIM")
    }
}
