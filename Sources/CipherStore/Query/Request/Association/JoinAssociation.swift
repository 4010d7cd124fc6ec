/// An association on a condition of its own, to or from a common table expression, in GRDB's
/// spelling:
///
/// ```swift
/// let latestMessage = CommonTableExpression<Message>(
///     named: "latestMessage",
///     request: Message.select(Column("chatId"), max(Column("date")).forKey("date")).group(Column("chatId")))
/// let association = Chat.association(to: latestMessage) { chat, latest in
///     chat[Column("id")] == latest[Column("chatId")]
/// }
/// let chats = try Chat.with(latestMessage).including(optional: association).asRequest(of: ChatInfo.self).fetchAll(db)
/// ```
///
/// It joins (`JOIN … ON` the condition) and is included to one record, under the expression's
/// name (or the destination table's); the request must name the expression with `with(_:)`.
/// Without a condition every row of one side goes with every row of the other. It has no
/// foreign key, so it cannot be prefetched, aggregated, read through, or used in
/// `request(for:)`: those throw before anything runs.
public struct JoinAssociation<Origin, Destination>: AssociationToOne {
    public typealias OriginRowDecoder = Origin
    public typealias RowDecoder = Destination
    public let _sqlAssociation: SQLAssociationBox
    public init(_sqlAssociation: SQLAssociationBox) { self._sqlAssociation = _sqlAssociation }

    /// The association from `origin` to `destination` on `condition` (`1`, every pair, when
    /// there is none).
    init(from origin: String, to destination: String, condition: SQLExpression.Node?) {
        var relation = SQLRelation(table: destination)
        relation.selection = [AllColumns().sqlSelection]
        let association = SQLAssociation(key: destination, isToMany: false, direction: .belongsTo, originTable: origin, foreignKey: nil,
                                         relation: relation, joinCondition: condition ?? .literal(SQL(sql: "1")))
        self.init(_sqlAssociation: SQLAssociationBox(association: association))
    }

    /// The condition the closure writes with the two tables' aliases.
    static func condition(_ condition: (TableAlias<Origin>, TableAlias<Destination>) -> any SQLExpressible) -> SQLExpression.Node {
        condition(TableAlias(side: .origin), TableAlias(side: .destination)).sqlExpression.node
    }
}

extension TableRecord {
    /// An association to the rows of a common table expression that `condition` pairs with
    /// each record: its first argument is this table, its second the expression.
    public static func association<Destination>(
        to cte: CommonTableExpression<Destination>,
        on condition: (_ left: TableAlias<Self>, _ right: TableAlias<Destination>) -> any SQLExpressible
    ) -> JoinAssociation<Self, Destination> {
        JoinAssociation(from: databaseTableName, to: cte.tableName, condition: JoinAssociation.condition(condition))
    }

    /// An association to every row of a common table expression.
    public static func association<Destination>(to cte: CommonTableExpression<Destination>) -> JoinAssociation<Self, Destination> {
        JoinAssociation(from: databaseTableName, to: cte.tableName, condition: nil)
    }
}

extension CommonTableExpression {
    /// An association from the expression's rows to another expression's, on `condition`.
    public func association<Destination>(
        to cte: CommonTableExpression<Destination>,
        on condition: (_ left: TableAlias<RowDecoder>, _ right: TableAlias<Destination>) -> any SQLExpressible
    ) -> JoinAssociation<RowDecoder, Destination> {
        JoinAssociation(from: tableName, to: cte.tableName, condition: JoinAssociation.condition(condition))
    }

    /// An association from the expression's rows to every row of another expression.
    public func association<Destination>(to cte: CommonTableExpression<Destination>) -> JoinAssociation<RowDecoder, Destination> {
        JoinAssociation(from: tableName, to: cte.tableName, condition: nil)
    }

    /// An association from the expression's rows to the records of a table, on `condition`.
    public func association<Destination: TableRecord>(
        to destination: Destination.Type,
        on condition: (_ left: TableAlias<RowDecoder>, _ right: TableAlias<Destination>) -> any SQLExpressible
    ) -> JoinAssociation<RowDecoder, Destination> {
        JoinAssociation(from: tableName, to: Destination.databaseTableName, condition: JoinAssociation.condition(condition))
    }

    /// An association from the expression's rows to every record of a table.
    public func association<Destination: TableRecord>(to destination: Destination.Type) -> JoinAssociation<RowDecoder, Destination> {
        JoinAssociation(from: tableName, to: Destination.databaseTableName, condition: nil)
    }
}
