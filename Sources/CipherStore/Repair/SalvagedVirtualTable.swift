/// A virtual table of a damaged file, made anew in a repair's output before any row goes in.
///
/// A virtual table keeps its data in ordinary "shadow" tables (`notes_content`,
/// `notes_segments`, … for full-text search; `_node`, `_rowid`, `_parent` for an R-tree).
/// Creating the virtual table in the output creates them empty; the repair then copies the
/// file's rows into them as found, and a full-text index that has its documents (its own
/// content table, or an external one) is rebuilt from them, so that an index a page loss
/// left inconsistent is whole again. Creating the table also keeps alive what depends on it:
/// the triggers that keep a synchronized index up to date write to it, and without it the
/// content table would refuse every write. An R-tree that lost pages is rebuilt from the
/// entries of its surviving leaves (``SalvagedRTree``).
struct SalvagedVirtualTable {
    let name: String
    /// The shadow tables the module created, lowercased.
    let shadowTables: Set<String>
    /// Their SQL as the module wrote it, compacted (``DatabaseSalvage/compactSQL(_:)``), by
    /// lowercased name: a file's table of that name and another shape is not one of them.
    let shadowSQL: [String: String]
    /// `fts4` (FTS3 too) or `fts5`; `nil` for another module.
    let fullTextModule: String?
    /// Whether its index is rebuilt from its documents rather than copied: a full-text table
    /// with content (`content=''` keeps none).
    let rebuildsIndex: Bool
    /// An R-tree's shape, for a rebuild from its surviving leaves; `nil` for another module.
    let rTree: SalvagedRTree?

    /// Creates the table from its SQL in `output`; throws when the module or an argument it
    /// needs (a tokenizer) is not there, leaving nothing behind: it is tried on an empty
    /// database in memory first, since a failed `CREATE VIRTUAL TABLE` keeps its schema row
    /// in an output written without a journal.
    init(name: String, sql: String, in output: Connection) throws {
        let probe = try Connection(location: .inMemory, key: nil)
        defer { try? probe.close() }
        try probe.execute(sql: sql)
        let before = try Self.tableNames(in: output)
        try output.execute(sql: sql)
        self.name = name
        shadowTables = try Self.tableNames(in: output).subtracting(before)
        var shadowSQL: [String: String] = [:]
        for row in try output.fetchAll(sql: "SELECT lower(name), sql FROM sqlite_master WHERE type = 'table'") {
            let table = try row.value(String.self, at: 0)
            if shadowTables.contains(table) { shadowSQL[table] = DatabaseSalvage.compactSQL(try row.value(String?.self, at: 1) ?? "") }
        }
        self.shadowSQL = shadowSQL
        let lowercased = name.lowercased()
        fullTextModule = shadowTables.contains(lowercased + "_segdir") ? "fts4"
            : shadowTables.contains(lowercased + "_idx") ? "fts5" : nil
        let compact = DatabaseSalvage.compactSQL(sql)
        rebuildsIndex = fullTextModule != nil && !compact.contains("CONTENT=''") && !compact.contains("CONTENT=\"\"")
        rTree = SalvagedRTree(name: name, sql: sql, shadowTables: shadowTables, in: output)
    }

    /// Whether the file's rows of `shadow` are copied: all of them, but for the index of a
    /// table rebuilt from its documents.
    func copiesRows(of shadow: String) -> Bool {
        !rebuildsIndex || shadow.lowercased() == name.lowercased() + "_content"
    }

    /// Rebuilds a full-text index from its documents, once every table has its rows. Returns
    /// what the report says.
    func rebuild(in output: Connection) -> (note: String?, problem: String?) {
        let quoted = Connection.quoteIdentifier(name)
        guard let fullTextModule else {
            if let rTree { return rTree.rebuildIfBroken(in: output) }
            // Another module: its copied rows must still read as a whole.
            do {
                _ = try output.fetchScalar(Int.self, sql: "SELECT count(*) FROM \(quoted)")
                return (nil, nil)
            } catch {
                return (nil, "virtual table \(name) does not read after its rows were copied (\(error)): it is inconsistent, create it again from its source data")
            }
        }
        guard rebuildsIndex else {
            if fullTextModule == "fts5" {
                // Its b-tree index (`_idx`) is a WITHOUT ROWID table, whose rows a repair does not read.
                return (nil, "full-text index \(name) keeps no documents (content=''): its index could not be recovered, the table is empty")
            }
            return ("full-text index \(name) keeps no documents (content=''), so it cannot be rebuilt: its index was copied as found", nil)
        }
        do {
            // In a savepoint: a rebuild that fails midway leaves the table as it was copied.
            try output.inSavepoint {
                try output.execute(sql: "INSERT INTO \(quoted)(\(quoted)) VALUES ('rebuild')")
                return .commit
            }
            return ("full-text index \(name) was rebuilt from its documents", nil)
        } catch {
            return (nil, "full-text index \(name) could not be rebuilt from its documents (\(error)): a search of it finds nothing; rebuild it with INSERT INTO \(quoted)(\(quoted)) VALUES ('rebuild')")
        }
    }

    private static func tableNames(in output: Connection) throws -> Set<String> {
        Set(try String.fetchAll(output, sql: "SELECT lower(name) FROM sqlite_master WHERE type = 'table'"))
    }
}
