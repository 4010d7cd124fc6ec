import CipherStore

/// What the commands say when a file's schema names collations the tool does not have (an
/// app's own, `COLLATE myapp`), which it replaced by stand-ins in binary order, or calls SQL
/// functions it does not have.
extension Summary {
    /// What the command did with the file, for what the stand-in means there.
    enum CollationUse {
        /// `verify`: an integrity check.
        case check
        /// `backup`: pages copied as they are, the copy checked.
        case copy
        /// `query`: rows read.
        case read
        /// `repair`: a new database built under the stand-in.
        case rebuild
    }

    /// The warning for `collations`, or `nil` when there are none.
    static func placeholderWarning(_ collations: PlaceholderCollations, _ use: CollationUse) -> String? {
        let indexes = collations.indexes
        guard !collations.names.isEmpty else { return nil }
        // GRDB's collations the tool has, spelled as GRDB does; an index under one is in the
        // order of the app that built it. Sorted: the order they were met in is the command's.
        let grdbCollations = Dictionary(uniqueKeysWithValues: DatabaseCollation.grdbCollations.map { ($0.name.lowercased(), $0.name) })
        let names = collations.names.map { grdbCollations[$0.lowercased()] ?? $0 }
            .sorted { $0.lowercased() < $1.lowercased() }
        let grdbs = names.filter { grdbCollations[$0.lowercased()] != nil }
        let apps = names.filter { grdbCollations[$0.lowercased()] == nil }
        let several = names.count > 1
        let them = several ? "them" : "it"
        let list = listed(names)
        var parts: [String] = []
        if !apps.isEmpty {
            parts.append("\(apps.count == 1 ? "the collation" : "the collations") \(listed(apps)), which this tool does not have")
        }
        if !grdbs.isEmpty {
            parts.append("GRDB's \(grdbs.count == 1 ? "collation" : "collations") \(listed(grdbs)), whose order is the app's (its locale, Foundation and library version), not necessarily this tool's")
        }
        let which = parts.joined(separator: ", and ")
        let underThem = indexes.isEmpty ? "" : " (\(listed(indexes.map(sqlName))))"
        let opening = "the schema names \(which): \(several ? "they were replaced by stand-ins that compare" : "it was replaced by a stand-in that compares") as BINARY (byte order), not as the app orders text."
        switch use {
        case .check:
            return opening + " Rows read as stored, but the integrity check cannot check an index under \(them) against its table in byte order: what it reported about the indexes that use \(them)\(underThem) was set aside, and the rest of the file was checked. To check those indexes too, run PRAGMA integrity_check in the app that has \(list)."
        case .copy:
            return opening + " The pages were copied as they are, and the copy was checked without the indexes that use \(them)\(underThem): an integrity check in byte order reports their entries as missing. Check them in the app that has \(list) (PRAGMA integrity_check)."
        case .read:
            return opening + " Rows read as stored, but what depends on \(several ? "their" : "its") order is not the app's: comparisons, sorts, GROUP BY and DISTINCT on columns under \(them) use byte order, while an ORDER BY or a lookup that goes through an index that uses \(them)\(underThem) follows the index, built in the app's order, and a lookup may miss rows the app would find. Run such queries in the app for its results."
        case .rebuild:
            return opening + " The new database has the schema as written and every row, but its indexes that use \(them)\(underThem) were built in byte order: before the app relies on them, run REINDEX \(names.map(sqlName).joined(separator: "; REINDEX ")) in the app, which has \(list)."
        }
    }

    /// `name` as SQL takes it: bare when it is a plain identifier, else quoted.
    static func sqlName(_ name: String) -> String {
        let plain = name.first.map { $0 == "_" || ($0.isASCII && $0.isLetter) } == true
            && name.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
        return plain ? name : Connection.quoteIdentifier(name)
    }

    /// `items` as a sentence lists them: "a", "a and b", "a, b and c".
    static func listed(_ items: [String]) -> String {
        guard let last = items.last, items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " and " + last
    }

    /// The warning when the integrity check stopped at a function the app registers (an index
    /// on an expression, a CHECK constraint) and the quick check ran instead; `nil` otherwise.
    static func functionWarning(_ functions: [String]) -> String? {
        guard let function = functions.first else { return nil }
        return "the schema calls the SQL function \(function)(), which the app registers and this tool does not have: the full integrity check stops at it, so the quick check ran instead: every page and row, but not whether the indexes hold what their tables do, nor the CHECK constraints. To check those too, run PRAGMA integrity_check in the app."
    }

    /// `--json` fields: the collations replaced and the indexes that use them.
    static func placeholderFields(_ collations: PlaceholderCollations) -> [String: Any] {
        ["placeholderCollations": collations.names, "indexesUnderPlaceholders": collations.indexes]
    }
}
