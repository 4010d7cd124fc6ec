/// Renders an ``SQLRelation`` to one SELECT, against the schema: it checks every named column
/// against its table, reads join conditions from foreign keys, gives each table an alias, and
/// lays out which result columns belong to which association (``ScopeLayout``).
///
/// A relation that reads one table renders as plain SQL (`SELECT * FROM "note" WHERE …`);
/// with joined tables every column is qualified (`SELECT "book".*, "author".* FROM "book"
/// JOIN "author" ON "author"."id" = "book"."authorId"`). The SQL is SQLite 3.15 SQL.
struct SQLQueryGenerator {
    let db: Connection
    var usedAliases: Set<String> = []
    /// The SQL alias of each relation given a ``TableAlias``, and its table
    /// (``assignTableAliases(_:)``).
    var tableAliases: [TableAliasIdentity: String] = [:]
    var aliasedTables: [TableAliasIdentity: String] = [:]
    /// What each `TableAlias.exists` of the query renders as.
    var aliasExistence: [TableAliasIdentity: String] = [:]
    /// The columns of the common table expressions the query reads, by folded name: checked
    /// as a table's (``knownColumns(of:)``).
    var expressionColumns: [String: KnownColumns] = [:]

    /// One rendered query.
    struct Query {
        var sql: String
        var arguments: [DatabaseValue]
        /// Where each included association's columns are; `nil` when the query reads one
        /// table (its columns are the whole row, before the hidden ones).
        var layout: ScopeLayout?
        /// The to-many associations to fetch by a second query, with where each parent row's
        /// key is among the hidden columns.
        var prefetches: [Prefetch]
        /// Where `extraColumns` are among the hidden columns, in order.
        var extraColumnOffsets: [Int]
        /// The key columns selected after the caller's, which the caller does not see: the
        /// row's visible width is its count minus these.
        var hiddenColumnCount: Int
    }

    struct Prefetch {
        var association: SQLAssociation
        /// The request's common table expressions: the prefetch's own SELECT may read them.
        var commonTableExpressions: [SQLCommonTableExpression]
        var columns: [JoinColumns]
        /// Offsets from the first hidden column.
        var parentKeyOffsets: [Int]
        /// The to-one scope whose records the association's rows go under, as child indexes
        /// from the base (``ScopedRow/scope(at:)``); empty for the base table's own.
        var scopePath: [Int] = []
    }

    /// A to-many association included under an included to-one association
    /// (`Book.author.including(all: Author.books)`), found while walking the joins: its parent
    /// key columns are selected from `parentAlias` after the visible columns.
    private struct NestedPrefetch {
        var association: SQLAssociation
        var columns: [JoinColumns]
        var parentAlias: String
        var scopePath: [Int]
    }

    private var nestedPrefetches: [NestedPrefetch] = []

    /// The keys' table alias of a through association read back from its destination
    /// (``SQLJoin/holdsPrefetchKey``): the extra columns are its.
    private var keyHolderAlias: String?

    /// - Parameter reservedAliases: table names the query must not use as aliases (the outer
    ///   query's, for a correlated subquery).
    init(db: Connection, reservedAliases: [String] = []) {
        self.db = db
        usedAliases = Set(reservedAliases.map { $0.lowercased() })
    }

