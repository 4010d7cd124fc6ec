extension Connection {
    /// The columns whose values find a record's one row of `table`, for a record whose key
    /// column is `preferred` (its ``TableRecord/primaryKeyColumn``, `id` by default):
    /// `preferred` when the schema makes it name one row (the primary key, the rowid, or a
    /// column with a UNIQUE index of its own), else the table's declared primary key, as GRDB
    /// finds a record's row. An `id` column that is neither (a legacy table keyed by a `uuid`)
    /// would name every row holding that `id`: updating or deleting by it could change rows
    /// that are not the record's.
    ///
    /// A table the schema does not describe as such (a view, a temporary table, a name SQLite
    /// does not know) keeps `preferred`, and its statement says what is wrong.
    /// Read again after any schema change (``columnNamesOfTable(_:)``).
    /// - Throws: ``RecordError/keyNamesSeveralRows(table:column:)`` when `preferred` is a
    ///   column that can name several rows and the table declares no primary key.
    func rowKeyColumns(ofTable table: String, preferred: String) throws -> [String] {
        let known = try columnNamesOfTable(table)
        if let columns = known.rowKeys[preferred] { return columns }
        let columns = try findRowKeyColumns(table, preferred: preferred, known: known)
        tableColumns[table]?.rowKeys[preferred] = columns
        return columns
    }

    private func findRowKeyColumns(_ table: String, preferred: String, known: KnownColumns) throws -> [String] {
        guard !known.names.isEmpty else { return [preferred] }
        if try uniqueKeys(ofTable: table).contains(where: { $0.columns == [preferred.lowercased()] }) { return [preferred] }
        let shape = try TableShape.read(table, in: self)
        if !shape.primaryKey.isEmpty { return shape.primaryKey }
        // Not a table of the main database with a rowid (a view, a temporary table), or no
        // such column: as before, the statement is left to say so.
        guard shape.rowidName != nil, known.lowercased.contains(KnownColumns.folded(preferred)) else { return [preferred] }
        throw RecordError.keyNamesSeveralRows(table: table, column: preferred)
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
}
