// SQL functions of the query interface, in GRDB's spelling: aggregates for `select`,
// `annotated(with:)` and `having`, and a few scalar functions. All are SQLite 3.15 built-ins.

/// `COUNT(expression)`: the number of non-NULL values.
public func count(_ expression: some SQLSpecificExpressible) -> SQLExpression {
    .function("COUNT", expression)
}

/// `COUNT(DISTINCT expression)`: the number of distinct non-NULL values.
public func count(distinct expression: some SQLSpecificExpressible) -> SQLExpression {
    .function("COUNT", expression, distinct: true)
}

/// `SUM(expression)`: NULL for no rows, an integer when every value is one.
public func sum(_ expression: some SQLSpecificExpressible) -> SQLExpression {
    .function("SUM", expression)
}

/// `TOTAL(expression)`: a real, 0.0 for no rows.
public func total(_ expression: some SQLSpecificExpressible) -> SQLExpression {
    .function("TOTAL", expression)
}

/// `AVG(expression)`: a real, NULL for no rows.
public func average(_ expression: some SQLSpecificExpressible) -> SQLExpression {
    .function("AVG", expression)
}

/// `MIN(expression)`: the smallest value, NULL for no rows.
public func min(_ expression: some SQLSpecificExpressible) -> SQLExpression {
    .function("MIN", expression)
}

/// `MAX(expression)`: the largest value, NULL for no rows.
public func max(_ expression: some SQLSpecificExpressible) -> SQLExpression {
    .function("MAX", expression)
}

/// `LENGTH(expression)`: characters of a text, bytes of a blob.
public func length(_ expression: some SQLSpecificExpressible) -> SQLExpression {
    .function("LENGTH", expression)
}

/// `ABS(expression)`.
public func abs(_ expression: some SQLSpecificExpressible) -> SQLExpression {
    .function("ABS", expression)
}

/// `CAST(expression AS storageClass)`: `cast(Column("score"), as: .real)`.
///
/// See <https://www.sqlite.org/lang_expr.html#castexpr>.
public func cast(_ expression: some SQLSpecificExpressible, as storageClass: Database.StorageClass) -> SQLExpression {
    SQLExpression(.cast(expression.sqlExpression.node, storageClass))
}

/// `IFNULL(lhs, rhs)`: `rhs` where `lhs` is NULL.
public func ?? (lhs: some SQLSpecificExpressible, rhs: some SQLExpressible) -> SQLExpression {
    SQLExpression(.function("IFNULL", [lhs.sqlExpression.node, rhs.sqlExpression.node], distinct: false))
}

/// The string properties GRDB gives expressions: each calls one of the functions every
/// connection has (``DatabaseFunction/capitalize``…), which apply Swift's own, so letters
/// beyond ASCII change case too (SQLite's `UPPER` and `LOWER` change ASCII letters only:
/// call them as `DatabaseFunction`s of your own, or in SQL, where that is what you need).
extension SQLSpecificExpressible {
    /// `swiftCapitalizedString(expression)`: Foundation's `String.capitalized`.
    public var capitalized: SQLExpression { DatabaseFunction.capitalize(self) }
    /// `swiftLowercaseString(expression)`: Swift's `String.lowercased()`.
    public var lowercased: SQLExpression { DatabaseFunction.lowercase(self) }
    /// `swiftUppercaseString(expression)`: Swift's `String.uppercased()`.
    public var uppercased: SQLExpression { DatabaseFunction.uppercase(self) }
    /// `swiftLocalizedCapitalizedString(expression)`: Foundation's `String.localizedCapitalized`.
    public var localizedCapitalized: SQLExpression { DatabaseFunction.localizedCapitalize(self) }
    /// `swiftLocalizedLowercaseString(expression)`: Foundation's `String.localizedLowercase`.
    public var localizedLowercased: SQLExpression { DatabaseFunction.localizedLowercase(self) }
    /// `swiftLocalizedUppercaseString(expression)`: Foundation's `String.localizedUppercase`.
    public var localizedUppercased: SQLExpression { DatabaseFunction.localizedUppercase(self) }
}

extension SQLExpression {
    /// `NAME([DISTINCT] expression)`.
    static func function(_ name: String, _ expression: some SQLSpecificExpressible, distinct: Bool = false) -> SQLExpression {
        SQLExpression(.function(name, [expression.sqlExpression.node], distinct: distinct))
    }
}
