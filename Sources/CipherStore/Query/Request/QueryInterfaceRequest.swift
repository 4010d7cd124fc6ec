/// A request built step by step, in GRDB's spelling, and run as one SELECT (plus one per
/// to-many association): `Note.filter(…).order(…).limit(…).fetchAll(db)`.
///
/// ```swift
/// let open = try Note.filter(Column("done") == false).order(Column("date").desc).fetchAll(db)
/// let titles = try Note.select(Column("title"), as: String.self).fetchAll(db)
/// let perTag = try Note.select(Column("tag"), count(Column("id")).forKey("n")).group(Column("tag")).asRequest(of: Row.self).fetchAll(db)
/// let books = try Book.including(required: Book.author).asRequest(of: BookInfo.self).fetchAll(db)
/// ```
///
/// `RowDecoder` is what each row fetches as: a record, a value (after `select(…, as:)`), or
/// ``Row``. The SQL is SQLite 3.15 SQL, so a request runs the same on every SQLCipher, and every
/// value is bound. Before it runs, every ``Column`` it names is checked against its table (an
/// unknown name throws, where SQLite would read it as a string), and the join conditions of its
/// associations are read from the schema's foreign keys; ``makeSQL(_:)`` shows the result.
public struct QueryInterfaceRequest<RowDecoder>: Sendable {
    var relation: SQLRelation

    init(relation: SQLRelation) {
        self.relation = relation
    }

    // MARK: Filtering and ordering

    /// Adds a condition; several are combined with AND.
    public func filter(_ predicate: some SQLSpecificExpressible) -> Self {
        var request = self
        request.relation.filters.append(predicate.sqlExpression.node)
        return request
    }

    /// Adds a condition written in SQL, with its arguments: `?` placeholders with positional
    /// arguments, or names (`:name`, `@name`, `$name`) with named ones. Names are not checked
    /// (a misspelled double-quoted name is read by SQLite 3.15 as a string): prefer ``Column``s.
    /// A fragment whose arguments do not fit its placeholders (see ``StatementArguments``)
    /// makes the request throw a ``DatabaseError`` before anything runs.
    public func filter(sql: String, arguments: StatementArguments = .none) -> Self {
        withFragment(sql, arguments) { $0.filter($1) }
    }

    /// Replaces the order with SQL written out: `order(sql: "length(name) DESC")`.
    public func order(sql: String, arguments: StatementArguments = .none) -> Self {
        withFragment(sql, arguments) { $0.order($1) }
    }

    /// Replaces what is selected with SQL written out: `select(sql: "id, upper(name) AS name")`.
    public func select(sql: String, arguments: StatementArguments = .none) -> Self {
        withFragment(sql, arguments) { $0.select($1) }
    }

    /// `GROUP BY` SQL written out.
    public func group(sql: String, arguments: StatementArguments = .none) -> Self {
        withFragment(sql, arguments) { $0.group($1) }
    }

    /// Adds a `HAVING` condition written in SQL.
    public func having(sql: String, arguments: StatementArguments = .none) -> Self {
        withFragment(sql, arguments) { $0.having($1) }
    }

    /// The request refined by `apply` with the fragment, or refused when run if its arguments
    /// do not fit it.
    private func withFragment(_ sql: String, _ arguments: StatementArguments, _ apply: (Self, SQL) -> Self) -> Self {
        switch SQLFragment.literal(sql, arguments) {
        case .success(let literal):
            return apply(self, literal)
        case .failure(let problem):
            var request = self
            request.relation.conflicts.append(problem.message)
            return request
        }
    }

    /// Replaces the order: `order(Column("date").desc, Column("id"))`.
    public func order(_ orderings: any SQLOrderingTerm...) -> Self {
        order(orderings)
    }

    /// Replaces the order.
    public func order(_ orderings: [any SQLOrderingTerm]) -> Self {
        var request = self
        request.relation.orderings = orderings.map(\.sqlOrdering)
        request.relation.reversesOrderWrittenInSQL = false
        return request
    }

