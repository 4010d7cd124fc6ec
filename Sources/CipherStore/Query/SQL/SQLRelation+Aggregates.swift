/// Association aggregates (``AssociationAggregate``) rendered as correlated subqueries, against
/// the schema, when a request runs.
extension SQLRelation {
    /// The relation with each association aggregate it holds replaced by its subquery on the
    /// associated table, correlated with this relation's table. The aggregates of its joins
    /// are resolved where the joins are rendered, once their tables have aliases.
    /// - Parameter alias: the name this relation's table has in the query; its own by default.
    /// - Throws: ``DatabaseError`` for an unknown column or association key; nothing has run then.
    /// - Parameter expressions: the columns of the common table expressions the outer query
    ///   reads, by folded name: a subquery may join them.
    func resolvingAggregates(_ db: Connection, alias: String? = nil, expressions: [String: KnownColumns] = [:]) throws -> SQLRelation {
        guard ownNodes.contains(where: \.containsAggregate) else { return self }
        try checkAggregatesAfterGrouping(db)
        try checkAggregatesBesideJoins()
        let resolve = { (aggregate: SQLAssociationAggregate) in try aggregate.subquery(db, parentTable: table, parentAlias: alias ?? table, expressions: expressions) }
        var resolved = self
        resolved.selection = try selection.map { selection in
            switch selection.kind {
            case .allColumns: return selection
            case .expression(let node): return SQLSelection(kind: .expression(try node.mapAggregates(resolve)))
            case .aliased(let node, let name): return SQLSelection(kind: .aliased(try node.mapAggregates(resolve), name))
            }
        }
        resolved.filters = try filters.map { try $0.mapAggregates(resolve) }
        resolved.groups = try groups.map { try $0.mapAggregates(resolve) }
        resolved.havings = try havings.map { try $0.mapAggregates(resolve) }
        resolved.orderings = try orderings.map { SQLOrdering(node: try $0.node.mapAggregates(resolve), direction: $0.direction) }
        return resolved
    }

    /// Throws when a grouped request (`group(Column("countryId"))`) selects, filters with
    /// `having` or orders by an association aggregate without grouping by its table's key: the
    /// aggregate is worked out for one row of the table, a group holds several, and SQLite
    /// would take any one of them (two SQLite versions answered differently). Filters (`WHERE`)
    /// and groups are read row by row, before grouping, and may hold one.
    private func checkAggregatesAfterGrouping(_ db: Connection) throws {
        guard !groups.isEmpty else { return }
        let afterGrouping = havings + orderings.map(\.node) + selectedNodes
        guard afterGrouping.contains(where: \.containsAggregate) else { return }
        // Columns of this table: by name, or through the alias given to it (`alias[Column("id")]`).
        let grouped = Set(groups.compactMap { node -> String? in
            switch node {
            case .column(let name): return KnownColumns.folded(name)
            case .aliasedColumn(let identity, let name) where identity == tableAlias: return KnownColumns.folded(name)
            default: return nil
            }
        })
        if let key = try? db.primaryKeyOrRowid(ofTable: table), key.allSatisfy({ grouped.contains(KnownColumns.folded($0)) }) { return }
        // The rowid names one row too, under any of its names that no column takes.
        let shape = try TableShape.read(table, schema: db.schemaObject(named: table)?.schema ?? "main", in: db)
        let columns = Set(shape.columns.map(KnownColumns.folded))
        if shape.rowidName != nil, ["rowid", "_rowid_", "oid"].contains(where: { grouped.contains($0) && !columns.contains($0) }) { return }
        throw DatabaseError(resultCode: .SQLITE_ERROR, message: "an association aggregate (count, isEmpty, sum… of an association) is worked out for each row of \(table), and this request groups its rows by other columns than \(table)'s primary key, so a group has no one row to work it out for (SQLite would take any); nothing was run. Use the aggregate in filter(_:) (before grouping), group by the primary key too, or write the aggregate over the group in SQL")
    }

