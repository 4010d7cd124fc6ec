/// A condition of the query interface: SQL text with `?` placeholders and the values bound to
/// them, in order. Values are always bound, never written into the SQL text.
///
/// Made from a ``Column`` and a value (`==`, `!=`, `<`, `<=`, `>`, `>=`, ``Column/in(_:)``,
/// ``Column/like(_:)``, ``Column/between(_:and:)``, `== nil`), combined with `&&`, `||` and `!`,
/// or written out: `SQLExpression(sql: "length(body) > ?", arguments: [100])`.
public struct SQLExpression: Sendable {
    /// The SQL text, with `?` for each argument.
    public let sql: String
    /// The values bound to the placeholders, in order.
    public let arguments: [DatabaseValue]
    /// The names of the ``Column``s it was built from, checked against the table before a
    /// request runs (SQL written out is SQLite's to check).
    let columns: [String]

    public init(sql: String, arguments: [DatabaseValue] = []) {
        self.init(sql: sql, arguments: arguments, columns: [])
    }

    init(sql: String, arguments: [DatabaseValue], columns: [String]) {
        self.sql = sql
        self.arguments = arguments
        self.columns = columns
    }

    static func comparing(_ column: Column, _ operator: String, _ value: some DatabaseValueConvertible) -> SQLExpression {
        let bound = value.databaseValue
        // NULL compares as unknown with `=`: a nil value means IS NULL, as in Swift.
        if bound.isNull && (`operator` == "=" || `operator` == "<>") {
            return SQLExpression(sql: "\(column.quoted) IS \(`operator` == "=" ? "" : "NOT ")NULL", arguments: [], columns: [column.name])
        }
        return SQLExpression(sql: "\(column.quoted) \(`operator`) ?", arguments: [bound], columns: [column.name])
    }

    public static func && (lhs: SQLExpression, rhs: SQLExpression) -> SQLExpression {
        SQLExpression(sql: "(\(lhs.sql)) AND (\(rhs.sql))", arguments: lhs.arguments + rhs.arguments, columns: lhs.columns + rhs.columns)
    }

    public static func || (lhs: SQLExpression, rhs: SQLExpression) -> SQLExpression {
        SQLExpression(sql: "(\(lhs.sql)) OR (\(rhs.sql))", arguments: lhs.arguments + rhs.arguments, columns: lhs.columns + rhs.columns)
    }

    public static prefix func ! (expression: SQLExpression) -> SQLExpression {
        SQLExpression(sql: "NOT (\(expression.sql))", arguments: expression.arguments, columns: expression.columns)
    }
}

extension Column {
    public static func == (lhs: Column, rhs: some DatabaseValueConvertible) -> SQLExpression { .comparing(lhs, "=", rhs) }
    public static func != (lhs: Column, rhs: some DatabaseValueConvertible) -> SQLExpression { .comparing(lhs, "<>", rhs) }
    public static func < (lhs: Column, rhs: some DatabaseValueConvertible) -> SQLExpression { .comparing(lhs, "<", rhs) }
    public static func <= (lhs: Column, rhs: some DatabaseValueConvertible) -> SQLExpression { .comparing(lhs, "<=", rhs) }
    public static func > (lhs: Column, rhs: some DatabaseValueConvertible) -> SQLExpression { .comparing(lhs, ">", rhs) }
    public static func >= (lhs: Column, rhs: some DatabaseValueConvertible) -> SQLExpression { .comparing(lhs, ">=", rhs) }
    /// `column IS NULL`.
    public static func == (lhs: Column, rhs: _OptionalNilComparisonType) -> SQLExpression { lhs.isNull }
    /// `column IS NOT NULL`.
    public static func != (lhs: Column, rhs: _OptionalNilComparisonType) -> SQLExpression {
        SQLExpression(sql: "\(lhs.quoted) IS NOT NULL", arguments: [], columns: [lhs.name])
    }
}
