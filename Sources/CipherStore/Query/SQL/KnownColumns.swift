/// A table's column names as the query interface checks them: as the table spells them, and
/// lowercased (SQLite matches names without regard to ASCII case). The rowid's names count too,
/// for a table that has one.
struct KnownColumns {
    /// A name with ASCII letters lowercased, and nothing else: SQLite folds only those, so
    /// `Ä` and `ä`, or the Kelvin sign and `K`, are different names to it.
    static func folded(_ name: String) -> String {
        String(decoding: name.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
    }

    let names: [String]
    let lowercased: Set<String>
    let schemaVersion: Int
    /// The columns that find one row for a record whose key column is the dictionary's key
    /// (``Connection/rowKeyColumns(ofTable:preferred:)``), worked out at this schema version.
    var rowKeys: [String: [String]] = [:]
}

extension Connection {
    /// The columns of `table` (a temporary table first, as SQLite reads the name), read again
    /// only after a schema change (made by any connection: `schema_version` says, the main
    /// database's and the temporary one's).
    func columnNamesOfTable(_ table: String) throws -> KnownColumns {
        let main = try fetchScalar(Int.self, sql: "PRAGMA main.schema_version") ?? 0
        let temporary = try fetchScalar(Int.self, sql: "PRAGMA temp.schema_version") ?? 0
        let version = main << 32 | temporary & 0xffff_ffff
        observedSchemaVersion = version
        if let known = tableColumns[table], known.schemaVersion == version { return known }
        let names = try columnNames(ofTable: table)
        var lowercased = Set(names.map(KnownColumns.folded))
        if try !names.isEmpty && TableShape.read(table, in: self).rowidName != nil { lowercased.formUnion(["rowid", "_rowid_", "oid"]) }
        // A full-text table's hidden columns, which table_info does not list: docid (FTS4),
        // rank (FTS5), and the column named after the table that MATCH and snippet() take.
        if !names.isEmpty, try fetchOne(sql: "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE AND sql LIKE 'CREATE VIRTUAL TABLE%'", arguments: [table]) != nil {
            for hidden in ["docid", "rank", table] where try TableShape.compiles("SELECT \(Self.quoteIdentifier(hidden)) FROM \(Self.quoteIdentifier(table))", in: self) {
                lowercased.insert(KnownColumns.folded(hidden))
            }
        }
        let known = KnownColumns(names: names, lowercased: lowercased, schemaVersion: version)
        tableColumns[table] = known
        return known
    }
}