    /// Throws when an association aggregate and a joined association share a key
    /// with different filters (`joining(required: Author.books.filter(…))` beside
    /// `annotated(with: Author.books.count)`). GRDB merges the two (the count is of the joined
    /// books), CipherStore works out each aggregate on its own (the count is of every book):
    /// code moved from GRDB would get other numbers without a word. Different keys
    /// (`forKey(_:)`) say which is meant; with the same filters both answer alike.
    private func checkAggregatesBesideJoins() throws {
        var aggregates: [SQLAssociationAggregate] = []
        for node in ownNodes where node.containsAggregate {
            _ = node.mapAggregates { aggregate in
                aggregates.append(aggregate)
                return .associationAggregate(aggregate)
            }
        }
        for aggregate in aggregates {
            let key = KnownColumns.folded(aggregate.association.key)
            // A to-many association's rows prefetched by a second query join nothing.
            guard let join = joins.first(where: { $0.kind != .prefetch && KnownColumns.folded($0.association.key) == key }),
                  String(describing: join.association.relation.filters) != String(describing: aggregate.association.relation.filters) else { continue }
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "an aggregate of the association \(aggregate.association.key) and an association joined under the same key (joining or including it, required or optional) have different filters: GRDB merges them (the aggregate then reads only the joined rows), CipherStore works out each aggregate on its own, so this request would answer otherwise than in GRDB; nothing was run. Give one of them a key of its own with forKey(_:) to say which is meant")
        }
    }

    /// The expressions of the relation itself (not its joins').
    var ownNodes: [SQLExpression.Node] {
        filters + groups + havings + orderings.map(\.node) + selectedNodes
    }

    /// The expressions the relation selects (not `*`).
    private var selectedNodes: [SQLExpression.Node] {
        selection.compactMap { selection in
            switch selection.kind {
            case .allColumns: return nil
            case .expression(let node), .aliased(let node, _): return node
            }
        }
    }
}

extension SQLAssociationAggregate {
    /// `(SELECT COUNT(*) FROM "book" WHERE "book"."authorId" = "author"."id")`, with the
    /// association's filters, or `NOT EXISTS (…)` for `isEmpty`. An association through
    /// others, or one that joins others (`Author.books.joining(required: Book.publisher)`),
    /// aggregates each of its rows once (``subqueryCountingEachRowOnce(_:parentTable:parentAlias:)``).
    /// - Parameters:
    ///   - parentTable: the outer table, whose columns the association links.
    ///   - parentAlias: its name in the outer query.
    func subquery(_ db: Connection, parentTable: String, parentAlias: String, expressions: [String: KnownColumns] = [:]) throws -> SQLExpression.Node {
        if !association.pivots.isEmpty || !association.relation.joins.isEmpty {
            return try subqueryCountingEachRowOnce(db, parentTable: parentTable, parentAlias: parentAlias, expressions: expressions)
        }
        // The inner table needs another name only when it is the outer one (a tree of records).
        let alias = association.relation.table.lowercased() == parentAlias.lowercased() ? association.relation.table + "_aggregated" : association.relation.table
        // A fragment whose arguments did not fit was left out of the filters: refused here,
        // as where the association is joined.
        if let conflict = association.relation.conflicts.first {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: conflict + "; nothing was run")
        }
        // Aggregates in the association's own filters are correlated with the inner table.
        let child = try association.relation.resolvingAggregates(db, alias: alias, expressions: expressions)
        let generator = Self.generator(db, expressions: expressions)
        let pairs = try association.joinColumns(db)
        try generator.check(pairs.map(\.parentColumn), in: parentTable, association: association.key)
        var childColumns = pairs.map(\.childColumn)
        argument?.collectColumns(into: &childColumns)
        for filter in child.filters { filter.collectColumns(into: &childColumns) }
        try generator.check(childColumns, in: child.table, association: association.key)

