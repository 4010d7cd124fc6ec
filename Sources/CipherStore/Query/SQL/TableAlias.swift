/// One of the two tables of a join condition (``JoinAssociation``): its columns, qualified with
/// that table's alias when the request runs, in GRDB's spelling.
///
/// ```swift
/// let latest = Chat.association(to: latestMessage) { chat, message in
///     chat[Column("id")] == message[Column("chatId")]
/// }
/// ```
///
/// A record with `enum Columns` names them as properties (`chat.id == message.chatId`). The
/// columns are checked against their tables before the request runs.
@dynamicMemberLookup
public struct TableAlias<RowDecoder>: Sendable {
    let side: SQLExpression.JoinSide

    /// The expression with each of its ``Column``s read from this table.
    public subscript(_ expression: some SQLSpecificExpressible) -> SQLExpression {
        SQLExpression(expression.sqlExpression.node.mappingColumns { .joinedColumn(side, $0) })
    }

    /// The column of this table with this name.
    public subscript(_ column: String) -> SQLExpression {
        SQLExpression(.joinedColumn(side, column))
    }
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
        switch self {
        case .joinedColumn(let side, let name): return transform(side, name)
        case .column, .value, .literal, .countAll, .primaryKey, .associationAggregate: return self
        case .prefix(let op, let operand): return .prefix(op, operand.mappingJoinedColumns(transform))
        case .postfix(let operand, let op): return .postfix(operand.mappingJoinedColumns(transform), op)
        case .binary(let lhs, let op, let rhs): return .binary(lhs.mappingJoinedColumns(transform), op, rhs.mappingJoinedColumns(transform))
        case .function(let name, let arguments, let distinct): return .function(name, arguments.map { $0.mappingJoinedColumns(transform) }, distinct: distinct)
        case .inList(let operand, let values): return .inList(operand.mappingJoinedColumns(transform), values.map { $0.mappingJoinedColumns(transform) })
        case .between(let operand, let lower, let upper):
            return .between(operand.mappingJoinedColumns(transform), lower.mappingJoinedColumns(transform), upper.mappingJoinedColumns(transform))
        case .tableMatch(let table, let pattern): return .tableMatch(table: table, pattern.mappingJoinedColumns(transform))
        }
    }

    /// The node with each ``Column`` replaced by what `transform` makes of its name.
    func mappingColumns(_ transform: (String) -> SQLExpression.Node) -> SQLExpression.Node {
        switch self {
        case .column(let name): return transform(name)
        case .value, .literal, .countAll, .primaryKey, .joinedColumn, .associationAggregate: return self
        case .prefix(let op, let operand): return .prefix(op, operand.mappingColumns(transform))
        case .postfix(let operand, let op): return .postfix(operand.mappingColumns(transform), op)
        case .binary(let lhs, let op, let rhs): return .binary(lhs.mappingColumns(transform), op, rhs.mappingColumns(transform))
        case .function(let name, let arguments, let distinct): return .function(name, arguments.map { $0.mappingColumns(transform) }, distinct: distinct)
        case .inList(let operand, let values): return .inList(operand.mappingColumns(transform), values.map { $0.mappingColumns(transform) })
        case .between(let operand, let lower, let upper):
            return .between(operand.mappingColumns(transform), lower.mappingColumns(transform), upper.mappingColumns(transform))
        case .tableMatch(let table, let pattern): return .tableMatch(table: table, pattern.mappingColumns(transform))
        }
    }
}
