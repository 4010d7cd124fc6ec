/// An SQL expression of the query interface: a column, a value, an operation on them, or SQL
/// written out. Values are always bound, never written into the SQL text.
///
/// Made from ``Column``s and values with operators (`==`, `!=`, `<`, `<=`, `>`, `>=`, `+`,
/// `-`, `*`, `/`, `&&`, `||`, `!`), ``SQLSpecificExpressible/in(_:)``, ``SQLSpecificExpressible/like(_:)``,
/// ``SQLSpecificExpressible/between(_:and:)``, SQL functions (``count(_:)``, ``sum(_:)``,
/// ``length(_:)``…), or written out: `SQLExpression(sql: "length(body) > ?", arguments: [100])`.
///
/// An expression is rendered late, when its request runs: in a request that joins tables
/// (associations) each column is qualified with the alias of the table it belongs to, and
/// every ``Column`` is checked against that table's columns first (a misspelled name throws,
/// instead of SQLite reading it as a string literal).
public struct SQLExpression: Sendable {
    indirect enum Node: Sendable {
        /// A column of the table of the request (or association) the expression is used in.
        case column(String)
        case value(DatabaseValue)
        /// SQL written out, with its arguments; SQLite checks its names.
        case literal(SQL)
        case prefix(String, Node)
        case postfix(Node, String)
        case binary(Node, String, Node)
        case function(String, [Node], distinct: Bool)
        /// `CAST(node AS storageClass)`.
        case cast(Node, Database.StorageClass)
        case countAll
        case inList(Node, [Node])
        case between(Node, Node, Node)
        /// `table MATCH pattern`: a full-text search on the whole row of the request's table
        /// (named by its alias when the query joins tables).
        case tableMatch(table: String, Node)
        /// A value computed from the associated records (``AssociationAggregate``), replaced
        /// by its subquery when the request runs (``SQLRelation/resolvingAggregates(_:)``).
        case associationAggregate(SQLAssociationAggregate)
        /// The primary key of the request's table (`orderByPrimaryKey()`,
        /// `selectPrimaryKey(as:)`): replaced by its columns, read from the schema, when the
        /// request runs (``SQLRelation/resolvingPrimaryKey(_:)``).
        case primaryKey
        /// A column of one side of a join condition (``TableAlias``), qualified with that
        /// side's alias when the join is rendered.
        case joinedColumn(JoinSide, String)
        /// A column of the relation given this ``TableAlias`` with `aliased(_:)`, qualified
        /// with its alias in the SQL.
        case aliasedColumn(TableAliasIdentity, String)
        /// Whether the relation given this ``TableAlias`` has a row here (`alias.exists`):
        /// its rowid, or its primary key, is not NULL.
        case aliasExists(TableAliasIdentity)
    }

    /// The two tables of a join condition written with ``TableAlias`` values.
    enum JoinSide: Sendable {
        /// The table the association starts from.
        case origin
        /// The associated table.
        case destination
    }

    let node: Node

    init(_ node: Node) {
        self.node = node
    }

    /// SQL written out, with `?` for each argument. Its names are not checked: a misspelled
    /// double-quoted name is read by SQLite 3.15 as a string, so prefer ``Column`` values.
    public init(sql: String, arguments: [DatabaseValue] = []) {
        self.init(.literal(SQL(sql: sql, arguments: arguments)))
    }

    /// The SQL text, with `?` for each argument, as it runs in a request on one table.
    public var sql: String {
        var context = SQLRenderContext()
        return node.render(&context)
    }

    /// The values bound to the placeholders, in order.
    public var arguments: [DatabaseValue] {
        var context = SQLRenderContext()
        _ = node.render(&context)
        return context.arguments
    }

    /// The names of the ``Column``s it was built from, checked against the table before a
    /// request runs.
    var columns: [String] {
        var names: [String] = []
        node.collectColumns(into: &names)
        return names
    }
}

/// What rendering an expression needs: where the arguments go, and the alias that qualifies
/// columns when the query joins tables.
struct SQLRenderContext {
    var arguments: [DatabaseValue] = []
    /// The alias of the table the expression's columns belong to; `nil` when the query reads
    /// one table and names need no qualifier.
    var qualifier: String?
    /// The aliases of a join condition's two tables (``SQLExpression/Node/joinedColumn(_:_:)``).
    var joinAliases: (origin: String, destination: String)?
    /// The SQL alias of each relation given a ``TableAlias`` in the query being rendered.
    var tableAliases: [TableAliasIdentity: String] = [:]
    /// The condition each ``TableAlias/exists`` of the query renders as.
    var aliasExistence: [TableAliasIdentity: String] = [:]
}

