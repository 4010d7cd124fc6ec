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
/// Only indexes on plain columns are built early: not partial ones nor those on expressions
/// (which may call a function the app registers and this process replaces with a stand-in).
/// A `UNIQUE` one is built early too, but changes nothing about where a row goes: a repair
/// keeps in its table a row whose key is found twice (in a damaged file), and reports the index
/// as not created. So the first row a table refuses drops that table's early `UNIQUE` indexes
/// and is inserted again; they are then built after the rows, as the others are, and the one
/// that finds a key twice is reported there.
extension DatabaseSalvage {
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
    /// - Returns: the names of those created, and whether each is `UNIQUE`.
    func createIndexesBeforeRows(of table: String, candidates: [(name: String, sql: String)]) -> [(name: String, unique: Bool)] {
        var created: [(name: String, unique: Bool)] = []
        for (name, sql) in candidates {
            guard (try? output.execute(sql: sql)) != nil else { continue }
            if let unique = try? builtEarly(name, on: table) {
                created.append((name, unique))
            } else {
                // Left for after the rows; a failed drop would fail the repair's later CREATE, reported there.
                try? output.execute(sql: "DROP INDEX \(Connection.quoteIdentifier(name))")
            }
        }
        return created
    }

    /// Whether the index `name`, just created, is `UNIQUE`; `nil` when it is not one to build
    /// early: not on `table`, partial, or on an expression.
    private func builtEarly(_ name: String, on table: String) throws -> Bool? {
        let list = try output.fetchAll(sql: "PRAGMA index_list(\(Connection.quoteIdentifier(table)))")
        guard let entry = list.first(where: { ($0["name"] as String?) == name }), (entry["partial"] as Int?) == 0,
              let unique = entry["unique"] as Int? else { return nil }
        // index_xinfo names an expression's column -2 (and the rowid, which every index ends with, -1).
        let columns = try output.fetchAll(sql: "PRAGMA index_xinfo(\(Connection.quoteIdentifier(name)))")
        return columns.contains { ($0["cid"] as Int?) == -2 } ? nil : unique != 0
    }

    /// Drops the early `UNIQUE` indexes of a table that has just refused a row, so that the
    /// row can be inserted again: they are built after the rows instead.
    /// - Returns: whether any was dropped (the row is then worth a second try).
    func dropEarlyUniqueIndexes(_ names: [String]) throws -> Bool {
        for name in names {
            try output.execute(sql: "DROP INDEX \(Connection.quoteIdentifier(name))")
        }
        return !names.isEmpty
    }
}
