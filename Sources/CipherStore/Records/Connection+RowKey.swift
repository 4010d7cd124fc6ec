import CSQLCipher

extension Connection {
    /// The columns whose values find a record's one row of `table`, for a record whose key
    /// column is `preferred` (its ``TableRecord/primaryKeyColumn``, `id` by default):
    /// `preferred` when the schema makes it name one row (the primary key, the rowid, or a
    /// column with a UNIQUE index of its own, without WHERE, under the collation
    /// `preferred = ?` compares with), else the table's declared primary key, as GRDB finds a
    /// record's row. An `id` column that is neither (a legacy table keyed by a `uuid`) would
    /// name every row holding that `id`: updating or deleting by it could change rows that are
    /// not the record's.
    ///
    /// The table is the one SQLite reads under that name (a temporary one first). A view, or a
    /// name SQLite does not know, keeps `preferred`: the schema says nothing of a view's keys,
    /// and the statement says what is wrong with an unknown name.
    /// Read again after any schema change (``columnNamesOfTable(_:)``).
    /// - Throws: ``RecordError/keyNamesSeveralRows(table:column:)`` when `preferred` is a
    ///   column that can name several rows and the table has no primary key that cannot.
    func rowKeyColumns(ofTable table: String, preferred: String) throws -> [String] {
        let known = try columnNamesOfTable(table)
        if let columns = known.rowKeys[preferred] { return columns }
        let columns = try findRowKeyColumns(table, preferred: preferred, known: known)
        tableColumns[table]?.rowKeys[preferred] = columns
        return columns
    }

    private func findRowKeyColumns(_ table: String, preferred: String, known: KnownColumns) throws -> [String] {
        guard !known.names.isEmpty, let object = try schemaObject(named: table), object.type == "table" else { return [preferred] }
        let keys = try uniqueKeys(ofTable: table)
        let folded = KnownColumns.folded(preferred)
        if let key = keys.first(where: { $0.columns == [folded] }), try comparesAsIndexed(key, table: table, schema: object.schema) {
            return [preferred]
        }
        let primaryKey = try TableShape.read(table, schema: object.schema, in: self).primaryKey
        let primaryKeyColumns = Set(primaryKey.map(KnownColumns.folded))
        if !primaryKey.isEmpty, let key = keys.first(where: { $0.columns == primaryKeyColumns }),
           try comparesAsIndexed(key, table: table, schema: object.schema) {
            return primaryKey
        }
        // No such column: as before, the statement is left to say so.
        guard known.lowercased.contains(folded) else { return [preferred] }
        throw RecordError.keyNamesSeveralRows(table: table, column: preferred)
    }

    /// Whether `column = ?` compares each column of `key` as the unique index that makes it a
    /// key does: a UNIQUE index under BINARY on a NOCASE column lets `'a'` and `'A'` both be,
    /// and `WHERE name = 'a'` finds both.
    private func comparesAsIndexed(_ key: UniqueKey, table: String, schema: String) throws -> Bool {
        let db = try handle.pointer
        for (column, indexCollation) in key.collations {
            var declared: UnsafePointer<CChar>?
            // The column's declared collation, read from the schema.
            guard sqlite3_table_column_metadata(db, schema, table, column, nil, &declared, nil, nil, nil) == SQLITE_OK, let declared,
                  KnownColumns.folded(String(cString: declared)) == KnownColumns.folded(indexCollation) else { return false }
        }
        return true
    }

    /// The one column a key of one value is compared with (``rowKeyColumns(ofTable:preferred:)``).
    /// - Throws: ``RecordError/keyNamesSeveralRows(table:column:)``, or a ``DatabaseError``
    ///   when that key is the table's primary key of several columns (nothing has run).
    func singleKeyColumn(ofTable table: String, preferred: String) throws -> String {
        let columns = try rowKeyColumns(ofTable: table, preferred: preferred)
        guard columns.count == 1 else {
            let example = columns.map { "\"\($0)\": …" }.joined(separator: ", ")
            throw DatabaseError(resultCode: .SQLITE_MISUSE,
                                message: "\(preferred) is neither the primary key of \(table) nor unique in it, and its primary key has several columns (\(columns.joined(separator: ", "))): give the key as a dictionary (key: [\(example)]); nothing was run")
        }
        return columns[0]
    }

    /// The schema (`temp` or `main`) and type (`table`, `view`…) of the object SQLite reads
    /// under `name`: a temporary one first; `nil` when neither has it.
    func schemaObject(named name: String) throws -> (schema: String, type: String)? {
        for (schema, master) in [("temp", "sqlite_temp_master"), ("main", "sqlite_master")] {
            if let type = try fetchScalar(String.self, sql: "SELECT type FROM \(master) WHERE name = ? COLLATE NOCASE AND type IN ('table', 'view')", arguments: [name]) {
                return (schema, type)
            }
        }
        return nil
    }
}
