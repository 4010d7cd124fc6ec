extension QueryInterfaceRequest {
    /// Deletes the rows the request matches (in its order, up to its limit; through its joins).
    /// - Returns: how many were deleted.
    /// - Throws: ``DatabaseError`` (an unknown column names it; nothing is deleted then).
    @discardableResult
    public func deleteAll(_ db: Connection) throws -> Int {
        let whereClause = try target(db)
        try db.execute(sql: "DELETE FROM \(Connection.quoteIdentifier(relation.table))" + whereClause.sql, arguments: whereClause.statementArguments)
        return db.changesCount
    }

    /// Updates the rows the request matches: `Note.filter(…).updateAll(db, Column("done").set(to: true), Column("score") += 1)`.
    /// - Returns: how many rows were updated.
    /// - Throws: ``DatabaseError`` (an unknown column names it; nothing is updated then).
    @discardableResult
    public func updateAll(_ db: Connection, onConflict: ConflictResolution? = nil, _ assignments: ColumnAssignment...) throws -> Int {
        try updateAll(db, onConflict: onConflict, assignments)
    }

    /// Updates the rows the request matches with a list of assignments.
    @discardableResult
    public func updateAll(_ db: Connection, onConflict: ConflictResolution? = nil, _ assignments: [ColumnAssignment]) throws -> Int {
        guard !assignments.isEmpty else { return 0 }
        if let aliased = assignments.lazy.flatMap(\.value.aliasedColumns).first {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "an updateAll value reads \(aliased.name.map { "the column \($0)" } ?? "exists") of a TableAlias, which an UPDATE cannot name: use a Column of the updated table, or an association aggregate; nothing was changed")
        }
        var assigned = SQLRelation(table: relation.table)
        assigned.selection = assignments.map { SQLSelection(kind: .expression($0.value)) }
        var generator = SQLQueryGenerator(db: db)
        try generator.check(assigned)
        try generator.check(assignments.map(\.column), in: relation.table)
        // An association aggregate as a value (`Column("bookCount").set(to: Author.books.count)`)
        // becomes its subquery, correlated with the updated row.
        let values = try assigned.resolvingAggregates(db).selection.map { selection -> SQLExpression.Node in
            guard case .expression(let node) = selection.kind else { preconditionFailure("an assignment's value is an expression") }
            return node
        }
        let whereClause = try target(db)
        // The request's common table expressions before UPDATE too: a value may read them.
        let with = try generator.renderCommonTableExpressions(relation.commonTableExpressions)
        var context = SQLRenderContext()
        let set = zip(assignments, values).map { Connection.quoteIdentifier($0.column) + " = " + $1.render(&context) }.joined(separator: ", ")
        let verb = onConflict.map { "UPDATE OR \($0.rawValue) " } ?? "UPDATE "
        try db.execute(sql: with.sql + verb + Connection.quoteIdentifier(relation.table) + " SET " + set + whereClause.sql,
                       arguments: .positional(with.arguments + context.arguments + whereClause.arguments))
        return db.changesCount
    }

    /// The WHERE clause that picks the request's rows: its conditions, or, with an order, a
    /// limit, a group or joins, the rowids its SELECT finds (DELETE … LIMIT needs a compile
    /// option SQLite builds may lack).
    private func target(_ db: Connection) throws -> SQL {
        var generator = SQLQueryGenerator(db: db)
        // Aggregates are resolved where the table's name in the query is known: the generator's
        // alias when the rows are picked by a subquery (a named TableAlias), the table's otherwise.
        var simple = try relation.removingPrefetches().resolvingOrigin(db).resolvingPrimaryKey(db)
        guard simple.groups.isEmpty && simple.havings.isEmpty else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "deleteAll and updateAll refuse a request with group or having: it picks one row per group, not the rows; nothing was changed. Filter the rows themselves instead")
        }
        // A common table expression needs its WITH: only a SELECT has one.
        if !simple.hasJoinedTables && simple.limit == nil && simple.orderings.isEmpty && simple.groups.isEmpty && !simple.isDistinct
            && simple.commonTableExpressions.isEmpty && !simple.usesTableAliases {
            simple = try simple.resolvingAggregates(db)
            try generator.check(simple)
            var context = SQLRenderContext()
            let conditions = simple.filters.map { "(" + $0.render(&context) + ")" }
            return SQL(sql: conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "), arguments: context.arguments)
        }
        // The rows by rowid, or by the primary key of a WITHOUT ROWID table.
        let key: String
        let shape = try TableShape.read(relation.table, in: db)
        if let rowidName = shape.rowidName {
            key = rowidName
        } else {
            let primaryKey = shape.primaryKey
            guard primaryKey.count == 1 else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "deleteAll and updateAll with an order, a limit or joins pick rows by rowid or a one-column primary key, and \(relation.table) has neither; nothing was changed. Filter the rows without them")
            }
            key = primaryKey[0]
        }
        // Only the key is selected: the associations' columns would widen the subquery.
        simple = simple.joiningOnly()
        simple.selection = [Column(key).sqlSelection]
        simple.isDistinct = false
        let query = try generator.select(simple)
        return SQL(sql: " WHERE \(Connection.quoteIdentifier(key)) IN (\(query.sql))", arguments: query.arguments)
    }
}

/// How SQLite resolves a constraint conflict in an INSERT or UPDATE
/// (`INSERT OR REPLACE`, `UPDATE OR IGNORE`…): <https://www.sqlite.org/lang_conflict.html>.
public enum ConflictResolution: String, Sendable {
    case rollback = "ROLLBACK"
    case abort = "ABORT"
    case fail = "FAIL"
    case ignore = "IGNORE"
    case replace = "REPLACE"
}
