import CSQLCipher
import Foundation

/// Stand-ins for collations a database's schema names and this process does not have (an
/// app's own, `COLLATE myapp`), so that tools can still read, check and copy the file.
///
/// A stand-in compares as `BINARY` does (byte order). Rows read as stored, but ordering and
/// comparisons on such columns follow byte order, an index built in the app's order does not
/// match byte order (a lookup through it may miss rows, and an integrity check reports its
/// entries as missing), and an index written
/// under the stand-in is in byte order until the app runs `REINDEX name`. So only connections
/// that read, or build a file the app will check (a repair), use them; an app's own
/// connections fail with "no such collation sequence" instead.
extension Connection {
    /// The collations this connection compares in binary order because a statement needed
    /// them and the process does not have them, in the order first needed.
    ///
    /// Always empty for a connection of a ``DatabaseQueue`` or ``DatabasePool``, or one opened
    /// with ``Connection/init(path:key:configuration:)``: those fail with "no such collation
    /// sequence" instead. The tools that read a file whatever its collations — ``DatabaseFile/verify(path:key:cipher:)-barc``,
    /// ``DatabaseFile/openForReading(path:key:cipher:)``, backups and repairs — put a stand-in
    /// in binary order in their place and name it here and in their reports.
    public var placeholderCollations: [String] { handle.hooks.placeholderCollations }

    /// From now on, a collation that a statement needs and this connection lacks is added as
    /// a stand-in in binary order and named in ``placeholderCollations``, instead of failing
    /// the statement with "no such collation sequence".
    ///
    /// GRDB's collations, which every connection has as it opens, are removed first: an index
    /// built under one is in the order of the app's Foundation and locale, which this
    /// process's may not reproduce. Collations added after this call stay.
    func substituteMissingCollations() throws {
        for collation in DatabaseCollation.grdbCollations { try remove(collation: collation) }
        let db = try handle.pointer
        try handle.check(sqlite3_collation_needed(db, Unmanaged.passUnretained(handle.hooks).toOpaque()) { context, db, _, name in
            guard let context, let db, let name else { return }
            let hooks = Unmanaged<ConnectionHooks>.fromOpaque(context).takeUnretainedValue()
            // A failure leaves the statement failing as it would have without a stand-in.
            if Connection.addBinaryCollation(named: name, to: db) == SQLITE_OK {
                hooks.placeholderCollations.append(String(cString: name))
            }
        })
    }

    /// Adds `name` as a stand-in in binary order, and names it in ``placeholderCollations``.
    func addPlaceholderCollation(named name: String) throws {
        try handle.check(Self.addBinaryCollation(named: name, to: try handle.pointer))
        if !handle.hooks.placeholderCollations.contains(where: { Self.foldedName($0) == Self.foldedName(name) }) {
            handle.hooks.placeholderCollations.append(name)
        }
    }

    private static func addBinaryCollation(named name: UnsafePointer<CChar>, to db: OpaquePointer) -> Int32 {
        sqlite3_create_collation_v2(db, name, SQLITE_UTF8, nil, { _, leftCount, left, rightCount, right in
            let common = Int(min(leftCount, rightCount))
            let order = common == 0 ? 0 : memcmp(left!, right!, common)
            return order != 0 ? order : leftCount < rightCount ? -1 : leftCount > rightCount ? 1 : 0
        }, nil)
    }

    /// The collations the main database's tables declare on their columns and its indexes on
    /// their keys, by folded name, each spelled as first written: tables' columns first, then
    /// indexes, each in the order of `sqlite_master`. SQLite matches collation names without
    /// regard to case, so one collation may be written several ways; a statement asks for it
    /// in whichever spelling it meets first, which differs from one command to another.
    func schemaCollationSpellings() throws -> [String: String] {
        var spellings: [String: String] = [:]
        func note(_ name: String) {
            let folded = Self.foldedName(name)
            if spellings[folded] == nil { spellings[folded] = name }
        }
        let db = try handle.pointer
        let objects = try fetchAll(sql: "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'index') ORDER BY type DESC, rowid")
        for object in objects {
            let name = try object.value(String.self, at: 1)
            if try object.value(String.self, at: 0) == "table" {
                // A virtual table whose module this connection lacks has no columns to read.
                guard let columns = try? fetchAll(sql: "PRAGMA table_info(\(Self.quoteIdentifier(name)))") else { continue }
                for column in columns {
                    guard case .text(let columnName) = column[1] else { continue }
                    var collation: UnsafePointer<CChar>?
                    // The column's declared collation, read from the schema: nothing is looked up.
                    if sqlite3_table_column_metadata(db, "main", name, columnName, nil, &collation, nil, nil, nil) == SQLITE_OK,
                       let collation {
                        note(String(cString: collation))
                    }
                }
            } else {
                // index_xinfo: the fifth column is each key column's collation, the sixth whether it is a key.
                for row in try fetchAll(sql: "PRAGMA index_xinfo(\(Self.quoteIdentifier(name)))") where row.count > 5 {
                    if case .text(let collation) = row[4], row[5] == .integer(1) { note(collation) }
                }
            }
        }
        return spellings
    }

    /// The indexes whose keys use one of `collations` (by default, ``placeholderCollations``:
    /// the indexes an integrity check cannot check on this connection), sorted by name.
    func indexes(usingCollations collations: [String]? = nil) throws -> [String] {
        let placeholders = Set((collations ?? placeholderCollations).map(Self.foldedName))
        guard !placeholders.isEmpty else { return [] }
        let indexes = try fetchAll(sql: "SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name").map { try $0.value(String.self, at: 0) }
        return try indexes.filter { index in
            // index_xinfo's fifth column is each key column's collation.
            try fetchAll(sql: "PRAGMA index_xinfo(\(Self.quoteIdentifier(index)))").contains { row in
                guard row.count > 4, case .text(let collation) = row[4] else { return false }
                return placeholders.contains(Self.foldedName(collation))
            }
        }
    }
}
