/// The columns that link two tables of an association, when the schema does not say them
/// (no `REFERENCES` clause) or says several:
/// `belongsTo(Author.self, using: ForeignKey(["authorId"]))`.
///
/// The columns are those of the table that holds the foreign key (the origin of a
/// `belongsTo`, the destination of a `hasMany` or `hasOne`); `destinationColumns` are the
/// referenced table's, its primary key when not given.
public struct ForeignKey: Sendable, Equatable {
    let originColumns: [String]
    let destinationColumns: [String]?

    public init(_ originColumns: [String], to destinationColumns: [String]? = nil) {
        self.originColumns = originColumns
        self.destinationColumns = destinationColumns
    }

    public init(_ originColumns: [Column], to destinationColumns: [Column]? = nil) {
        self.init(originColumns.map(\.name), to: destinationColumns?.map(\.name))
    }
}

/// One column pair of a join: `child.childColumn = parent.parentColumn`.
struct JoinColumns: Sendable, Equatable {
    let parentColumn: String
    let childColumn: String
}

extension SQLAssociation {
    /// The column pairs that link the parent (origin) table to the child (destination) table,
    /// from the given ``ForeignKey`` or the schema's `REFERENCES`.
    /// - Throws: a ``DatabaseError`` naming both tables when the schema has no foreign key
    ///   between them or several, saying to give one with `ForeignKey`.
    func joinColumns(_ db: Connection) throws -> [JoinColumns] {
        guard joinCondition == nil else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "association \(key) joins on a condition of its own (association(to:on:)), not on a foreign key: include or join it (including(required:), including(optional:), joining(required:), joining(optional:)); nothing was run")
        }
        let destinationTable = relation.table
        let (holder, referenced) = direction == .belongsTo ? (originTable, destinationTable) : (destinationTable, originTable)
        var pairs: [(holding: String, referenced: String)]
        if let foreignKey {
            let referencedColumns = try foreignKey.destinationColumns ?? db.primaryKeyColumns(ofTable: referenced)
            guard referencedColumns.count == foreignKey.originColumns.count else {
                throw DatabaseError(resultCode: .SQLITE_ERROR, message: "the ForeignKey of association \(key) names \(foreignKey.originColumns.count) column(s) of \(holder) for \(referencedColumns.count) of \(referenced); give as many of each")
            }
            pairs = Array(zip(foreignKey.originColumns, referencedColumns))
        } else {
            pairs = try db.foreignKeyColumns(from: holder, to: referenced, association: key)
        }
        return pairs.map { direction == .belongsTo ? JoinColumns(parentColumn: $0.holding, childColumn: $0.referenced)
                                                     : JoinColumns(parentColumn: $0.referenced, childColumn: $0.holding) }
    }
}

extension Connection {
    /// The primary key's columns, in key order; `["rowid"]` for a table without one.
    func primaryKeyColumns(ofTable table: String) throws -> [String] {
        let primaryKey = try TableShape.read(table, in: self).primaryKey
        return primaryKey.isEmpty ? ["rowid"] : primaryKey
    }

    /// The columns of `holder`'s one foreign key to `referenced`, as the schema declares it.
    func foreignKeyColumns(from holder: String, to referenced: String, association: String) throws -> [(holding: String, referenced: String)] {
        let rows = try fetchAll(sql: "PRAGMA foreign_key_list(\(Self.quoteIdentifier(holder)))")
        var keys: [Int: [(sequence: Int, from: String, to: String?)]] = [:]
        for row in rows where try row.value(String.self, named: "table").lowercased() == referenced.lowercased() {
            keys[try row.value(named: "id"), default: []].append((try row.value(named: "seq"), try row.value(named: "from"), try row.value(named: "to")))
        }
        guard keys.count == 1, let columns = keys.values.first?.sorted(by: { $0.sequence < $1.sequence }) else {
            let problem = keys.isEmpty ? "the schema declares no foreign key from \(holder) to \(referenced)"
                                       : "the schema declares \(keys.count) foreign keys from \(holder) to \(referenced)"
            throw DatabaseError(resultCode: .SQLITE_ERROR,
                                message: "association \(association): \(problem); give its columns with ForeignKey([…]) (belongsTo(_:key:using:), hasMany(_:key:using:), hasOne(_:key:using:))")
        }
        // A REFERENCES without column names means the referenced table's primary key.
        if columns.contains(where: { $0.to == nil }) {
            let primaryKey = try primaryKeyColumns(ofTable: referenced)
            return zip(columns, primaryKey).map { ($0.from, $1) }
        }
        return columns.map { ($0.from, $0.to!) }
    }
}