    /// The SELECT of a relation.
    /// - Parameter extraColumns: columns of the base table to select after all others
    ///   (the child key a prefetch groups rows by).
    mutating func select(_ relation: SQLRelation, extraColumns: [String] = []) throws -> Query {
        // Checked before aggregates are resolved: a resolved aggregate is SQL too, of one column.
        if relation.hasJoinedTables { try refuseSelectionsWrittenInSQL(relation) }
        let with = try renderCommonTableExpressions(relation.commonTableExpressions)
        // The base table's alias first: its aggregates' subqueries are correlated with it. A
        // base given a TableAlias is named with the others.
        let baseAlias: String
        if relation.tableAlias == nil {
            baseAlias = alias(for: relation.table)
            try assignTableAliases(relation)
        } else {
            try assignTableAliases(relation)
            baseAlias = alias(of: relation)
        }
        let relation = try relation.resolvingOrigin(db).resolvingPrimaryKey(db).resolvingAggregates(db, alias: baseAlias, expressions: expressionColumns)
        try check(relation)
        let qualify = relation.hasJoinedTables
        nestedPrefetches = []
        var parts = Parts()
        var position = 0
        let layout = try walk(relation, alias: baseAlias, qualify: qualify, isSelected: true, isUnderOptional: false,
                              path: [], position: &position, parts: &parts)
        var hidden = 0

        // Key columns: the base table's, for each prefetch, then the caller's extras.
        var prefetches: [Prefetch] = []
        for join in relation.joins where join.kind == .prefetch {
            let columns = try join.association.firstStep.joinColumns(db)
            try check(columns.map(\.parentColumn), in: relation.table, association: join.association.key)
            var offsets: [Int] = []
            for pair in columns {
                parts.select.append(qualified(pair.parentColumn, alias: qualify ? baseAlias : nil))
                offsets.append(hidden)
                hidden += 1
            }
            prefetches.append(Prefetch(association: join.association, commonTableExpressions: relation.commonTableExpressions,
                                       columns: columns, parentKeyOffsets: offsets))
        }
        for nested in nestedPrefetches {
            var offsets: [Int] = []
            for pair in nested.columns {
                parts.select.append(qualified(pair.parentColumn, alias: nested.parentAlias))
                offsets.append(hidden)
                hidden += 1
            }
            prefetches.append(Prefetch(association: nested.association, commonTableExpressions: relation.commonTableExpressions,
                                       columns: nested.columns, parentKeyOffsets: offsets, scopePath: nested.scopePath))
        }
        var extraOffsets: [Int] = []
        for column in extraColumns {
            parts.select.append(qualified(column, alias: keyHolderAlias ?? (qualify ? baseAlias : nil)))
            extraOffsets.append(hidden)
            hidden += 1
        }

        var from = Connection.quoteIdentifier(relation.table)
        if baseAlias != relation.table { from += " " + Connection.quoteIdentifier(baseAlias) }
        var sql = with.sql + "SELECT " + (relation.isDistinct ? "DISTINCT " : "") + parts.select.joined(separator: ", ") + " FROM " + from + parts.joins
        var arguments = with.arguments + parts.selectArguments + parts.joinArguments

        var context = SQLRenderContext(qualifier: qualify ? baseAlias : nil, tableAliases: tableAliases, aliasExistence: aliasExistence)
        if !relation.filters.isEmpty {
            sql += " WHERE " + relation.filters.map { "(" + $0.render(&context) + ")" }.joined(separator: " AND ")
        }
        if !relation.groups.isEmpty {
            sql += " GROUP BY " + relation.groups.map { $0.render(&context) }.joined(separator: ", ")
        }
        if !relation.havings.isEmpty {
            sql += " HAVING " + relation.havings.map { "(" + $0.render(&context) + ")" }.joined(separator: " AND ")
        }
        arguments += context.arguments
        if !parts.orderings.isEmpty {
            sql += " ORDER BY " + parts.orderings.joined(separator: ", ")
            arguments += parts.orderingArguments
        }
        if let limit = relation.limit {
            sql += " LIMIT ?"
            arguments.append(.integer(Int64(limit)))
            if let offset = relation.offset {
                sql += " OFFSET ?"
                arguments.append(.integer(Int64(offset)))
            }
        }
        return Query(sql: sql, arguments: arguments, layout: qualify ? layout : nil, prefetches: prefetches,
                     extraColumnOffsets: extraOffsets, hiddenColumnCount: hidden)
    }