        var from = Connection.quoteIdentifier(child.table)
        if alias != child.table { from += " " + Connection.quoteIdentifier(alias) }
        var context = SQLRenderContext(qualifier: alias)
        let selected: String
        switch function {
        case .count, .isEmpty: selected = function.isCount ? "COUNT(*)" : "1"
        case .function(let name): selected = name + "(" + (argument?.render(&context) ?? "*") + ")"
        }
        var conditions = pairs.map {
            Connection.quoteIdentifier(alias) + "." + Connection.quoteIdentifier($0.childColumn) + " = "
                + Connection.quoteIdentifier(parentAlias) + "." + Connection.quoteIdentifier($0.parentColumn)
        }
        conditions += child.filters.map { "(" + $0.render(&context) + ")" }
        let select = "SELECT " + selected + " FROM " + from + " WHERE " + conditions.joined(separator: " AND ")
        if case .isEmpty = function {
            return .literal(SQL(sql: "NOT EXISTS (" + select + ")", arguments: context.arguments))
        }
        return .literal(SQL(sql: "(" + select + ")", arguments: context.arguments))
    }

    /// The subquery of an association through others, or of one that joins others. Each
    /// destination row counts once, also when several pivot rows (or several rows of a joined
    /// to-many association) lead to it (as GRDB's `COUNT(DISTINCT …)`):
    ///
    /// ```sql
    /// (SELECT COUNT(*) FROM "country" "country_aggregated" WHERE "country_aggregated"."rowid" IN
    ///  (SELECT "country"."rowid" FROM "country" JOIN "author" ON "author"."countryCode" = "country"."code"
    ///   AND ("author"."libraryId" = "library"."id")))
    /// ```
    /// A generator for a subquery, which knows the outer query's common table expressions.
    private static func generator(_ db: Connection, reservedAliases: [String] = [], expressions: [String: KnownColumns]) -> SQLQueryGenerator {
        var generator = SQLQueryGenerator(db: db, reservedAliases: reservedAliases)
        generator.expressionColumns = expressions
        return generator
    }

    private func subqueryCountingEachRowOnce(_ db: Connection, parentTable: String, parentAlias: String,
                                             expressions: [String: KnownColumns]) throws -> SQLExpression.Node {
        let destination = association.relation.table
        let outer = Connection.quoteIdentifier(parentAlias)
        let pairs = try association.firstStep.joinColumns(db)
        try Self.generator(db, expressions: expressions).check(pairs.map(\.parentColumn), in: parentTable, association: association.key)
        // The destination row aggregated, told apart by its rowid or its primary key.
        let shape = try TableShape.read(destination, in: db)
        let identity = shape.rowidName.map { [$0] } ?? shape.primaryKey
        guard !identity.isEmpty else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "association \(association.key): an aggregate of an association through or joining others counts each row of \(destination) once, by its rowid or primary key, and \(destination) has neither (a common table expression or a view has none); nothing was run")
        }
        // Not the outer table's name, which a user's alias may have taken (`TableAlias(name: "book_aggregated")`).
        var rowAlias = destination + "_aggregated"
        while rowAlias.lowercased() == parentAlias.lowercased() { rowAlias += "_" }
        let correlation = pairs.map { pair -> SQLExpression.Node in
            .binary(.column(pair.childColumn), "=", .literal(SQL(sql: outer + "." + Connection.quoteIdentifier(pair.parentColumn), arguments: [])))
        }
        // The association's joins only filter: nothing of theirs is selected, nothing prefetched.
        let relation = association.relation.joiningOnly()
        var linked = association.restricting(relation, by: .balanced(correlation, by: "AND"))
        linked.orderings = []
        // One identity column: `IN (SELECT it …)`, correlated with the outer table only (SQLite
        // 3.15 does not find an outer rowid two levels down). A composite primary key: EXISTS.
        let test: String
        if identity.count == 1 {
            linked.selection = [Column(identity[0]).sqlSelection]
            test = Connection.quoteIdentifier(rowAlias) + "." + Connection.quoteIdentifier(identity[0]) + " IN ("
        } else {
            linked.selection = [SQLSelection(kind: .expression(.value(.integer(1))))]
            linked.filters += identity.map { column in
                .binary(.column(column), "=", .literal(SQL(sql: Connection.quoteIdentifier(rowAlias) + "." + Connection.quoteIdentifier(column), arguments: [])))
            }
            test = "EXISTS ("
        }
        // The outer tables keep their names: the subquery's tables take others.
        var generator = Self.generator(db, reservedAliases: [parentAlias, rowAlias], expressions: expressions)
        let exists = try generator.select(linked)
        if case .isEmpty = function {
            var notExists = association.restricting(relation, by: .balanced(correlation, by: "AND"))
            notExists.orderings = []
            notExists.selection = [SQLSelection(kind: .expression(.value(.integer(1))))]
            var generator = Self.generator(db, reservedAliases: [parentAlias], expressions: expressions)
            let query = try generator.select(notExists)
            return .literal(SQL(sql: "NOT EXISTS (" + query.sql + ")", arguments: query.arguments))
        }
        var context = SQLRenderContext(qualifier: rowAlias)
        let selected: String
        switch function {
        case .count, .isEmpty: selected = "COUNT(*)"
        case .function(let name): selected = name + "(" + (argument?.render(&context) ?? "*") + ")"
        }
        if let argument {
            var columns: [String] = []
            argument.collectColumns(into: &columns)
            try Self.generator(db, expressions: expressions).check(columns, in: destination, association: association.key)
        }
        let sql = "(SELECT " + selected + " FROM " + Connection.quoteIdentifier(destination) + " " + Connection.quoteIdentifier(rowAlias)
            + " WHERE " + test + exists.sql + "))"
        return .literal(SQL(sql: sql, arguments: context.arguments + exists.arguments))
    }
}

extension SQLAssociationAggregate.Function {
    var isCount: Bool {
        if case .count = self { return true }
        return false
    }
}

extension SQLRelation {
    /// The relation with its joins, at every level, neither selected nor annotating, and
    /// without its to-many associations: for a subquery that only tells which rows match.
    func joiningOnly() -> SQLRelation {
        var relation = removingPrefetches()
        relation.joins = relation.joins.map { join in
            var join = join
            join.isSelected = false
            join.isAnnotation = false
            join.association.relation = join.association.relation.joiningOnly()
            return join
        }
        return relation
    }
}