    /// Removes any order.
    public func unordered() -> Self { order([]) }

    /// At most `limit` rows, after skipping `offset`.
    public func limit(_ limit: Int, offset: Int? = nil) -> Self {
        var request = self
        request.relation.limit = limit
        request.relation.offset = offset
        return request
    }

    /// The same request in the opposite order: each ordering term reversed (a term without a
    /// direction, ascending, becomes descending), the associations' orderings too; a request
    /// with no order is unchanged, as in GRDB. An order written in SQL (`order(sql:)`) cannot
    /// be reversed term by term: the request throws a ``DatabaseError`` before anything runs,
    /// unless its order is replaced first.
    public func reversed() -> Self {
        var request = self
        request.relation = request.relation.reversed()
        return request
    }

    // MARK: Selection

    /// Replaces what is selected; rows still decode as `RowDecoder`.
    public func select(_ selection: any SQLSelectable...) -> Self {
        select(selection)
    }

    /// Replaces what is selected; rows still decode as `RowDecoder`.
    public func select(_ selection: [any SQLSelectable]) -> Self {
        var request = self
        request.relation.selection = selection.map(\.sqlSelection)
        return request
    }

    /// Replaces what is selected, and fetches each row as `type`:
    /// `Note.select(max(Column("score")), as: Double.self).fetchOne(db)`.
    public func select<T>(_ selection: any SQLSelectable..., as type: T.Type) -> QueryInterfaceRequest<T> {
        select(selection).asRequest(of: T.self)
    }

    /// Selects more after what is already selected (all columns, by default):
    /// `Author.annotated(with: length(Column("name")).forKey("nameLength"))`.
    public func annotated(with selection: any SQLSelectable...) -> Self {
        var request = self
        request.relation.selection += selection.map(\.sqlSelection)
        return request
    }

    /// `SELECT DISTINCT`.
    public func distinct() -> Self {
        var request = self
        request.relation.isDistinct = true
        return request
    }

    /// `GROUP BY`.
    public func group(_ expressions: any SQLExpressible...) -> Self {
        var request = self
        request.relation.groups = expressions.map(\.sqlExpression.node)
        return request
    }

    /// Adds a `HAVING` condition; several are combined with AND. A condition on an association
    /// aggregate (`having(Author.books.count >= 2)`) goes into `WHERE`: each aggregate is a
    /// subquery for its own record (see ``AssociationAggregate``), and SQLite 3.15 refuses
    /// `HAVING` without `GROUP BY`. Each term of an AND chain goes its own way, so
    /// `having(count(Column("id")) > 1 && Author.books.count >= 2)` keeps the first in `HAVING`;
    /// a term that mixes both kinds (or holds SQL written out) stays in `HAVING`.
    public func having(_ predicate: some SQLSpecificExpressible) -> Self {
        var request = self
        for term in predicate.sqlExpression.node.conjuncts {
            if term.containsAggregate && !term.mayAggregateRows {
                request.relation.filters.append(term)
            } else {
                request.relation.havings.append(term)
            }
        }
        return request
    }

    /// The same request, fetching each row as `type` (a record with nested associated
    /// records, a value, ``Row``).
    public func asRequest<T>(of type: T.Type) -> QueryInterfaceRequest<T> {
        QueryInterfaceRequest<T>(relation: relation)
    }

    // MARK: SQL

    /// The SELECT this request runs on `db`, with its arguments: join conditions read from the
    /// schema, columns checked.
    /// - Throws: a ``DatabaseError`` for an unknown column or table, or an association whose
    ///   foreign key the schema does not say.
    public func makeSQL(_ db: Connection) throws -> SQL {
        var generator = SQLQueryGenerator(db: db)
        let query = try generator.select(relation)
        return SQL(sql: query.sql, arguments: query.arguments)
    }
}

/// The earlier name of ``QueryInterfaceRequest``.
public typealias QueryRequest<RowDecoder> = QueryInterfaceRequest<RowDecoder>
