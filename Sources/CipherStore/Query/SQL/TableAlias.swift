/// A table of a request, named in expressions of another part of it, in GRDB's spelling:
/// its columns, qualified with that table's alias when the request runs.
///
/// Give a request or an association an alias with `aliased(_:)`, then read its columns from
/// the request's filters, orders and selection, or from another association's:
///
/// ```swift
/// let authorAlias = TableAlias()
/// let books = try Book
///     .joining(required: Book.author.aliased(authorAlias))
///     .filter(Column("year") >= authorAlias[Column("deathYear")])
///     .order(authorAlias[Column("name")], Column("title"))
///     .fetchAll(db)
/// ```
///
/// `TableAlias(name: "a")` names the table `a` in the SQL, for SQL fragments
/// (`filter(sql: "a.country = 'FR'")`). The columns are checked against the aliased table
/// before anything runs. An alias is read in the SQL of its own request: an alias the request
/// does not hold, or one read from an association aggregate's subquery or from the second
/// query of `including(all:)`, is an error.
///
/// The two tables of a join condition (``JoinAssociation``) are given as aliases too:
///
/// ```swift
/// let latest = Chat.association(to: latestMessage) { chat, message in
///     chat[Column("id")] == message[Column("chatId")]
/// }
/// ```
///
/// A record with `enum Columns` names them as properties (`chat.id == message.chatId`).
@dynamicMemberLookup
public struct TableAlias<RowDecoder>: Sendable {
    /// What the alias stands for.
    enum Target: Sendable {
        /// One of the two tables of a join condition.
        case joinSide(SQLExpression.JoinSide)
        /// The relation given this alias with `aliased(_:)`.
        case relation(TableAliasIdentity)
    }

    let target: Target

    init(side: SQLExpression.JoinSide) {
        target = .joinSide(side)
    }

    /// An alias for any table; `name`, when given, is the table's alias in the SQL.
    public init(name: String? = nil) where RowDecoder == Void {
        target = .relation(TableAliasIdentity(name: name))
    }

    /// An alias for the table of a record type, whose `Columns` it names as properties;
    /// `name`, when given, is the table's alias in the SQL.
    public init(name: String? = nil, for record: RowDecoder.Type = RowDecoder.self) {
        target = .relation(TableAliasIdentity(name: name))
    }

    /// The identity `aliased(_:)` gives a relation; `nil` for a join condition's side.
    var identity: TableAliasIdentity? {
        if case .relation(let identity) = target { return identity }
        return nil
    }

    /// The expression with each of its ``Column``s read from this table.
    public subscript(_ expression: some SQLSpecificExpressible) -> SQLExpression {
        SQLExpression(expression.sqlExpression.node.mappingColumns(column))
    }

    /// The column of this table with this name.
    public subscript(_ column: String) -> SQLExpression {
        SQLExpression(self.column(column))
    }

    /// Whether the aliased table has a row here, as GRDB's: `Book.joining(optional:
    /// Book.author.aliased(authorAlias)).filter(!authorAlias.exists)` fetches the books without
    /// an author. Its rowid is not NULL (its primary key, for a `WITHOUT ROWID` table); a view or a
    /// common table expression has neither, and throws when the request runs. For one of a join
    /// condition's two tables, it tests the rowid.
    public var exists: SQLExpression {
        switch target {
        case .relation(let identity): return SQLExpression(.aliasExists(identity))
        case .joinSide(let side): return SQLExpression(.binary(.joinedColumn(side, "rowid"), "IS NOT", .value(.null)))
        }
    }

    private func column(_ name: String) -> SQLExpression.Node {
        switch target {
        case .joinSide(let side): return .joinedColumn(side, name)
        case .relation(let identity): return .aliasedColumn(identity, name)
        }
    }
}

/// Who a ``TableAlias`` made with `TableAlias()` is: copies of the alias are the same one.
final class TableAliasIdentity: Sendable, Hashable {
    /// The alias the SQL gives the table, when the app chose it.
    let name: String?

    init(name: String?) {
        self.name = name
    }

    static func == (lhs: TableAliasIdentity, rhs: TableAliasIdentity) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension TableAlias where RowDecoder: TableRecord {
    /// A column of the record's `Columns`: `player.score` for `Player.Columns.score`.
    public subscript(dynamicMember keyPath: KeyPath<RowDecoder.DatabaseComponents, Column>) -> SQLExpression {
        self[RowDecoder.databaseComponents[keyPath: keyPath]]
    }
}

extension SQLExpression.Node {
    /// The join condition read from the other side: each table's columns the other's (a plain
    /// ``Column``, the associated table's, becomes the origin's).
    func swappingJoinSides() -> SQLExpression.Node {
        mappingColumns { .joinedColumn(.destination, $0) }.mappingJoinedColumns { side, name in
            .joinedColumn(side == .origin ? .destination : .origin, name)
        }
    }

    /// The node with each ``TableAlias`` column replaced by what `transform` makes of it.
    func mappingJoinedColumns(_ transform: (SQLExpression.JoinSide, String) -> SQLExpression.Node) -> SQLExpression.Node {
        replacing { node in
            guard case .joinedColumn(let side, let name) = node else { return nil }
            return transform(side, name)
        }
    }

    /// The node with each ``Column`` replaced by what `transform` makes of its name.
    func mappingColumns(_ transform: (String) -> SQLExpression.Node) -> SQLExpression.Node {
        replacing { node in
            guard case .column(let name) = node else { return nil }
            return transform(name)
        }
    }
}