    /// A result split between tables needs each selection's width, and SQL written out may
    /// select any number of columns: refused in the relation and the joins it selects.
    private func refuseSelectionsWrittenInSQL(_ relation: SQLRelation) throws {
        if relation.selection.contains(where: \.isWrittenInSQL) {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "a selection written in SQL (select(sql:)) cannot be split between the tables of a request with associations: select Column values there, or write the whole query in SQL; nothing was run")
        }
        for join in relation.joins where join.kind != .prefetch && join.isSelected {
            try refuseSelectionsWrittenInSQL(join.association.relation)
        }
    }

    /// The pieces gathered while walking the relation and its joins, in SQL order.
    private struct Parts {
        var select: [String] = []
        var selectArguments: [DatabaseValue] = []
        var joins = ""
        var joinArguments: [DatabaseValue] = []
        var orderings: [String] = []
        var orderingArguments: [DatabaseValue] = []
    }

    /// Renders a relation's selection and orderings, and its joined children's, depth first.
    /// - Parameter path: the child indexes of the relation's scope from the base's, for the
    ///   to-many associations it includes.
    private mutating func walk(_ relation: SQLRelation, alias: String, qualify: Bool, isSelected: Bool, isUnderOptional: Bool,
                               path: [Int], position: inout Int, parts: inout Parts) throws -> ScopeLayout {
        // The base's to-many associations are `select`'s; a joined scope's are found here.
        if !path.isEmpty || !isSelected {
            for join in relation.joins where join.kind == .prefetch {
                guard isSelected else {
                    throw DatabaseError(resultCode: .SQLITE_ERROR, message: "association \(join.association.key): including(all:) inside an association that is joined and not included (joining(required:), joining(optional:), a pivot) has no records to go under; include that association with including(required:) or including(optional:); nothing was run")
                }
                let columns = try join.association.firstStep.joinColumns(db)
                try check(columns.map(\.parentColumn), in: relation.table, association: join.association.key)
                nestedPrefetches.append(NestedPrefetch(association: join.association, columns: columns, parentAlias: alias, scopePath: path))
            }
        }
        let start = position
        if isSelected {
            var context = SQLRenderContext(qualifier: qualify ? alias : nil, tableAliases: tableAliases, aliasExistence: aliasExistence)
            for selection in relation.selection {
                parts.select.append(selection.render(&context))
                // Widths matter only to split a joined row; a one-table row is all the base's.
                position += qualify ? try selection.width(tableColumnCount: knownColumns(of: relation.table).names.count) : 1
            }
            parts.selectArguments += context.arguments
        }
        var orderingContext = SQLRenderContext(qualifier: qualify ? alias : nil, tableAliases: tableAliases, aliasExistence: aliasExistence)
        parts.orderings += relation.orderings.map { $0.render(&orderingContext) }
        parts.orderingArguments += orderingContext.arguments
        var layout = ScopeLayout(range: start..<position)

        // Annotations first: their columns extend this scope, right after its own.
        let joins = Self.sharingFirstSteps(relation.joins.filter(\.isAnnotation) + relation.joins.filter { !$0.isAnnotation })
        // The first step of each association at this level (a direct join, or a through
        // association's first pivot), by folded key, with its alias: a later association that
        // starts with the same step shares its JOIN (``sharingFirstSteps(_:)``).
        var firstSteps: [String: (step: SQLAssociation, alias: String)] = [:]
        for join in joins where join.kind != .prefetch {
            // A JOIN after a LEFT JOIN would drop the rows the LEFT JOIN keeps.
            guard !(isUnderOptional && join.kind == .required) else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "association \(join.association.key): a required association inside an optional one would drop the rows the optional one keeps; include it with including(optional:) or joining(optional:); nothing was run")
            }
            // A through association: its pivots joined first, unselected, each after the last.
            var parent = (table: relation.table, alias: alias)
            for (index, pivot) in join.association.pivots.enumerated() {
                let key = KnownColumns.folded(pivot.key)
                if index == 0, let shared = firstSteps[key], shared.step.isSameLink(as: pivot) {
                    parent = (pivot.relation.table, shared.alias)
                    continue
                }
                let kind = index == 0 ? join.firstStepKind ?? join.kind : join.kind
                let (pivotAlias, pivotRelation) = try appendJoin(pivot, kind: kind, parentTable: parent.table, parentAlias: parent.alias, parts: &parts)
                _ = try walk(pivotRelation, alias: pivotAlias, qualify: true, isSelected: false,
                             isUnderOptional: isUnderOptional || join.kind == .optional, path: path, position: &position, parts: &parts)
                if index == 0 && firstSteps[key] == nil { firstSteps[key] = (pivot, pivotAlias) }
                parent = (pivot.relation.table, pivotAlias)
            }
            let childAlias: String
            let child: SQLRelation
            let directKey = KnownColumns.folded(join.association.key)
            if join.association.pivots.isEmpty, let shared = firstSteps[directKey], shared.step.isSameLink(as: join.association) {
                // A direct join whose JOIN a through association made first: its conditions are there.
                childAlias = shared.alias
                child = try join.association.relation.resolvingPrimaryKey(db).resolvingAggregates(db, alias: childAlias, expressions: expressionColumns)
            } else {
                (childAlias, child) = try appendJoin(join.association, kind: join.kind, parentTable: parent.table, parentAlias: parent.alias, parts: &parts)
                if join.association.pivots.isEmpty && firstSteps[directKey] == nil { firstSteps[directKey] = (join.association, childAlias) }
            }
            if join.holdsPrefetchKey { keyHolderAlias = childAlias }
            if join.isAnnotation && child.joins.contains(where: { $0.kind == .prefetch }) {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "association \(join.association.key): an annotation cannot include other associations (their records have no place in a flat row); nothing was run")
            }
            // The child's scope index, when it gets one (selected, not an annotation).
            let childPath = path + [layout.children.count]
            let childLayout = try walk(child, alias: childAlias, qualify: true, isSelected: isSelected && join.isSelected,
                                       isUnderOptional: isUnderOptional || join.kind == .optional, path: childPath, position: &position, parts: &parts)
            if join.isAnnotation {
                guard childLayout.children.isEmpty else {
                    throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "association \(join.association.key): an annotation cannot include other associations (their records have no place in a flat row); join them with joining(required:) or joining(optional:); nothing was run")
                }
                layout.range = start..<position
            } else if isSelected && join.isSelected {
                layout.children.append(.init(key: join.association.key, isOptional: join.kind == .optional, layout: childLayout))
            }
        }
        return layout
    }

    /// The joins of one level, as GRDB merges them: associations that start with the same step
    /// (a direct join, or a through association's first pivot: same key and link) share one
    /// JOIN, made by the first of them, in the request's order. It takes every sharer's
    /// conditions and joins on that step, and is required when one of them is; the others
    /// keep their own kind for what follows the step.
    static func sharingFirstSteps(_ joins: [SQLJoin]) -> [SQLJoin] {
        var shared = joins
        func firstStep(_ join: SQLJoin) -> SQLAssociation { join.association.pivots.first ?? join.association }
        for index in shared.indices where shared[index].kind != .prefetch {
            let step = firstStep(shared[index])
            guard let owner = shared[..<index].firstIndex(where: { earlier in
                earlier.kind != .prefetch && KnownColumns.folded(firstStep(earlier).key) == KnownColumns.folded(step.key)
                    && firstStep(earlier).isSameLink(as: step)
            }) else { continue }
            // The step's conditions and joins move to the owner's; a direct sharer's joins are
            // its own records, and stay.
            var filters = step.relation.filters
            var joins: [SQLJoin] = []
            if shared[index].association.pivots.isEmpty {
                shared[index].association.relation.filters = []
            } else {
                joins = step.relation.joins.map { var join = $0; join.isSelected = false; return join }
                shared[index].association.pivots[0].relation.filters = []
                shared[index].association.pivots[0].relation.joins = []
            }
            // A TableAlias of the sharer names the shared JOIN; the sharer, which makes no JOIN
            // of its own for the step, no longer holds it (one alias, one table).
            if let alias = step.relation.tableAlias {
                if shared[owner].association.pivots.isEmpty {
                    shared[owner].association.relation.setTableAlias(alias)
                } else {
                    shared[owner].association.pivots[0].relation.setTableAlias(alias)
                }
                if shared[index].association.pivots.isEmpty {
                    shared[index].association.relation.tableAlias = nil
                } else {
                    shared[index].association.pivots[0].relation.tableAlias = nil
                }
            }
            let required = shared[index].kind == .required
            if shared[owner].association.pivots.isEmpty {
                filters = shared[owner].association.relation.filters + filters
                shared[owner].association.relation.filters = filters
                for join in joins { shared[owner].association.relation.add(join) }
                if required { shared[owner].kind = .required }
            } else {
                shared[owner].association.pivots[0].relation.filters += filters
                for join in joins { shared[owner].association.pivots[0].relation.add(join) }
                if required { shared[owner].firstStepKind = .required }
            }
        }
        return shared
    }

    /// Appends `JOIN child ON child.key = parent.key AND (the child's filters)`, and returns
    /// the child's alias and its relation, with its association aggregates resolved against
    /// that alias.
    private mutating func appendJoin(_ association: SQLAssociation, kind: SQLJoin.Kind, parentTable: String, parentAlias: String,
                                     parts: inout Parts) throws -> (alias: String, relation: SQLRelation) {
        let childAlias = alias(of: association.relation)
        let child = try association.relation.resolvingPrimaryKey(db).resolvingAggregates(db, alias: childAlias, expressions: expressionColumns)
        var on: [String]
        var context = SQLRenderContext(qualifier: childAlias, joinAliases: (parentAlias, childAlias), tableAliases: tableAliases, aliasExistence: aliasExistence)
        if let condition = association.joinCondition {
            try checkJoinCondition(condition, of: association, parentTable: parentTable)
            on = ["(" + condition.render(&context) + ")"]
        } else {
            let columns = try association.joinColumns(db)
            try check(columns.map(\.parentColumn), in: parentTable, association: association.key)
            try check(columns.map(\.childColumn), in: child.table, association: association.key)
            on = columns.map { qualified($0.childColumn, alias: childAlias) + " = " + qualified($0.parentColumn, alias: parentAlias) }
        }
        on += child.filters.map { "(" + $0.render(&context) + ")" }
        var table = Connection.quoteIdentifier(child.table)
        if childAlias != child.table { table += " " + Connection.quoteIdentifier(childAlias) }
        parts.joins += (kind == .required ? " JOIN " : " LEFT JOIN ") + table + " ON " + on.joined(separator: " AND ")
        parts.joinArguments += context.arguments
        return (childAlias, child)
    }

    /// The columns of a join condition written with ``TableAlias`` values checked against
    /// their tables: the origin's, and the associated table's (as are plain ``Column``s).
    private func checkJoinCondition(_ condition: SQLExpression.Node, of association: SQLAssociation, parentTable: String) throws {
        let destination = association.relation.table
        guard try !knownColumns(of: destination).names.isEmpty else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "association \(association.key): no table or common table expression is named \(destination); add the expression to the request with with(_:); nothing was run")
        }
        guard !condition.containsAggregate else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "association \(association.key): a join condition cannot hold an association aggregate (its subquery has no table to be read from there); filter the request or the association with it instead; nothing was run")
        }
        var plain: [String] = []
        condition.collectColumns(into: &plain)
        let known = try knownColumns(of: destination)
        if let unknown = plain.first(where: { !known.lowercased.contains(KnownColumns.folded($0)) }) {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "no such column: \(unknown) (association \(association.key)): a Column in a join condition is read from the associated table, \(destination), whose columns are \(known.names.joined(separator: ", ")); name the other table's with its alias (left[Column(\"\(unknown)\")]); nothing was run")
        }
        var origin: [String] = []
        var associated: [String] = []
        _ = condition.contains { node in
            if case .joinedColumn(let side, let name) = node {
                if side == .origin { origin.append(name) } else { associated.append(name) }
            }
            return false
        }
        try check(origin, in: parentTable, association: association.key)
        try check(associated, in: destination, association: association.key)
    }

    private func qualified(_ column: String, alias: String?) -> String {
        let quoted = Connection.quoteIdentifier(column)
        return alias.map { Connection.quoteIdentifier($0) + "." + quoted } ?? quoted
    }

    /// The table's name as its alias, or the name with a number when the query already uses it.
    mutating func alias(for table: String) -> String {
        var candidate = table
        var number = 1
        while usedAliases.contains(candidate.lowercased()) {
            number += 1
            candidate = table + String(number)
        }
        usedAliases.insert(candidate.lowercased())
        return candidate
    }

    /// Every ``Column`` the relation and its joins name must be one of their table's: SQLite
    /// would read an unknown double-quoted name as a string literal.
    func check(_ relation: SQLRelation) throws {
        if let conflict = relation.conflicts.first {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: conflict + "; nothing was run")
        }
        if relation.reversesOrderWrittenInSQL {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "an order written in SQL cannot be reversed: order by Column values, or write the reversed order with order(sql:); nothing was run")
        }
        try check(relation.namedColumns, in: relation.table, association: nil)
        for join in relation.joins {
            for pivot in join.association.pivots { try check(pivot.relation) }
            try check(join.association.relation)
        }
    }

    func check(_ names: [String], in table: String, association: String? = nil) throws {
        guard !names.isEmpty else { return }
        let known = try knownColumns(of: table)
        guard !known.names.isEmpty else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "no such table: \(table); nothing was run")
        }
        for name in names where !known.lowercased.contains(KnownColumns.folded(name)) {
            let place = association.map { " (association \($0))" } ?? ""
            throw DatabaseError(resultCode: .SQLITE_ERROR,
                                message: "no such column: \(name)\(place) (the columns of \(table) are \(known.names.joined(separator: ", "))); nothing was run")
        }
    }
}

/// Which result columns belong to the base table and to each included association.
struct ScopeLayout: Sendable {
    struct Child: Sendable {
        var key: String
        /// A LEFT JOIN: the columns are all NULL when no row matched.
        var isOptional: Bool
        var layout: ScopeLayout
    }

    var range: Range<Int>
    var children: [Child] = []

    /// How many of the query's columns the scopes span: the result's visible width when the
    /// tables have the columns the request was planned with.
    var width: Int { children.reduce(range.upperBound) { max($0, $1.layout.width) } }
}
