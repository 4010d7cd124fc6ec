/// A virtual table of a damaged file, made anew in a repair's output before any row goes in.
///
/// A virtual table keeps its data in ordinary "shadow" tables (`notes_content`,
/// `notes_segments`, … for full-text search; `_node`, `_rowid`, `_parent` for an R-tree).
/// Creating the virtual table in the output creates them empty; the repair then copies the
/// file's rows into them as found, and a full-text index that has its documents (its own
/// content table, or an external one) is rebuilt from them, so that an index a page loss
/// left inconsistent is whole again. Creating the table also keeps alive what depends on it:
/// the triggers that keep a synchronized index up to date write to it, and without it the
/// content table would refuse every write.
struct SalvagedVirtualTable {
    let name: String
    /// The shadow tables the module created, lowercased.
    let shadowTables: Set<String>
    /// `fts4` (FTS3 too) or `fts5`; `nil` for another module.
    let fullTextModule: String?
    /// Whether its index is rebuilt from its documents rather than copied: a full-text table
    /// with content (`content=''` keeps none).
    let rebuildsIndex: Bool

    /// Creates the table from its SQL in `output`; throws when the module or an argument it
    /// needs (a tokenizer) is not there.
    init(name: String, sql: String, in output: Connection) throws {
        let before = try Self.tableNames(in: output)
        try output.execute(sql: sql)
        self.name = name
        shadowTables = try Self.tableNames(in: output).subtracting(before)
        let lowercased = name.lowercased()
        fullTextModule = shadowTables.contains(lowercased + "_segdir") ? "fts4"
            : shadowTables.contains(lowercased + "_idx") ? "fts5" : nil
        let compact = DatabaseSalvage.compactSQL(sql)
        rebuildsIndex = fullTextModule != nil && !compact.contains("CONTENT=''") && !compact.contains("CONTENT=\"\"")
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
        guard let fullTextModule else { return (nil, nil) }
        guard rebuildsIndex else {
            if fullTextModule == "fts5" {
                // Its b-tree index (`_idx`) is a WITHOUT ROWID table, whose rows a repair does not read.
                return (nil, "full-text index \(name) keeps no documents (content=''): its index could not be recovered, the table is empty")
            }
            return ("full-text index \(name) keeps no documents (content=''), so it cannot be rebuilt: its index was copied as found; check it with INSERT INTO \(quoted)(\(quoted)) VALUES ('integrity-check')", nil)
        }
        do {
            try output.execute(sql: "INSERT INTO \(quoted)(\(quoted)) VALUES ('rebuild')")
            return ("full-text index \(name) was rebuilt from its documents", nil)
        } catch {
            return (nil, "full-text index \(name) could not be rebuilt from its documents (\(error)): it is empty; rebuild it with INSERT INTO \(quoted)(\(quoted)) VALUES ('rebuild')")
        }
    }

    private static func tableNames(in output: Connection) throws -> Set<String> {
        Set(try String.fetchAll(output, sql: "SELECT lower(name) FROM sqlite_master WHERE type = 'table'"))
    }
}
