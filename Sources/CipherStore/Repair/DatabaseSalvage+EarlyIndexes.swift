/// Indexes built as the rows go in, rather than after them.
///
/// An index built after its table's rows is a sort of all its entries, and temporary storage
/// stays in memory (SQLCipher does not encrypt temporary files): the sort of a large table's
/// index would take memory that grows with the table. An index that exists before the rows
/// takes each entry as its row is inserted, through the page cache, whatever the table's size.
///
/// This is done only for a file larger than the result's page cache: inserting index entries
/// in random order is slower than one sort, and a smaller file's sort takes about as much
/// memory as the cache it is given (``DatabaseFileOptions/pageCacheBytes``).
///
/// An index built early changes nothing about where a row goes. A repair keeps in its table a
/// row that an index refuses: a key found twice by a `UNIQUE` one (in a damaged file), an
/// expression or a partial index's condition that fails on its values. The index is reported
/// as not created. So the first row a table refuses drops that table's early indexes that could
/// refuse one (all but the non-unique ones on plain columns) and is inserted again; they are
/// then built after the rows, where the one that refuses a row is reported. That case, a
/// damaged file, takes memory that grows with the index again: its sort, and the free pages
/// its failed build reused, kept in the journal so that it rolls back whole.
///
/// An index that calls a function replaced by a stand-in (a CHECK constraint's, which the app
/// registers and this process lacks) is never built early: a stand-in computes nothing. The
/// stand-ins are set aside while the early indexes are created, so that such an index, like
/// one that calls a function missing altogether, fails to be created here and is left for later.
extension DatabaseSalvage {
    /// An index created before its table's rows.
    struct EarlyIndex {
        let name: String
        /// Whether it could refuse a row: `UNIQUE`, partial, or on an expression.
        let mayRefuseRows: Bool
    }

    /// Whether the file is larger than the result's page cache, so that its indexes are built
    /// as the rows go in.
    func buildsIndexesBeforeRows() throws -> Bool {
        let cacheSize = try output.fetchScalar(Int.self, sql: "PRAGMA cache_size") ?? -2000
        // Negative: KiB; positive: pages of the result.
        let cacheBytes = cacheSize < 0 ? -cacheSize * 1024 : cacheSize * (try output.fetchScalar(Int.self, sql: "PRAGMA page_size") ?? 4096)
        return pages.pageCount * pages.pageSize > cacheBytes
    }

    /// Creates the indexes among `candidates` (name and SQL, the schema's indexes on `table`)
    /// that may be built early; an index that cannot be created now is left for later, without
    /// a word.
    ///
    /// Only what a damaged schema cannot turn against the rows is run early: SQL that creates
    /// an index (not a table or a trigger a schema row may hold), under a name no other object
    /// of the schema has (which a table created later would need, or a second row of that name).
    /// - Parameter namesInSchema: how many of the schema's objects have each name, lowercased.
    /// - Returns: those created.
    func createIndexesBeforeRows(of table: String, candidates: [(name: String, sql: String)],
                                 namesInSchema: [String: Int]) throws -> [EarlyIndex] {
        // Without the stand-ins: an index that calls one cannot be created now, and is left for
        // later, where it is reported. SQLite resolves an index's functions when it is created.
        for name in functionStandIns { try output.remove(function: Self.standIn(name)) }
        var created: [EarlyIndex] = []
        for (name, sql) in candidates where namesInSchema[name.lowercased()] == 1 {
            let compact = Self.compactSQL(sql)
            guard compact.hasPrefix("CREATEINDEX") || compact.hasPrefix("CREATEUNIQUEINDEX") else { continue }
            let before = try schemaNames(ofType: "index")
            guard (try? output.execute(sql: sql)) != nil else { continue }
            // What the SQL created, by the name it gives (a damaged schema row may name it otherwise).
            let new = try schemaNames(ofType: "index").subtracting(before)
            if new == [name], let mayRefuseRows = try? mayRefuseRows(name, on: table) {
                created.append(EarlyIndex(name: name, mayRefuseRows: mayRefuseRows))
                continue
            }
            // Left for after the rows.
            for name in new { try output.execute(sql: "DROP INDEX \(Connection.quoteIdentifier(name))") }
            if !new.isEmpty, new != [name] {
                // A row whose SQL creates an index of another name: which of the two rows gets
                // that name depends on their order, so the table's indexes are all built after
                // the rows, in the schema's order.
                for index in created { try output.execute(sql: "DROP INDEX \(Connection.quoteIdentifier(index.name))") }
                created = []
                break
            }
        }
        for name in functionStandIns { try output.add(function: Self.standIn(name)) }
        return created
    }

    /// Whether the index `name`, just created, could refuse a row: `UNIQUE`, partial, or on
    /// an expression; `nil` when it is not on `table`.
    private func mayRefuseRows(_ name: String, on table: String) throws -> Bool? {
        let list = try output.fetchAll(sql: "PRAGMA index_list(\(Connection.quoteIdentifier(table)))")
        guard let entry = list.first(where: { ($0["name"] as String?) == name }) else { return nil }
        if (entry["unique"] as Int?) != 0 || (entry["partial"] as Int?) != 0 { return true }
        // index_xinfo names an expression's column -2 (and the rowid, which every index ends with, -1).
        let columns = try output.fetchAll(sql: "PRAGMA index_xinfo(\(Connection.quoteIdentifier(name)))")
        return columns.contains { ($0["cid"] as Int?) == -2 }
    }

    /// Drops the early indexes of a table that has just refused a row, so that the row can be
    /// inserted again: they are built after the rows instead.
    /// - Returns: whether any was dropped (the row is then worth a second try).
    func dropEarlyIndexes(_ names: [String]) throws -> Bool {
        for name in names {
            try output.execute(sql: "DROP INDEX \(Connection.quoteIdentifier(name))")
        }
        return !names.isEmpty
    }
}
