// The operators of the query interface. Each comes in three overloads: expression and value,
// value and expression, expression and expression, so `Column("a") == 1`, `1 == Column("a")`
// and `Column("a") == Column("b")` all make an ``SQLExpression``; Swift picks the last for two
// expressions because its constraints are the most specific.

extension SQLExpression {
    static func binary(_ lhs: some SQLExpressible, _ op: String, _ rhs: some SQLExpressible) -> SQLExpression {
        SQLExpression(.binary(lhs.sqlExpression.node, op, rhs.sqlExpression.node))
    }

    /// `=` and `<>` with NULL on either side mean `IS` and `IS NOT`, as `== nil` does in Swift
    /// (SQL's `= NULL` is never true).
    static func equality(_ lhs: some SQLExpressible, negated: Bool, _ rhs: some SQLExpressible) -> SQLExpression {
        let left = lhs.sqlExpression.node, right = rhs.sqlExpression.node
        if right.isNullValue { return SQLExpression(.postfix(left, negated ? " IS NOT NULL" : " IS NULL")) }
        if left.isNullValue { return SQLExpression(.postfix(right, negated ? " IS NOT NULL" : " IS NULL")) }
        return SQLExpression(.binary(left, negated ? "<>" : "=", right))
    }
}

// MARK: Comparison

