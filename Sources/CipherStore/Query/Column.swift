/// A column of a table, for the query interface: compared with values it makes an
/// ``SQLExpression``, and it orders results (``asc``, ``desc``).
///
/// ```swift
/// let undone = try Note.filter(Column("done") == false).order(Column("date").desc).fetchAll(db)
/// ```
public struct Column: Sendable, Hashable, SQLOrderingTerm {
    /// The column's name, as the table spells it.
    public let name: String

    public init(_ name: String) {
        self.name = name
    }

    /// The name, quoted for SQL.
    var quoted: String { Connection.quoteIdentifier(name) }

    /// Ascending order (the default when the column itself is given to `order`).
    public var asc: SQLOrdering { SQLOrdering(sql: quoted + " ASC", columns: [name]) }
    /// Descending order.
    public var desc: SQLOrdering { SQLOrdering(sql: quoted + " DESC", columns: [name]) }
    public var orderingSQL: String { quoted }
    public var orderingColumns: [String] { [name] }

    /// `column IN (values…)`; an empty list matches nothing.
    public func `in`<Values: Sequence>(_ values: Values) -> SQLExpression where Values.Element: DatabaseValueConvertible {
        let bound = values.map(\.databaseValue)
        guard !bound.isEmpty else { return SQLExpression(sql: "0", arguments: [], columns: [name]) }
        return SQLExpression(sql: "\(quoted) IN (\(Array(repeating: "?", count: bound.count).joined(separator: ", ")))", arguments: bound, columns: [name])
    }

    /// `column LIKE pattern` (case-insensitive for ASCII letters, as SQLite's LIKE).
    public func like(_ pattern: String) -> SQLExpression {
        SQLExpression(sql: "\(quoted) LIKE ?", arguments: [.text(pattern)], columns: [name])
    }

    /// `column BETWEEN lower AND upper` (both included).
    public func between(_ lower: some DatabaseValueConvertible, and upper: some DatabaseValueConvertible) -> SQLExpression {
        SQLExpression(sql: "\(quoted) BETWEEN ? AND ?", arguments: [lower.databaseValue, upper.databaseValue], columns: [name])
    }

    /// `column IS NULL`.
    public var isNull: SQLExpression { SQLExpression(sql: "\(quoted) IS NULL", arguments: [], columns: [name]) }
}

/// One term of an ORDER BY clause.
public protocol SQLOrderingTerm: Sendable {
    /// The term's SQL.
    var orderingSQL: String { get }
    /// The columns it names, checked against the table before a request runs.
    var orderingColumns: [String] { get }
}

extension SQLOrderingTerm {
    /// None: SQL written out is SQLite's to check.
    public var orderingColumns: [String] { [] }
}

/// A column in ascending or descending order (``Column/asc``, ``Column/desc``).
public struct SQLOrdering: SQLOrderingTerm {
    let sql: String
    let columns: [String]
    public var orderingSQL: String { sql }
    public var orderingColumns: [String] { columns }
}
