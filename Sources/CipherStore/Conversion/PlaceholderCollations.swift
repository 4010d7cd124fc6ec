/// Collations a database's schema names that the tool reading it did not have (an app's own,
/// `COLLATE myapp`), and what that meant for the check it made: each was replaced by a
/// stand-in that compares in binary (byte) order. See ``Connection/placeholderCollations``.
///
/// Reading is unaffected. Ordering and comparisons on those columns followed byte order, and
/// the integrity check could not check the ``indexes`` whose keys use them: in the app's
/// order, their entries look missing or out of place in byte order. What it reported about
/// them was set aside (the rest of the file was checked as usual); check them in the app,
/// which has the collations, with `PRAGMA integrity_check`.
public struct PlaceholderCollations: Sendable, Hashable {
    /// The collations replaced, in the order they were first needed, each spelled as the
    /// schema first writes it (its tables' columns, then its indexes, in the order they were
    /// created), so that every tool names a collation written `MyColl` here and `MYCOLL` there
    /// the same way.
    public let names: [String]
    /// The indexes whose keys use them, sorted by name.
    public let indexes: [String]

    /// No collation was replaced.
    public var isEmpty: Bool { names.isEmpty }

    /// None.
    public static let none = PlaceholderCollations(names: [], indexes: [])

    /// Those `db` replaced, with `others` (replaced on another connection to the same file).
    static func of(_ db: Connection, with others: [String] = []) throws -> PlaceholderCollations {
        var names = db.placeholderCollations
        for name in others where !names.contains(where: { Connection.foldedName($0) == Connection.foldedName(name) }) {
            names.append(name)
        }
        if !names.isEmpty {
            let spellings = try db.schemaCollationSpellings()
            names = names.map { spellings[Connection.foldedName($0)] ?? $0 }
        }
        return PlaceholderCollations(names: names, indexes: try db.indexes(usingCollations: names))
    }
}

extension PlaceholderCollations {
    /// The collations `db` replaced so far (``Connection/placeholderCollations``), and the
    /// indexes of its main database that use them.
    ///
    /// ```swift
    /// let db = try DatabaseFile.openForReading(path: "app.db", key: key)
    /// let rows = try db.fetchAll(sql: "SELECT name FROM user ORDER BY name")
    /// let standIns = try PlaceholderCollations(db)
    /// if !standIns.isEmpty { print("ordered in byte order:", standIns.names) }
    /// ```
    /// - Throws: ``DatabaseError`` when the schema cannot be read.
    public init(_ db: Connection) throws {
        self = try Self.of(db)
    }
}
