/// The columns, foreign key and index that ``TableDefinition/belongsTo(_:inTable:onDelete:onUpdate:deferred:indexed:)``
/// adds, in GRDB's spelling: `t.belongsTo("team")` is a `teamId` column of the type of
/// `team`'s primary key, `REFERENCES "team"("id")`, and an index on it.
///
/// The columns are named after the association and the referenced primary key's columns
/// (`team` + `id` → `teamId`, `country` + `code` → `countryCode`; a key of two columns makes two),
/// and take their declared types. They are worked out when the table is created, from the
/// referenced table's schema (or from the definition itself for a table that refers to itself).
public final class ForeignKeyDefinition {
    let name: String
    let table: String?
    let onDelete: Connection.ForeignKeyAction?
    let onUpdate: Connection.ForeignKeyAction?
    let deferred: Bool
    let isIndexed: Bool
    private(set) var notNullConflict: ConflictResolution??
    private(set) var isUnique = false

    init(name: String, table: String?, onDelete: Connection.ForeignKeyAction?, onUpdate: Connection.ForeignKeyAction?, deferred: Bool, indexed: Bool) {
        self.name = name
        self.table = table
        self.onDelete = onDelete
        self.onUpdate = onUpdate
        self.deferred = deferred
        self.isIndexed = indexed
    }

    /// `NOT NULL` on the added columns: every row refers to a row.
    @discardableResult
    public func notNull(onConflict: ConflictResolution? = nil) -> Self {
        notNullConflict = .some(onConflict)
        return self
    }

    /// A unique index on the added columns (instead of a plain one): at most one row refers
    /// to each referenced row.
    @discardableResult
    public func unique() -> Self {
        isUnique = true
        return self
    }

    /// What the definition becomes in a table: its columns, their foreign key, and the index.
    struct Resolved {
        let columns: [String]
        let columnsSQL: [String]
        let constraint: String?
        let index: String?
    }

    /// The columns and constraints, from the referenced primary key: `(name, declared type)` of
    /// each of its columns, and the referenced table's name.
    func resolve(in tableName: String, referencedTable: String, primaryKey: [(name: String, type: String)], ifNotExists: Bool) -> Resolved {
        let columns = primaryKey.map { name + $0.name.prefix(1).uppercased() + $0.name.dropFirst() }
        let notNull = notNullConflict.map { " NOT NULL" + ColumnDefinition.onConflict($0) } ?? ""
        let clause = SQLLiteralRendering.foreignKeyClause(referencedTable, primaryKey.map(\.name), onDelete: onDelete, onUpdate: onUpdate, deferred: deferred)
        var columnsSQL = zip(columns, primaryKey).map { column, key in
            Connection.quoteIdentifier(column) + (key.type.isEmpty ? "" : " " + key.type) + notNull
        }
        var constraint: String?
        if columns.count == 1 {
            columnsSQL[0] += " REFERENCES " + clause
        } else {
            constraint = "FOREIGN KEY (" + TableDefinition.quoted(columns) + ") REFERENCES " + clause
        }
        var index: String?
        if isIndexed || isUnique {
            index = "CREATE " + (isUnique ? "UNIQUE " : "") + "INDEX " + (ifNotExists ? "IF NOT EXISTS " : "") + Connection.quoteIdentifier(tableName + "_on_" + columns.joined(separator: "_"))
                + " ON " + Connection.quoteIdentifier(tableName) + "(" + TableDefinition.quoted(columns) + ")"
        }
        return Resolved(columns: columns, columnsSQL: columnsSQL, constraint: constraint, index: index)
    }
}
