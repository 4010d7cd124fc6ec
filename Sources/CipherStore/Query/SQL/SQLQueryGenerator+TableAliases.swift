/// The ``TableAlias``es of a query: each relation given one with `aliased(_:)` gets its SQL
/// name before anything renders, so that an expression anywhere in the query (the base's
/// order, an earlier join's condition) can name any of them.
extension SQLQueryGenerator {
    /// Names every aliased relation of `relation`'s query (the base and its joins, at every
    /// level, as the walk joins them), the names the app chose first, and checks every
    /// ``TableAlias`` column the query reads against the aliased table.
    /// - Throws: ``DatabaseError`` for a name given to two tables, an alias the query does not
    ///   hold, or an unknown column; nothing has run then.
    mutating func assignTableAliases(_ relation: SQLRelation) throws {
        var aliased: [(identity: TableAliasIdentity, table: String)] = []
        var reads: [(identity: TableAliasIdentity, name: String?, place: String?)] = []
        var conflicts: [String] = []
        Self.collectTableAliases(relation, association: nil, aliased: &aliased, reads: &reads, conflicts: &conflicts)
        if let conflict = conflicts.first {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: conflict + "; nothing was run")
        }
        // One alias is one table of the query: given to two, its columns would be ambiguous.
        var seen: [ObjectIdentifier: String] = [:]
        for (identity, table) in aliased {
            if let first = seen.updateValue(table, forKey: ObjectIdentifier(identity)) {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "one TableAlias\(identity.name.map { " (named \($0))" } ?? "") is given to two tables of the request (\(first) and \(table)), and its columns could not tell which one they read; give each table its own TableAlias; nothing was run")
            }
        }
        for (identity, table) in aliased where tableAliases[identity] == nil {
            guard let name = identity.name else { continue }
            guard !usedAliases.contains(name.lowercased()) else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the table alias \(name) is given to two tables of the request (or is the name of another of its tables); give each its own name; nothing was run")
            }
            usedAliases.insert(name.lowercased())
            tableAliases[identity] = name
            aliasedTables[identity] = table
        }
        for (identity, table) in aliased where tableAliases[identity] == nil {
            tableAliases[identity] = alias(for: table)
            aliasedTables[identity] = table
        }
        for read in reads {
            guard let table = aliasedTables[read.identity] else {
                let place = read.place.map { " (association \($0))" } ?? ""
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "a TableAlias\(read.identity.name.map { " named \($0)" } ?? "") reads \(read.name.map { "the column \($0)" } ?? "exists")\(place), and no table of the request has that alias; give it to the request or one of its joined associations with aliased(_:) (an association aggregate's subquery and the second query of including(all:) do not see the request's aliases); nothing was run")
            }
            if let name = read.name {
                try check([name], in: table, association: read.place)
            } else if aliasExistence[read.identity] == nil, let alias = tableAliases[read.identity] {
                aliasExistence[read.identity] = try existence(of: table, alias: alias)
            }
        }
    }

    /// `alias.exists`: the table's rowid is not NULL, or its primary key's columns for a
    /// `WITHOUT ROWID` table (never NULL in a row there).
    /// - Throws: ``DatabaseError`` for a view or a common table expression, which have neither.
    private func existence(of table: String, alias: String) throws -> String {
        guard try db.tableExists(table, in: "main") || db.tableExists(table, in: "temp") else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "TableAlias.exists reads the rowid or primary key of \(table), which is not a table of the database (a view or a common table expression has neither); test one of its columns for NULL instead; nothing was run")
        }
        let shape = try TableShape.read(table, schema: try db.tableExists(table, in: "temp") ? "temp" : "main", in: db)
        let columns = shape.rowidName.map { [$0] } ?? shape.primaryKey
        guard !columns.isEmpty else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "TableAlias.exists reads the rowid or primary key of \(table), whose columns take the rowid's names and which has no primary key; test one of its columns for NULL instead; nothing was run")
        }
        return columns.map { Connection.quoteIdentifier(alias) + "." + Connection.quoteIdentifier($0) + " IS NOT NULL" }.joined(separator: " AND ")
    }

    /// The SQL alias of the relation's table: the one its ``TableAlias`` was given, or a new one.
    mutating func alias(of relation: SQLRelation) -> String {
        relation.tableAlias.flatMap { tableAliases[$0] } ?? alias(for: relation.table)
    }

    /// The aliased relations and the ``TableAlias`` columns read, depth first, in the joins'
    /// order once merged as the walk merges them (``sharingFirstSteps(_:)``).
    private static func collectTableAliases(_ relation: SQLRelation, association: String?,
                                            aliased: inout [(identity: TableAliasIdentity, table: String)],
                                            reads: inout [(identity: TableAliasIdentity, name: String?, place: String?)],
                                            conflicts: inout [String]) {
        if let identity = relation.tableAlias { aliased.append((identity, relation.table)) }
        conflicts += relation.conflicts
        if relation.aggregatesUseTableAliases {
            conflicts.append("an association aggregate\(association.map { " (association \($0))" } ?? "") reads a TableAlias or is given one, and its subquery does not see the request's aliases; name its columns with Column, or join the association and aggregate with SQL written out")
        }
        reads += relation.aliasedColumns.map { ($0.identity, $0.name, association) }
        for join in sharingFirstSteps(relation.joins) where join.kind != .prefetch {
            if let condition = join.association.joinCondition {
                reads += condition.aliasedColumns.map { ($0.identity, $0.name, join.association.key) }
            }
            for pivot in join.association.pivots {
                collectTableAliases(pivot.relation, association: join.association.key, aliased: &aliased, reads: &reads, conflicts: &conflicts)
            }
            collectTableAliases(join.association.relation, association: join.association.key, aliased: &aliased, reads: &reads, conflicts: &conflicts)
        }
    }
}
