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
        let (names, indexes) = (collations.names, collations.indexes)
        guard !names.isEmpty else { return nil }
        let list = names.joined(separator: ", ")
        let them = names.count == 1 ? "it" : "them"
        // GRDB's collations the tool has; an index under one is in the order of the app that built it.
        let grdbNames = Set([DatabaseCollation.unicodeCompare, .caseInsensitiveCompare, .localizedCaseInsensitiveCompare,
                             .localizedCompare, .localizedStandardCompare].map { $0.name.lowercased() })
        let grdbs = names.filter { grdbNames.contains($0.lowercased()) }
        let apps = names.filter { !grdbNames.contains($0.lowercased()) }
        var parts: [String] = []
        if !apps.isEmpty {
            parts.append("\(apps.count == 1 ? "the collation" : "the collations") \(apps.joined(separator: ", ")), which this tool does not have")
        }
        if !grdbs.isEmpty {
            parts.append("GRDB's \(grdbs.count == 1 ? "collation" : "collations") \(grdbs.joined(separator: ", ")), whose indexes are in the order of the app that built them (its locale, Foundation or library version, not necessarily this tool's)")
        }
        let which = parts.joined(separator: ", and ")
        let underThem = indexes.isEmpty ? "" : " (\(indexes.joined(separator: ", ")))"
        let opening = "the schema names \(which): \(names.count == 1 ? "it was" : "they were") replaced by a stand-in that compares as BINARY (byte order), not as the app orders text."
        switch use {
        case .check:
            return opening + " Rows read as stored, but the integrity check cannot check an index under \(them) against its table in byte order: what it reported about the indexes that use \(them)\(underThem) was set aside, and the rest of the file was checked. To check those indexes too, run PRAGMA integrity_check in the app that has \(list)."
        case .copy:
            return opening + " The pages were copied as they are, and the copy was checked without the indexes that use \(them)\(underThem): an integrity check in byte order reports their entries as missing. Check them in the app that has \(list) (PRAGMA integrity_check)."
        case .read:
            return opening + " Rows read as stored, but what depends on \(names.count == 1 ? "its" : "their") order is not the app's: comparisons, sorts, GROUP BY and DISTINCT on columns under \(them) use byte order, while an ORDER BY or a lookup that goes through an index that uses \(them)\(underThem) follows the index, built in the app's order, and a lookup may miss rows the app would find. Run such queries in the app for its results."
        case .rebuild:
            return opening + " The new database has the schema as written and every row, but its indexes that use \(them)\(underThem) were built in byte order: before the app relies on them, run REINDEX \(names.joined(separator: "; REINDEX ")) in the app, which has \(list)."
        }
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
