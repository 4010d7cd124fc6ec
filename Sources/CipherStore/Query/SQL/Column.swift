/// A column of a table, for the query interface: compared with values or other columns it
/// makes an ``SQLExpression``; it orders results (``SQLSpecificExpressible/asc``,
/// ``SQLSpecificExpressible/desc``) and can be selected.
///
/// ```swift
/// let undone = try Note.filter(Column("done") == false).order(Column("date").desc).fetchAll(db)
/// let titles = try Note.select(Column(Note.CodingKeys.title), as: String.self).fetchAll(db)
/// ```
///
/// Every column a request names is checked against its table before the request runs.
public struct Column: Sendable, Hashable, SQLSpecificExpressible {
    /// The column's name, as the table spells it.
    public let name: String

    public init(_ name: String) {
        self.name = name
    }

    /// The column a record's coding key names: `Column(CodingKeys.title)`.
    public init(_ codingKey: some CodingKey) {
        self.name = codingKey.stringValue
    }

    /// The rowid of a table that has one.
    public static let rowID = Column("rowid")

    /// The name, quoted for SQL.
    var quoted: String { Connection.quoteIdentifier(name) }

    public var sqlExpression: SQLExpression { SQLExpression(.column(name)) }

    /// An assignment for `updateAll(db, …)`: `Column("score").set(to: 0)`.
    public func set(to value: some SQLExpressible) -> ColumnAssignment {
        ColumnAssignment(column: name, value: value.sqlExpression.node)
    }

    /// An assignment to NULL: `Column("tag").set(to: nil)`.
    public func set(to value: _OptionalNilComparisonType) -> ColumnAssignment {
        ColumnAssignment(column: name, value: .value(.null))
    }
}

/// One `SET column = value` of `updateAll(db, …)`: made by
/// ``Column/set(to:)-(SQLExpressible)`` or by `+=`, `-=`, `*=`, `/=` on a column.
public struct ColumnAssignment: Sendable {
    let column: String
    let value: SQLExpression.Node
}

extension Column {
    /// `column = column + value`.
    public static func += (column: Column, value: some SQLExpressible) -> ColumnAssignment { column.set(to: column + value) }
    /// `column = column - value`.
    public static func -= (column: Column, value: some SQLExpressible) -> ColumnAssignment { column.set(to: column - value) }
    /// `column = column * value`.
    public static func *= (column: Column, value: some SQLExpressible) -> ColumnAssignment { column.set(to: column * value) }
    /// `column = column / value`.
    public static func /= (column: Column, value: some SQLExpressible) -> ColumnAssignment { column.set(to: column / value) }
}
