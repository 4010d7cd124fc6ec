/// One term of an ORDER BY clause: a ``Column`` or an ``SQLExpression`` (ascending), or one of
/// them with ``SQLSpecificExpressible/asc`` or ``SQLSpecificExpressible/desc``.
public protocol SQLOrderingTerm: Sendable {
    /// The term as an ordering.
    var sqlOrdering: SQLOrdering { get }
}

/// An expression in ascending or descending order.
public struct SQLOrdering: SQLOrderingTerm {
    let node: SQLExpression.Node
    /// `" ASC"`, `" DESC"`, or nothing.
    let direction: String

    public var sqlOrdering: SQLOrdering { self }

    /// The same term, in the opposite direction (ascending when it had none). SQL written out
    /// is left as it is: it may hold its own directions, and a request refuses to run with it
    /// reversed (reversed twice, it is the order it was).
    public var reversed: SQLOrdering {
        guard !isWrittenInSQL else { return self }
        return SQLOrdering(node: node, direction: direction == " DESC" ? " ASC" : " DESC")
    }

    /// Whether the term is SQL written out, which may hold several terms or a direction.
    var isWrittenInSQL: Bool {
        if case .literal = node { return true }
        return false
    }

    func render(_ context: inout SQLRenderContext) -> String {
        node.render(&context) + direction
    }
}

extension SQLSpecificExpressible {
    public var sqlOrdering: SQLOrdering { SQLOrdering(node: sqlExpression.node, direction: "") }
    /// Ascending order.
    public var asc: SQLOrdering { SQLOrdering(node: sqlExpression.node, direction: " ASC") }
    /// Descending order.
    public var desc: SQLOrdering { SQLOrdering(node: sqlExpression.node, direction: " DESC") }
}