public func == (lhs: some SQLSpecificExpressible, rhs: some SQLExpressible) -> SQLExpression { .equality(lhs, negated: false, rhs) }
public func == (lhs: some SQLExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { .equality(lhs, negated: false, rhs) }
public func == (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { .equality(lhs, negated: false, rhs) }
public func != (lhs: some SQLSpecificExpressible, rhs: some SQLExpressible) -> SQLExpression { .equality(lhs, negated: true, rhs) }
public func != (lhs: some SQLExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { .equality(lhs, negated: true, rhs) }
public func != (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { .equality(lhs, negated: true, rhs) }

/// `expression IS NULL`.
public func == (lhs: some SQLSpecificExpressible, rhs: _OptionalNilComparisonType) -> SQLExpression {
    SQLExpression(.postfix(lhs.sqlExpression.node, " IS NULL"))
}

/// `expression IS NOT NULL`.
public func != (lhs: some SQLSpecificExpressible, rhs: _OptionalNilComparisonType) -> SQLExpression {
    SQLExpression(.postfix(lhs.sqlExpression.node, " IS NOT NULL"))
}

public func < (lhs: some SQLSpecificExpressible, rhs: some SQLExpressible) -> SQLExpression { .binary(lhs, "<", rhs) }
public func < (lhs: some SQLExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { .binary(lhs, "<", rhs) }
public func < (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { .binary(lhs, "<", rhs) }
public func <= (lhs: some SQLSpecificExpressible, rhs: some SQLExpressible) -> SQLExpression { .binary(lhs, "<=", rhs) }
public func <= (lhs: some SQLExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { .binary(lhs, "<=", rhs) }
public func <= (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { .binary(lhs, "<=", rhs) }
public func > (lhs: some SQLSpecificExpressible, rhs: some SQLExpressible) -> SQLExpression { .binary(lhs, ">", rhs) }
public func > (lhs: some SQLExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { .binary(lhs, ">", rhs) }
public func > (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { .binary(lhs, ">", rhs) }
public func >= (lhs: some SQLSpecificExpressible, rhs: some SQLExpressible) -> SQLExpression { .binary(lhs, ">=", rhs) }
public func >= (lhs: some SQLExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { .binary(lhs, ">=", rhs) }
public func >= (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { .binary(lhs, ">=", rhs) }

// MARK: Arithmetic

public func + (lhs: some SQLSpecificExpressible, rhs: some SQLExpressible) -> SQLExpression { .binary(lhs, "+", rhs) }
public func + (lhs: some SQLExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { .binary(lhs, "+", rhs) }
public func + (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { .binary(lhs, "+", rhs) }
public func - (lhs: some SQLSpecificExpressible, rhs: some SQLExpressible) -> SQLExpression { .binary(lhs, "-", rhs) }
public func - (lhs: some SQLExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { .binary(lhs, "-", rhs) }
public func - (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { .binary(lhs, "-", rhs) }
public func * (lhs: some SQLSpecificExpressible, rhs: some SQLExpressible) -> SQLExpression { .binary(lhs, "*", rhs) }
public func * (lhs: some SQLExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { .binary(lhs, "*", rhs) }
public func * (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { .binary(lhs, "*", rhs) }
public func / (lhs: some SQLSpecificExpressible, rhs: some SQLExpressible) -> SQLExpression { .binary(lhs, "/", rhs) }
public func / (lhs: some SQLExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { .binary(lhs, "/", rhs) }
public func / (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { .binary(lhs, "/", rhs) }

/// `-expression`.
public prefix func - (operand: some SQLSpecificExpressible) -> SQLExpression { SQLExpression(.prefix("-", operand.sqlExpression.node)) }

// MARK: Logic

public func && (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { .binary(lhs, "AND", rhs) }
public func || (lhs: some SQLSpecificExpressible, rhs: some SQLSpecificExpressible) -> SQLExpression { .binary(lhs, "OR", rhs) }
public prefix func ! (operand: some SQLSpecificExpressible) -> SQLExpression { SQLExpression(.prefix("NOT ", operand.sqlExpression.node)) }

// MARK: Membership and patterns

extension SQLSpecificExpressible {
    /// `expression IN (values…)`; an empty list matches nothing.
    public func `in`<Values: Sequence>(_ values: Values) -> SQLExpression where Values.Element: SQLExpressible {
        SQLExpression(.inList(sqlExpression.node, values.map(\.sqlExpression.node)))
    }

    /// `expression LIKE pattern` (case-insensitive for ASCII letters, as SQLite's LIKE).
    public func like(_ pattern: some SQLExpressible) -> SQLExpression {
        .binary(self, "LIKE", pattern)
    }

    /// `expression LIKE pattern ESCAPE escape`, in GRDB's spelling: the escape character makes
    /// the next `%` or `_` of the pattern a plain character (`Column("name").like("100\\%",
    /// escape: "\\")`). Written as SQLite's `like(pattern, expression, escape)` function, which
    /// is how SQLite runs the operator with an ESCAPE clause.
    public func like(_ pattern: some SQLExpressible, escape: (any SQLExpressible)?) -> SQLExpression {
        guard let escape else { return like(pattern) }
        return SQLExpression(.function("like", [pattern.sqlExpression.node, sqlExpression.node, escape.sqlExpression.node], distinct: false))
    }

    /// `expression BETWEEN lower AND upper` (both included).
    public func between(_ lower: some SQLExpressible, and upper: some SQLExpressible) -> SQLExpression {
        SQLExpression(.between(sqlExpression.node, lower.sqlExpression.node, upper.sqlExpression.node))
    }

    /// `expression IS NULL`.
    public var isNull: SQLExpression { SQLExpression(.postfix(sqlExpression.node, " IS NULL")) }

    /// The expression compared and ordered under a collation SQLite has, in GRDB's spelling:
    /// `Player.filter(Column("email").collating(.nocase) == "contact@example.com")`,
    /// `order(Column("name").collating(.nocase))`.
    public func collating(_ collation: Connection.CollationName) -> SQLExpression {
        SQLExpression(.postfix(sqlExpression.node, " COLLATE " + Connection.quoteIdentifier(collation.rawValue)))
    }

    /// The expression compared and ordered under a collation written in Swift. The connection
    /// must have it (``Connection/add(collation:)``, in ``Configuration/prepareDatabase(_:)``
    /// for a queue or pool); SQLite refuses the statement otherwise.
    public func collating(_ collation: DatabaseCollation) -> SQLExpression {
        SQLExpression(.postfix(sqlExpression.node, " COLLATE " + Connection.quoteIdentifier(collation.name)))
    }
}

extension Sequence where Element: SQLExpressible {
    /// `expression IN (the elements)`, in GRDB's spelling: `[1, 2, 3].contains(Column("id"))`.
    public func contains(_ expression: some SQLSpecificExpressible) -> SQLExpression {
        expression.in(self)
    }
}

extension ClosedRange where Bound: SQLExpressible {
    /// `expression BETWEEN lower AND upper`: `(1...5).contains(Column("score"))` matches 2.5 too.
    public func contains(_ expression: some SQLSpecificExpressible) -> SQLExpression {
        expression.between(lowerBound, and: upperBound)
    }
}

extension Range where Bound: SQLExpressible {
    /// `expression >= lower AND expression < upper`.
    public func contains(_ expression: some SQLSpecificExpressible) -> SQLExpression {
        (expression >= lowerBound) && (expression < upperBound)
    }
}
