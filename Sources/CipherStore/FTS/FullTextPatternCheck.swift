/// Checks a raw full-text pattern the way it will run: a MATCH against an empty table of the
/// same engine, on a connection of its own in memory. SQLite parses the pattern when the
/// query starts, and reports what is malformed.
enum FullTextPatternCheck {
    static func check(_ pattern: String, module: String, columns: [String] = []) throws {
        let db = try Connection(location: .inMemory, key: nil)
        defer { try? db.close() }
        let names = (columns.isEmpty ? ["body"] : columns).map(Connection.quoteIdentifier)
        let tokenizer = module == "fts5" ? "'cjk'" : "cjk"
        try db.execute(sql: "CREATE VIRTUAL TABLE pattern_check USING \(module)(\(names.joined(separator: ", ")), tokenize=\(tokenizer))")
        do {
            _ = try db.fetchOne(sql: "SELECT rowid FROM pattern_check WHERE pattern_check MATCH ?", arguments: [pattern])
        } catch let error as DatabaseError {
            // Without the SQL, which names the checking table, not the caller's.
            throw DatabaseError(resultCode: error.resultCode,
                                message: "the full-text pattern is malformed: \(error.message ?? "SQLite gave no detail"). Fix its syntax, or build it from user input with matchingAllTokensIn:")
        }
    }
}
