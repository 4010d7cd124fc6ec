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
