/// A common table expression: a named SELECT that a request reads as a table (`WITH name AS
/// (…) SELECT …`), in GRDB's spelling:
///
/// ```swift
/// let topScores = CommonTableExpression(named: "topScore", columns: ["score"],
///                                       request: Player.select(Column("score")).order(Column("score").desc).limit(3))
/// let players = try Player.with(topScores).filter(topScores.contains(Column("score"))).fetchAll(db)
/// let scores = try topScores.all().asRequest(of: Int.self).fetchAll(db)
///
/// let counter = CommonTableExpression(recursive: true, named: "counter", columns: ["n"],
///                                     sql: "SELECT 1 UNION ALL SELECT n + 1 FROM counter WHERE n < ?", arguments: [10])
/// ```
///
/// A request names the expressions it reads with ``QueryInterfaceRequest/with(_:)``
/// (`all()` adds its own). The columns a request names on the expression are checked against
/// the columns its SELECT gives, as a table's are. Associations to and from an expression
/// join it on a condition (``JoinAssociation``: `Chat.association(to: latestMessage) { … }`).
public struct CommonTableExpression<RowDecoder>: Sendable {
    let expression: SQLCommonTableExpression

    /// The name requests read it by.
    public var tableName: String { expression.name }

    /// An expression from SQL, with its arguments (positional or named, as in `filter(sql:)`).
    /// - Parameters:
    ///   - recursive: whether the SELECT reads the expression itself (`WITH RECURSIVE`).
    ///   - name: the name requests read it by.
    ///   - columns: its column names; those of the SELECT by default.
    ///   - sql: the SELECT.
    ///   - arguments: the SELECT's arguments.
    public init(recursive: Bool = false, named name: String, columns: [String]? = nil, sql: String, arguments: StatementArguments = .none) {
        let body: Result<SQL, SQLFragment.Problem> = SQLFragment.literal(sql, arguments)
        expression = SQLCommonTableExpression(name: name, columns: columns, isRecursive: recursive, body: .sql(body))
    }

    /// An expression from SQL built with interpolation (its values bound).
    /// - Parameters:
    ///   - recursive: whether the SELECT reads the expression itself.
    ///   - name: the name requests read it by.
    ///   - columns: its column names; those of the SELECT by default.
    ///   - literal: the SELECT.
    public init(recursive: Bool = false, named name: String, columns: [String]? = nil, literal: SQL) {
        expression = SQLCommonTableExpression(name: name, columns: columns, isRecursive: recursive, body: .sql(.success(literal)))
    }

    /// An expression from a request (its columns checked, its values bound).
    /// - Parameters:
    ///   - recursive: whether the request reads the expression itself.
    ///   - name: the name requests read it by.
    ///   - columns: its column names; those the request selects by default.
    ///   - request: the SELECT.
    public init<T>(recursive: Bool = false, named name: String, columns: [String]? = nil, request: QueryInterfaceRequest<T>) {
        expression = SQLCommonTableExpression(name: name, columns: columns, isRecursive: recursive, body: .relation(request.relation))
    }

    /// A request for the expression's rows: `SELECT * FROM name`, with the expression.
    public func all() -> QueryInterfaceRequest<RowDecoder> {
        var relation = SQLRelation(table: expression.name)
        relation.commonTableExpressions = [expression]
        return QueryInterfaceRequest(relation: relation)
    }

    /// `expression IN name`: whether the value is among the expression's rows (which must have
    /// one column). The request needs the expression: add it with `with(_:)`.
    public func contains(_ element: some SQLExpressible) -> SQLExpression {
        // `IN "name"`, unparenthesized: in parentheses SQLite would read the name as a column,
        // or as a string where no column has it.
        SQLExpression(.postfix(element.sqlExpression.node, " IN " + Connection.quoteIdentifier(expression.name)))
    }
}

extension CommonTableExpression where RowDecoder == Row {
    /// An expression from SQL whose rows fetch as ``Row``s.
    /// - Parameters:
    ///   - recursive: whether the SELECT reads the expression itself (`WITH RECURSIVE`).
    ///   - name: the name requests read it by.
    ///   - columns: its column names; those of the SELECT by default.
    ///   - sql: the SELECT.
    ///   - arguments: the SELECT's arguments.
    public init(recursive: Bool = false, named name: String, columns: [String]? = nil, sql: String, arguments: StatementArguments = .none) {
        let body: Result<SQL, SQLFragment.Problem> = SQLFragment.literal(sql, arguments)
        expression = SQLCommonTableExpression(name: name, columns: columns, isRecursive: recursive, body: .sql(body))
    }

    /// An expression from SQL built with interpolation, whose rows fetch as ``Row``s.
    /// - Parameters:
    ///   - recursive: whether the SELECT reads the expression itself.
    ///   - name: the name requests read it by.
    ///   - columns: its column names; those of the SELECT by default.
    ///   - literal: the SELECT.
    public init(recursive: Bool = false, named name: String, columns: [String]? = nil, literal: SQL) {
        expression = SQLCommonTableExpression(name: name, columns: columns, isRecursive: recursive, body: .sql(.success(literal)))
    }

    /// An expression from a request whose rows fetch as ``Row``s.
    /// - Parameters:
    ///   - recursive: whether the request reads the expression itself.
    ///   - name: the name requests read it by.
    ///   - columns: its column names; those the request selects by default.
    ///   - request: the SELECT.
    public init<T>(recursive: Bool = false, named name: String, columns: [String]? = nil, request: QueryInterfaceRequest<T>) {
        expression = SQLCommonTableExpression(name: name, columns: columns, isRecursive: recursive, body: .relation(request.relation))
    }
}

/// A common table expression as a relation holds it.
struct SQLCommonTableExpression: Sendable {
    enum Body: Sendable {
        /// SQL written out, or why its arguments do not fit it (thrown when the request runs).
        case sql(Result<SQL, SQLFragment.Problem>)
        case relation(SQLRelation)
    }

    var name: String
    var columns: [String]?
    var isRecursive: Bool
    var body: Body
}

extension QueryInterfaceRequest {
    /// Adds a common table expression to the request's `WITH` clause; one of the same name
    /// is replaced where it stands.
    public func with<T>(_ expression: CommonTableExpression<T>) -> Self {
        var request = self
        let name = KnownColumns.folded(expression.tableName)
        if let index = request.relation.commonTableExpressions.firstIndex(where: { KnownColumns.folded($0.name) == name }) {
            request.relation.commonTableExpressions[index] = expression.expression
        } else {
            request.relation.commonTableExpressions.append(expression.expression)
        }
        return request
    }
}

extension TableRecord {
    /// Every record, with a common table expression in the request's `WITH` clause.
    public static func with<T>(_ expression: CommonTableExpression<T>) -> QueryInterfaceRequest<Self> {
        all().with(expression)
    }
}
