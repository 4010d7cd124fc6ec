// SQL functions of the query interface, in GRDB's spelling: aggregates for `select`,
// `annotated(with:)` and `having`, and a few scalar functions. All are SQLite 3.15 built-ins.

/// `COUNT(expression)`: the number of non-NULL values.
public func count(_ expression: some SQLSpecificExpressible) -> SQLExpression {
    SQLExpression(.function("COUNT", [expression.sqlExpression.node], distinct: false))
}

/// `COUNT(DISTINCT expression)`: the number of distinct non-NULL values.
public func count(distinct expression: some SQLSpecificExpressible) -> SQLExpression {
    SQLExpression(.function("COUNT", [expression.sqlExpression.node], distinct: true))
}

/// `SUM(expression)`: NULL for no rows, an integer when every value is one.
public func sum(_ expression: some SQLSpecificExpressible) -> SQLExpression {
    SQLExpression(.function("SUM", [expression.sqlExpression.node], distinct: false))
}

/// `TOTAL(expression)`: a real, 0.0 for no rows.
public func total(_ expression: some SQLSpecificExpressible) -> SQLExpression {
    SQLExpression(.function("TOTAL", [expression.sqlExpression.node], distinct: false))
}

/// `AVG(expression)`: a real, NULL for no rows.
public func average(_ expression: some SQLSpecificExpressible) -> SQLExpression {
    SQLExpression(.function("AVG", [expression.sqlExpression.node], distinct: false))
}

/// `MIN(expression)`: the smallest value, NULL for no rows.
public func min(_ expression: some SQLSpecificExpressible) -> SQLExpression {
    SQLExpression(.function("MIN", [expression.sqlExpression.node], distinct: false))
}

/// `MAX(expression)`: the largest value, NULL for no rows.
public func max(_ expression: some SQLSpecificExpressible) -> SQLExpression {
    SQLExpression(.function("MAX", [expression.sqlExpression.node], distinct: false))
}

/// `LENGTH(expression)`: characters of a text, bytes of a blob.
public func length(_ expression: some SQLSpecificExpressible) -> SQLExpression {
    SQLExpression(.function("LENGTH", [expression.sqlExpression.node], distinct: false))
}

/// `ABS(expression)`.
public func abs(_ expression: some SQLSpecificExpressible) -> SQLExpression {
    SQLExpression(.function("ABS", [expression.sqlExpression.node], distinct: false))
}

/// `IFNULL(lhs, rhs)`: `rhs` where `lhs` is NULL.
public func ?? (lhs: some SQLSpecificExpressible, rhs: some SQLExpressible) -> SQLExpression {
    SQLExpression(.function("IFNULL", [lhs.sqlExpression.node, rhs.sqlExpression.node], distinct: false))
}

extension SQLSpecificExpressible {
    /// `UPPER(expression)`: ASCII letters uppercased.
    public var uppercased: SQLExpression { SQLExpression(.function("UPPER", [sqlExpression.node], distinct: false)) }
    /// `LOWER(expression)`: ASCII letters lowercased.
    public var lowercased: SQLExpression { SQLExpression(.function("LOWER", [sqlExpression.node], distinct: false)) }
}
