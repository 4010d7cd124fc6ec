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
        var reads: [(identity: TableAliasIdentity, name: String, place: String?)] = []
        var conflicts: [String] = []
        Self.collectTableAliases(relation, association: nil, aliased: &aliased, reads: &reads, conflicts: &conflicts)
        if let conflict = conflicts.first {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: conflict + "; nothing was run")
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
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "a TableAlias\(read.identity.name.map { " named \($0)" } ?? "") reads the column \(read.name)\(place), and no table of the request has that alias; give it to the request or one of its joined associations with aliased(_:) (an association aggregate's subquery and the second query of including(all:) do not see the request's aliases); nothing was run")
            }
            try check([read.name], in: table, association: read.place)
        }
    }

    /// The SQL alias of the relation's table: the one its ``TableAlias`` was given, or a new one.
    mutating func alias(of relation: SQLRelation) -> String {
        relation.tableAlias.flatMap { tableAliases[$0] } ?? alias(for: relation.table)
    }

    /// The aliased relations and the ``TableAlias`` columns read, depth first, in the joins'
    /// order once merged as the walk merges them (``sharingFirstSteps(_:)``).
    private static func collectTableAliases(_ relation: SQLRelation, association: String?,
                                            aliased: inout [(identity: TableAliasIdentity, table: String)],
                                            reads: inout [(identity: TableAliasIdentity, name: String, place: String?)],
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
