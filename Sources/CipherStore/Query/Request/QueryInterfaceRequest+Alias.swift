/// Naming a request's table, or an association's, with a ``TableAlias``, in GRDB's spelling:
/// `Book.aliased(bookAlias)`, `Book.author.aliased(authorAlias)`. The alias's columns can then
/// be read anywhere in the request.
extension QueryInterfaceRequest {
    /// The request whose table the alias names.
    public func aliased(_ alias: TableAlias<Void>) -> Self {
        aliased(identity: alias.identity)
    }

    /// The request whose table the alias names.
    public func aliased(_ alias: TableAlias<RowDecoder>) -> Self {
        aliased(identity: alias.identity)
    }

    private func aliased(identity: TableAliasIdentity?) -> Self {
        var request = self
        request.relation.setTableAlias(identity)
        return request
    }
}

extension TableRecord {
    /// All records, their table named by the alias.
    public static func aliased(_ alias: TableAlias<Void>) -> QueryInterfaceRequest<Self> {
        all().aliased(alias)
    }

    /// All records, their table named by the alias.
    public static func aliased(_ alias: TableAlias<Self>) -> QueryInterfaceRequest<Self> {
        all().aliased(alias)
    }
}

extension Association {
    /// The association whose table the alias names.
    public func aliased(_ alias: TableAlias<Void>) -> Self {
        aliased(identity: alias.identity)
    }

    /// The association whose table the alias names.
    public func aliased(_ alias: TableAlias<RowDecoder>) -> Self {
        aliased(identity: alias.identity)
    }

    private func aliased(identity: TableAliasIdentity?) -> Self {
        var association = sqlAssociation
        association.relation.setTableAlias(identity)
        return Self(_sqlAssociation: SQLAssociationBox(association: association))
    }
}

extension SQLRelation {
    /// Names the relation's table with `identity`. A join condition's side (`nil`) names
    /// nothing here; a relation named by two aliases is a conflict, thrown when it runs.
    mutating func setTableAlias(_ identity: TableAliasIdentity?) {
        guard let identity else {
            conflicts.append("aliased(_:) takes an alias made with TableAlias(), not one of a join condition's two tables")
            return
        }
        if let tableAlias, tableAlias != identity {
            conflicts.append("the table \(table) is given two aliases; give it one")
            return
        }
        tableAlias = identity
    }

    /// The ``TableAlias`` columns the relation itself reads (not its joins').
    var aliasedColumns: [(identity: TableAliasIdentity, name: String?)] {
        ownNodes.flatMap(\.aliasedColumns)
    }

    /// Whether an association aggregate of the relation itself reads a ``TableAlias`` or is
    /// given one: its subquery does not see the request's aliases.
    var aggregatesUseTableAliases: Bool {
        ownNodes.contains { node in
            node.contains { node in
                guard case .associationAggregate(let aggregate) = node else { return false }
                return aggregate.association.relation.usesTableAliases
                    || aggregate.association.pivots.contains { $0.relation.usesTableAliases }
                    || aggregate.argument.map { !$0.aliasedColumns.isEmpty } == true
            }
        }
    }

    /// Whether the relation or one it joins reads a ``TableAlias`` column or is given an alias.
    var usesTableAliases: Bool {
        tableAlias != nil || !aliasedColumns.isEmpty || joins.contains { join in
            join.association.relation.usesTableAliases || join.association.pivots.contains { $0.relation.usesTableAliases }
                || join.association.joinCondition.map { !$0.aliasedColumns.isEmpty } == true
        }
    }
}
