/// SQL text built with string interpolation: every interpolated value is bound as an
/// argument, never written into the text.
///
/// ```swift
/// let body = "It's \"quoted\"; DROP TABLE note"
/// try db.execute(literal: "UPDATE note SET body = \(body) WHERE id = \(id)")
/// // runs `UPDATE note SET body = ? WHERE id = ?` with the two values bound
///
/// let ids: [Int64] = [1, 2, 3]
/// let notes = try db.fetchAll(Note.self, literal: "SELECT * FROM note WHERE id IN \(ids)")
/// ```
///
/// What an interpolation becomes:
/// - a value (`String`, `Int`, `Date`, `UUID`, `Data`, any ``DatabaseValueConvertible``, or
///   an optional one, `nil` as NULL): `?`, with the value bound;
/// - an array of values: `(?, ?, ?)`, for `IN` (an empty array is `()`, which matches nothing);
///   a `[UInt8]` is such a list too: give a blob as `Data`;
/// - a ``Column``, or `identifier:` a name: the name, quoted (`"name"`);
/// - an ``SQLExpression`` or another `SQL`: its text, with its arguments;
/// - `sql:` a string: that text as it is. Only for SQL the program writes itself, never for
///   values: they belong in a plain interpolation.
///
/// A name is not a value: `ORDER BY \(name)` binds a string and orders by nothing; write
/// `ORDER BY \(identifier: name)` or `\(Column(name))`. SQLite 3.15 reads a quoted name that
/// no column has as a string, so a misspelt ``Column`` matches nothing rather than failing.
public struct SQL: Sendable, ExpressibleByStringInterpolation {
    /// The SQL text, with `?` for each argument.
    public let sql: String
    /// The values bound to the placeholders, in order.
    public let arguments: [DatabaseValue]

    /// SQL text with positional arguments.
    public init(sql: String, arguments: [DatabaseValue] = []) {
        self.sql = sql
        self.arguments = arguments
    }

    public init(stringLiteral value: String) {
        self.init(sql: value)
    }

    public init(stringInterpolation: StringInterpolation) {
        self.init(sql: stringInterpolation.sql, arguments: stringInterpolation.arguments)
    }

    /// The text and arguments of both, one after the other.
    public static func + (lhs: SQL, rhs: SQL) -> SQL {
        SQL(sql: lhs.sql + rhs.sql, arguments: lhs.arguments + rhs.arguments)
    }

    /// The arguments as a statement takes them.
    var statementArguments: StatementArguments { .positional(arguments) }

    public struct StringInterpolation: StringInterpolationProtocol {
        var sql = ""
        var arguments: [DatabaseValue] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            sql.reserveCapacity(literalCapacity + interpolationCount)
            arguments.reserveCapacity(interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) {
            sql += literal
        }

        /// A value, bound: `?`.
        public mutating func appendInterpolation(_ value: (some DatabaseValueConvertible)?) {
            sql += "?"
            arguments.append(value?.databaseValue ?? .null)
        }

        /// A list of values, bound: `(?, ?, …)`.
        public mutating func appendInterpolation(_ values: [some DatabaseValueConvertible]) {
            sql += "(" + Array(repeating: "?", count: values.count).joined(separator: ", ") + ")"
            for value in values { arguments.append(value.databaseValue) }
        }

        /// A column's name, quoted.
        public mutating func appendInterpolation(_ column: Column) {
            sql += column.quoted
        }

        /// A table's or column's name, quoted.
        public mutating func appendInterpolation(identifier name: String) {
            sql += Connection.quoteIdentifier(name)
        }

        /// A condition of the query interface, with its arguments.
        public mutating func appendInterpolation(_ expression: SQLExpression) {
            sql += expression.sql
            arguments += expression.arguments
        }

        /// Another literal, with its arguments.
        public mutating func appendInterpolation(_ literal: SQL) {
            sql += literal.sql
            arguments += literal.arguments
        }

        /// SQL text as it is: for SQL the program writes itself, never for values.
        public mutating func appendInterpolation(sql text: String) {
            sql += text
        }
    }
}