extension SQLExpression.Node {
    func render(_ context: inout SQLRenderContext) -> String {
        switch self {
        case .column(let name):
            let quoted = Connection.quoteIdentifier(name)
            return context.qualifier.map { Connection.quoteIdentifier($0) + "." + quoted } ?? quoted
        case .value(let value):
            context.arguments.append(value)
            return "?"
        case .literal(let literal):
            context.arguments += literal.arguments
            return literal.sql
        case .prefix(let op, let operand):
            return op + operand.renderOperand(&context)
        case .postfix(let operand, let op):
            return operand.renderOperand(&context) + op
        case .binary(let lhs, let op, let rhs):
            let left = lhs.renderOperand(&context)
            return left + " " + op + " " + rhs.renderOperand(&context)
        case .function(let name, let arguments, let distinct):
            return name + "(" + (distinct ? "DISTINCT " : "") + arguments.map { $0.render(&context) }.joined(separator: ", ") + ")"
        case .cast(let operand, let storageClass):
            return "CAST(" + operand.render(&context) + " AS " + storageClass.rawValue + ")"
        case .countAll:
            return "COUNT(*)"
        case .inList(let operand, let values):
            // An empty list matches nothing: `x IN ()` is not SQL.
            guard !values.isEmpty else { return "0" }
            let left = operand.renderOperand(&context)
            return left + " IN (" + values.map { $0.render(&context) }.joined(separator: ", ") + ")"
        case .between(let operand, let lower, let upper):
            let left = operand.renderOperand(&context)
            let low = lower.renderOperand(&context)
            return left + " BETWEEN " + low + " AND " + upper.renderOperand(&context)
        case .tableMatch(let table, let pattern):
            return Connection.quoteIdentifier(context.qualifier ?? table) + " MATCH " + pattern.renderOperand(&context)
        case .associationAggregate(let aggregate):
            // Outside a request (`SQLExpression.sql`), where the schema is not at hand.
            return "(SELECT … FROM " + Connection.quoteIdentifier(aggregate.association.relation.table) + ")"
        case .primaryKey:
            // Outside a request, where the schema is not at hand.
            return "(primary key)"
        case .joinedColumn(let side, let name):
            let alias = context.joinAliases.map { side == .origin ? $0.origin : $0.destination } ?? context.qualifier
            let quoted = Connection.quoteIdentifier(name)
            return alias.map { Connection.quoteIdentifier($0) + "." + quoted } ?? quoted
        case .aliasedColumn(let identity, let name):
            // Where the query does not hold the alias (an aggregate's subquery), a name no table
            // has, or the app's own, which SQLite resolves or refuses: never an unqualified column.
            let alias = context.tableAliases[identity] ?? identity.name ?? "unknown table alias"
            return Connection.quoteIdentifier(alias) + "." + Connection.quoteIdentifier(name)
        case .aliasExists(let identity):
            // Resolved before rendering; otherwise a column no table has, which SQLite refuses.
            return context.aliasExistence[identity] ?? "\"unknown table alias\".\"rowid\" IS NOT NULL"
        }
    }

    /// The node as an operand of an operator: in parentheses unless it is a single term, so
    /// SQLite's precedence never regroups what Swift grouped.
    private func renderOperand(_ context: inout SQLRenderContext) -> String {
        switch self {
        case .column, .value, .function, .cast, .countAll, .joinedColumn, .aliasedColumn: return render(&context)
        default: return "(" + render(&context) + ")"
        }
    }

    func collectColumns(into names: inout [String]) {
        switch self {
        case .column(let name): names.append(name)
        case .value, .literal, .countAll, .tableMatch, .associationAggregate, .primaryKey, .joinedColumn, .aliasedColumn, .aliasExists: break
        case .prefix(_, let operand), .postfix(let operand, _), .cast(let operand, _): operand.collectColumns(into: &names)
        case .binary(let lhs, _, let rhs):
            lhs.collectColumns(into: &names)
            rhs.collectColumns(into: &names)
        case .function(_, let arguments, _):
            for argument in arguments { argument.collectColumns(into: &names) }
        case .inList(let operand, let values):
            operand.collectColumns(into: &names)
            for value in values { value.collectColumns(into: &names) }
        case .between(let operand, let lower, let upper):
            for part in [operand, lower, upper] { part.collectColumns(into: &names) }
        }
    }

    /// The node with each association aggregate replaced by what `transform` makes of it.
    func mapAggregates(_ transform: (SQLAssociationAggregate) throws -> SQLExpression.Node) rethrows -> SQLExpression.Node {
        try replacing { node in
            guard case .associationAggregate(let aggregate) = node else { return nil }
            return try transform(aggregate)
        }
    }

