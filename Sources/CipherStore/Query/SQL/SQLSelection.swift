/// What a request selects: ``AllColumns``, a ``Column``, an ``SQLExpression`` (an aggregate),
/// or one of these under a name (``SQLSpecificExpressible/forKey(_:)-(String)``).
public protocol SQLSelectable: Sendable {
    /// The selection.
    var sqlSelection: SQLSelection { get }
}

/// One item of a SELECT list.
public struct SQLSelection: SQLSelectable {
    enum Kind: Sendable {
        case allColumns
        case expression(SQLExpression.Node)
        case aliased(SQLExpression.Node, String)
    }

    let kind: Kind

    public var sqlSelection: SQLSelection { self }

    /// How many result columns it makes: a table's count for all columns, else one.
    func width(tableColumnCount: Int) -> Int {
        if case .allColumns = kind { return tableColumnCount }
        return 1
    }

    /// Whether it is SQL written out, which may select several columns.
    var isWrittenInSQL: Bool {
        switch kind {
        case .expression(.literal), .aliased(.literal, _): return true
        default: return false
        }
    }

    func render(_ context: inout SQLRenderContext) -> String {
        switch kind {
        case .allColumns: return context.qualifier.map { Connection.quoteIdentifier($0) + ".*" } ?? "*"
        case .expression(let node): return node.render(&context)
        case .aliased(let node, let name): return node.render(&context) + " AS " + Connection.quoteIdentifier(name)
        }
    }

    func collectColumns(into names: inout [String]) {
        switch kind {
        case .allColumns: break
        case .expression(let node), .aliased(let node, _): node.collectColumns(into: &names)
        }
    }
}

/// All the columns of the table: `*`.
public struct AllColumns: SQLSelectable {
    public init() {}
    public var sqlSelection: SQLSelection { SQLSelection(kind: .allColumns) }
}

extension SQLSpecificExpressible {
    public var sqlSelection: SQLSelection { SQLSelection(kind: .expression(sqlExpression.node)) }

    /// The expression selected under a name: the coding key a record decodes it with
    /// (`count(Column("id")).forKey("noteCount")`).
    public func forKey(_ key: String) -> SQLSelection { SQLSelection(kind: .aliased(sqlExpression.node, key)) }

    /// The expression selected under a coding key's name.
    public func forKey(_ key: some CodingKey) -> SQLSelection { forKey(key.stringValue) }

    /// The same as ``forKey(_:)-(String)``: `expression AS name`.
    public func aliased(_ name: String) -> SQLSelection { forKey(name) }
}
