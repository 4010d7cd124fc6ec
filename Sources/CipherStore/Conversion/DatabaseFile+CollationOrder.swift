extension DatabaseFile {
    /// ``DatabaseFileError/collationNotAnOrder(indexes:collations:)`` when every integrity
    /// problem is in an index under one of GRDB's collations (which `db` computes with this
    /// process's Foundation, not a stand-in); `nil` when any other problem is among them.
    ///
    /// Such an index fails in the app too: the file is not damaged, the collation is not an
    /// order on some of its values, and saying "report the problem" would send the user to
    /// `verify`, which sets those indexes aside and finds nothing.
    static func collationOrderFailure(_ problems: [String], in db: Connection, schema: String) throws -> DatabaseFileError? {
        guard schema == "main" else { return nil }
        let standard = DatabaseCollation.standard.map(\.name)
        let suspects = try db.indexes(usingCollations: standard)
        var failing: [String] = []
        for problem in problems {
            guard let index = suspects.first(where: { problem.hasSuffix(" index " + $0) }) else { return nil }
            if !failing.contains(index) { failing.append(index) }
        }
        guard !failing.isEmpty else { return nil }
        let folded = Set(standard.map(Connection.foldedName))
        var collations: [String] = []
        for index in failing {
            for row in try db.fetchAll(sql: "PRAGMA index_xinfo(\(Connection.quoteIdentifier(index)))") {
                guard row.count > 4, case .text(let collation) = row[4], folded.contains(Connection.foldedName(collation)) else { continue }
                let name = standard.first { Connection.foldedName($0) == Connection.foldedName(collation) } ?? collation
                if !collations.contains(name) { collations.append(name) }
            }
        }
        return .collationNotAnOrder(indexes: failing, collations: collations)
    }
}