    /// The node with each node `replacement` gives a replacement for replaced, the others
    /// rebuilt from their parts' replacements (outermost first: a replaced node's parts are not
    /// visited).
    func replacing(_ replacement: (SQLExpression.Node) throws -> SQLExpression.Node?) rethrows -> SQLExpression.Node {
        if let replaced = try replacement(self) { return replaced }
        switch self {
        case .column, .value, .literal, .countAll, .primaryKey, .joinedColumn, .aliasedColumn, .aliasExists, .associationAggregate: return self
        case .prefix(let op, let operand): return .prefix(op, try operand.replacing(replacement))
        case .postfix(let operand, let op): return .postfix(try operand.replacing(replacement), op)
        case .cast(let operand, let storageClass): return .cast(try operand.replacing(replacement), storageClass)
        case .binary(let lhs, let op, let rhs): return .binary(try lhs.replacing(replacement), op, try rhs.replacing(replacement))
        case .function(let name, let arguments, let distinct): return .function(name, try arguments.map { try $0.replacing(replacement) }, distinct: distinct)
        case .inList(let operand, let values): return .inList(try operand.replacing(replacement), try values.map { try $0.replacing(replacement) })
        case .between(let operand, let lower, let upper):
            return .between(try operand.replacing(replacement), try lower.replacing(replacement), try upper.replacing(replacement))
        case .tableMatch(let table, let pattern): return .tableMatch(table: table, try pattern.replacing(replacement))
        }
    }

    /// Whether the node holds an association aggregate.
    var containsAggregate: Bool {
        contains { if case .associationAggregate = $0 { return true } else { return false } }
    }

    /// Whether the node may aggregate the rows of a group: `COUNT(*)`, one of SQLite's
    /// aggregate functions of one argument, or SQL written out (it may hold one).
    var mayAggregateRows: Bool {
        contains { node in
            switch node {
            case .countAll, .literal: return true
            case .function(let name, let arguments, _):
                let name = name.lowercased()
                return ["count", "sum", "total", "avg", "group_concat"].contains(name) || (["min", "max"].contains(name) && arguments.count == 1)
            default: return false
            }
        }
    }

    /// The terms joined by `op` (`AND`, `OR`) as a balanced tree: a long left-nested chain of
    /// parenthesized terms overflows SQLite's parser stack (from about 90 terms).
    static func balanced(_ terms: [SQLExpression.Node], by op: String) -> SQLExpression.Node {
        if terms.count == 1 { return terms[0] }
        let middle = terms.count / 2
        return .binary(balanced(Array(terms[..<middle]), by: op), op, balanced(Array(terms[middle...]), by: op))
    }

    /// The terms of a chain of ANDs, in order (the node itself when it is not one).
    var conjuncts: [SQLExpression.Node] {
        if case .binary(let lhs, let op, let rhs) = self, op == "AND" { return lhs.conjuncts + rhs.conjuncts }
        return [self]
    }

    /// Whether `predicate` holds for the node or one of the nodes it is made of.
    func contains(where predicate: (SQLExpression.Node) -> Bool) -> Bool {
        if predicate(self) { return true }
        switch self {
        case .column, .value, .literal, .countAll, .associationAggregate, .primaryKey, .joinedColumn, .aliasedColumn, .aliasExists: return false
        case .prefix(_, let operand), .postfix(let operand, _), .cast(let operand, _), .tableMatch(_, let operand): return operand.contains(where: predicate)
        case .binary(let lhs, _, let rhs): return lhs.contains(where: predicate) || rhs.contains(where: predicate)
        case .function(_, let arguments, _): return arguments.contains { $0.contains(where: predicate) }
        case .inList(let operand, let values): return ([operand] + values).contains { $0.contains(where: predicate) }
        case .between(let operand, let lower, let upper): return [operand, lower, upper].contains { $0.contains(where: predicate) }
        }
    }

    /// The ``TableAlias`` columns the node reads, with their aliases; `nil` for
    /// ``TableAlias/exists``.
    var aliasedColumns: [(identity: TableAliasIdentity, name: String?)] {
        var columns: [(identity: TableAliasIdentity, name: String?)] = []
        _ = contains { node in
            switch node {
            case .aliasedColumn(let identity, let name): columns.append((identity, name))
            case .aliasExists(let identity): columns.append((identity, nil))
            default: break
            }
            return false
        }
        return columns
    }

    /// Whether the node is a NULL value (compared with `IS`, not `=`).
    var isNullValue: Bool {
        if case .value(let value) = self { return value.isNull }
        return false
    }
}

/// A value the query interface can use in an expression: a ``Column``, an ``SQLExpression``,
/// or any ``DatabaseValueConvertible`` value (bound as an argument).
public protocol SQLExpressible: Sendable {
    /// The value as an expression.
    var sqlExpression: SQLExpression { get }
}

/// An expression that is not a plain value: a ``Column``, an ``SQLExpression``, an ``SQL``
/// literal. Operators between such an expression and a value make expressions (and not, say,
/// Swift's `Bool` from `==`); it can also be selected and ordered by.
public protocol SQLSpecificExpressible: SQLExpressible, SQLSelectable, SQLOrderingTerm {}

extension SQLExpression: SQLSpecificExpressible {
    public var sqlExpression: SQLExpression { self }
}

extension SQL: SQLSpecificExpressible {
    public var sqlExpression: SQLExpression { SQLExpression(.literal(self)) }
}

extension DatabaseValueConvertible {
    public var sqlExpression: SQLExpression { SQLExpression(.value(databaseValue)) }
}
