/// A value computed from a record's associated records, in GRDB's spelling: how many there are,
/// whether there are none, and the minimum, maximum, average, sum or total of one of their
/// columns. Selected beside the record with `annotated(with:)`, or compared in `having(_:)`:
///
/// ```swift
/// struct AuthorInfo: Decodable, FetchableRecord {
///     var author: Author
///     var bookCount: Int
///     var maxBookYear: Int?
/// }
/// let infos = try Author
///     .annotated(with: Author.books.count, Author.books.max(Column("year")))
///     .having(Author.books.count >= 2)
///     .asRequest(of: AuthorInfo.self)
///     .fetchAll(db)
/// ```
///
/// Each aggregate is a correlated subquery on the associated table (`(SELECT COUNT(*) FROM book
/// WHERE book.authorId = author.id)`), where GRDB joins and groups: the same values, a record
/// without associated records included (a count of 0), and no `GROUP BY` to combine with the
/// request's own. The association's filters apply (`Author.books.filter(…).count`); a
/// condition on an aggregate goes into the request's `WHERE`. The name it is selected under
/// is GRDB's: `bookCount`, `hasNoBook`, `minBookYear`, `maxBookYear`, `averageBookYear`,
/// `bookYearSum` (also for `total`), or the one `forKey(_:)` gives. A record decodes a name
/// from the leftmost column that has it: when the table has a column of the same name
/// (`author.bookCount`), the table's column is read, so give the aggregate another key.
public struct AssociationAggregate<RowDecoder>: SQLSpecificExpressible {
    /// The aggregate (replaced by its subquery when the request runs), or an expression of it
    /// that keeps its name (``??(_:_:)``, `cast(_:as:)`).
    let node: SQLExpression.Node
    /// The name it is selected under; `nil` for an expression that is not a column.
    let key: String?

    init(aggregate: SQLAssociationAggregate, key: String?) {
        self.init(node: .associationAggregate(aggregate), key: key)
    }

    init(node: SQLExpression.Node, key: String?) {
        self.node = node
        self.key = key
    }

    public var sqlExpression: SQLExpression { SQLExpression(node) }

    public var sqlSelection: SQLSelection {
        key.map { SQLSelection(kind: .aliased(sqlExpression.node, $0)) } ?? SQLSelection(kind: .expression(sqlExpression.node))
    }

    /// The same aggregate under another name.
    public func forKey(_ key: String) -> Self { AssociationAggregate(node: node, key: key) }

    /// `IFNULL(aggregate, value)`, under the aggregate's name, as in GRDB:
    /// `Author.annotated(with: Author.books.max(Column("year")) ?? 0)` decodes as `maxBookYear`,
    /// 0 for an author without books. (Other operators make an expression without a name:
    /// give it one with `forKey`.)
    public static func ?? (lhs: Self, rhs: some SQLExpressible) -> Self {
        AssociationAggregate(node: .function("IFNULL", [lhs.node, rhs.sqlExpression.node], distinct: false), key: lhs.key)
    }

    /// The same aggregate under a coding key's name.
    public func forKey(_ key: some CodingKey) -> Self { forKey(key.stringValue) }
}

/// `CAST(aggregate AS storageClass)`, under the aggregate's name, as in GRDB:
/// `Author.annotated(with: cast(Author.books.average(Column("year")), as: .integer))` decodes as
/// `averageBookYear`.
public func cast<RowDecoder>(_ aggregate: AssociationAggregate<RowDecoder>, as storageClass: Database.StorageClass) -> AssociationAggregate<RowDecoder> {
    AssociationAggregate(node: .cast(aggregate.node, storageClass), key: aggregate.key)
}

extension AssociationToMany {
    /// How many associated records each record has: `bookCount`.
    public var count: AssociationAggregate<OriginRowDecoder> {
        aggregate(.count, nil, key: singularKey + "Count")
    }

    /// Whether each record has no associated record: `hasNoBook`.
    public var isEmpty: AssociationAggregate<OriginRowDecoder> {
        aggregate(.isEmpty, nil, key: "hasNo" + Self.capitalized(singularKey))
    }

    /// The smallest value of an expression among the associated records: `minBookYear`.
    public func min(_ expression: some SQLSpecificExpressible) -> AssociationAggregate<OriginRowDecoder> {
        aggregate(.function("MIN"), expression.sqlExpression.node, key: columnName(expression).map { "min" + Self.capitalized(singularKey) + Self.capitalized($0) })
    }

    /// The largest value of an expression among the associated records: `maxBookYear`.
    public func max(_ expression: some SQLSpecificExpressible) -> AssociationAggregate<OriginRowDecoder> {
        aggregate(.function("MAX"), expression.sqlExpression.node, key: columnName(expression).map { "max" + Self.capitalized(singularKey) + Self.capitalized($0) })
    }

    /// The average of an expression among the associated records: `averageBookYear`.
    public func average(_ expression: some SQLSpecificExpressible) -> AssociationAggregate<OriginRowDecoder> {
        aggregate(.function("AVG"), expression.sqlExpression.node, key: columnName(expression).map { "average" + Self.capitalized(singularKey) + Self.capitalized($0) })
    }

    /// The sum of an expression among the associated records (`NULL` when there are none):
    /// `bookYearSum`.
    public func sum(_ expression: some SQLSpecificExpressible) -> AssociationAggregate<OriginRowDecoder> {
        aggregate(.function("SUM"), expression.sqlExpression.node, key: columnName(expression).map { singularKey + Self.capitalized($0) + "Sum" })
    }

    /// The sum of an expression among the associated records as a real, 0 when there are none:
    /// `bookYearSum`, as in GRDB.
    public func total(_ expression: some SQLSpecificExpressible) -> AssociationAggregate<OriginRowDecoder> {
        aggregate(.function("TOTAL"), expression.sqlExpression.node, key: columnName(expression).map { singularKey + Self.capitalized($0) + "Sum" })
    }

    private func aggregate(_ function: SQLAssociationAggregate.Function, _ argument: SQLExpression.Node?, key: String?) -> AssociationAggregate<OriginRowDecoder> {
        AssociationAggregate(aggregate: SQLAssociationAggregate(association: sqlAssociation, function: function, argument: argument), key: key)
    }

    private func columnName(_ expression: some SQLSpecificExpressible) -> String? {
        if case .column(let name) = expression.sqlExpression.node { return name }
        return nil
    }

    /// The association's key in the singular (`books` → `book`), as GRDB names aggregates.
    private var singularKey: String { AssociationKeyName.singular(sqlAssociation.key) }

    private static func capitalized(_ name: String) -> String {
        name.prefix(1).uppercased() + name.dropFirst()
    }
}

/// An association aggregate as a request holds it: rendered against the schema when the
/// request runs (see ``SQLRelation/resolvingAggregates(_:)``).
struct SQLAssociationAggregate: Sendable {
    enum Function: Sendable {
        case count
        case isEmpty
        /// `MIN`, `MAX`, `AVG`, `SUM` or `TOTAL` of the argument.
        case function(String)
    }

    let association: SQLAssociation
    let function: Function
    let argument: SQLExpression.Node?
}
