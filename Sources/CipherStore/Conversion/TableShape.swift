import CSQLCipher

/// What the whole-file tools need to know of one stored table to copy its rows with their
/// identity, and to compare two copies row by row.
///
/// A row's identity is its rowid, or in a `WITHOUT ROWID` table its primary key. The rowid is
/// reachable under three names (`rowid`, `_rowid_`, `oid`) unless columns take all three.
struct TableShape: Sendable {
    let name: String
    /// The columns a row is inserted with (`PRAGMA table_info`: no generated or hidden
    /// columns), in their order.
    let columns: [String]
    /// The name the rowid is read and written under; `nil` for a `WITHOUT ROWID` table, or
    /// when columns are named `rowid`, `_rowid_` and `oid` alike.
    let rowidName: String?
    /// Whether columns take all three of the rowid's names (`rowid`, `_rowid_`, `oid`).
    let rowidShadowed: Bool
    /// Whether a column is the rowid itself (an `INTEGER PRIMARY KEY`): copying the columns
    /// copies the rowid.
    let hasRowidAlias: Bool
    /// The primary key's columns, in key order (empty when it has none).
    let primaryKey: [String]

    /// Reads the shape of `table` in the database attached as `schema`.
    static func read(_ table: String, schema: String = "main", in db: Connection) throws -> TableShape {
        let quotedSchema = Connection.quoteIdentifier(schema)
        let quotedTable = Connection.quoteIdentifier(table)
        let info = try db.fetchAll(sql: "PRAGMA \(quotedSchema).table_info(\(quotedTable))")
        var columns: [String] = []
        var keyed: [(position: Int, name: String, type: String)] = []
        for column in info {
            let name = try column.value(String.self, at: 1)
            columns.append(name)
            let position = try column.value(Int.self, at: 5)
            if position > 0 { keyed.append((position, name, try column.value(String?.self, at: 2) ?? "")) }
        }
        let primaryKey = keyed.sorted { $0.position < $1.position }.map(\.name)
        // A generated column is not in table_info, but its name hides the rowid's all the same:
        // table_xinfo lists it (SQLite 3.26 and later; an older SQLite returns no rows, and has
        // no generated columns).
        let allColumns = try db.fetchAll(sql: "PRAGMA \(quotedSchema).table_xinfo(\(quotedTable))").map { try $0.value(String.self, at: 1) }
        let taken = Set((columns + allColumns).map { $0.lowercased() })
        var rowidName = ["rowid", "_rowid_", "oid"].first { !taken.contains($0) }
        if let candidate = rowidName, !(try Self.compiles("SELECT \(candidate) FROM \(quotedSchema).\(quotedTable)", in: db)) {
            rowidName = nil  // WITHOUT ROWID
        }
        // An INTEGER PRIMARY KEY is the rowid, except when declared `INTEGER PRIMARY KEY DESC`
        // in the column: that one, like every other primary key, has an index of its own.
        var hasRowidAlias = false
        if rowidName != nil, keyed.count == 1, keyed[0].type.uppercased() == "INTEGER" {
            let origins = try db.fetchAll(sql: "PRAGMA \(quotedSchema).index_list(\(quotedTable))").map { try $0.value(String.self, at: 3) }
            hasRowidAlias = !origins.contains("pk")
        }
        return TableShape(name: table, columns: columns, rowidName: rowidName, rowidShadowed: ["rowid", "_rowid_", "oid"].allSatisfy(taken.contains),
                          hasRowidAlias: hasRowidAlias, primaryKey: primaryKey)
    }

    /// Whether `sql` compiles on `db` (it is not run).
    static func compiles(_ sql: String, in db: Connection) throws -> Bool {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v2(try db.handle.pointer, sql, -1, &statement, nil)
        sqlite3_finalize(statement)
        return code == SQLITE_OK
    }
}
