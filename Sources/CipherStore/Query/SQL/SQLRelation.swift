/// A request as one value: a table, what it selects, filters, groups and orders, and the
/// associated tables it joins or prefetches. It renders to SQL late, when it runs, against the
/// schema (``SQLQueryGenerator``): that is where join conditions are read from foreign keys,
/// columns are qualified, and unknown column names are caught.
struct SQLRelation: Sendable {
    var table: String
    var selection: [SQLSelection] = [AllColumns().sqlSelection]
    var isDistinct = false
    var filters: [SQLExpression.Node] = []
    var orderings: [SQLOrdering] = []
    var groups: [SQLExpression.Node] = []
    var havings: [SQLExpression.Node] = []
    var limit: Int?
    var offset: Int?
    /// Associated tables, in the order they were added: joined, or prefetched by a second query.
    var joins: [SQLJoin] = []
    /// The `WITH` clause: the common table expressions the relation reads, in order.
    var commonTableExpressions: [SQLCommonTableExpression] = []
    /// The ``TableAlias`` given to the relation's table with `aliased(_:)`.
    var tableAlias: TableAliasIdentity?
    /// For `record.request(for: association)`: the record whose associated rows this relation
    /// reads. Its condition needs the foreign key, so it is made when the request runs.
    var origin: Origin?

    /// A class, so that a relation does not contain itself by value.
    final class Origin: Sendable {
        let association: SQLAssociation
        let values: [(name: String, value: DatabaseValue)]

        init(association: SQLAssociation, values: [(name: String, value: DatabaseValue)]) {
            self.association = association
            self.values = values
        }
    }

    /// The relation with its origin record's condition added (see ``origin``).
    func resolvingOrigin(_ db: Connection) throws -> SQLRelation {
        guard let origin else { return self }
        var resolved = self
        resolved.origin = nil
        var conditions: [SQLExpression.Node] = []
        for pair in try origin.association.firstStep.joinColumns(db) {
            guard let value = origin.values.first(where: { $0.name.lowercased() == pair.parentColumn.lowercased() })?.value else {
                throw DatabaseError(resultCode: .SQLITE_ERROR, message: "association \(origin.association.key): the record has no property \(pair.parentColumn), which the association's foreign key needs")
            }
            conditions.append(.binary(.column(pair.childColumn), "=", .value(value)))
        }
        return origin.association.restricting(resolved, by: .balanced(conditions, by: "AND"))
    }

    init(table: String) {
        self.table = table
    }

    /// Adds a join. A second join of the same association merges with the first, as in GRDB:
    /// filters add up, required wins over optional, selected over joined only. Another
    /// association under the same key is a conflict, thrown when the request runs.
    mutating func add(_ join: SQLJoin) {
        let key = KnownColumns.folded(join.association.key)
        guard let index = joins.firstIndex(where: { KnownColumns.folded($0.association.key) == key }) else {
            joins.append(join)
            return
        }
        guard joins[index].isAnnotation == join.isAnnotation else {
            conflicts.append("the association \(join.association.key) is both annotated (annotated(withRequired:)) and included or joined; give one of them another key with forKey(_:)")
            return
        }
        guard joins[index].association.isSameLink(as: join.association) else {
            conflicts.append("two different associations use the key \(join.association.key) (to \(joins[index].association.relation.table) and to \(join.association.relation.table)); give one of them another key with forKey(_:)")
            return
        }
        joins[index].merge(join)
    }

    /// Problems found while the request was built, thrown when it runs.
    var conflicts: [String] = []

    /// Set by ``reversed()`` when an ordering is SQL written out; cleared when the order is replaced.
    var reversesOrderWrittenInSQL = false

    /// The relation with its orderings and its joined associations' reversed.
    func reversed() -> SQLRelation {
        var relation = self
        if orderings.contains(where: \.isWrittenInSQL) { relation.reversesOrderWrittenInSQL.toggle() }
        relation.orderings = orderings.map(\.reversed)
        relation.joins = joins.map { join in
            var join = join
            join.association = join.association.reversedOrder()
            return join
        }
        // A through association's pivots order the rows of `request(for:)` too.
        if let origin, !origin.association.pivots.isEmpty {
            var association = origin.association
            association.pivots = association.pivots.map { $0.reversedOrder() }
            relation.origin = Origin(association: association, values: origin.values)
        }
        return relation
    }

    /// Whether the SQL reads more than one table (columns then need a table qualifier).
    var hasJoinedTables: Bool { joins.contains { $0.kind != .prefetch } }

    /// Whether the relation, or an association it joins, includes a to-many association
    /// (`including(all:)`), whose rows a second query fetches.
    var includesPrefetch: Bool {
        joins.contains { $0.kind == .prefetch || $0.association.relation.includesPrefetch }
    }

    /// The relation without its to-many associations, at every level: for a SELECT whose rows
    /// are not decoded as records (rows, counts, the rows an UPDATE or DELETE picks).
    func removingPrefetches() -> SQLRelation {
        var relation = self
        relation.joins = joins.filter { $0.kind != .prefetch }.map { join in
            var join = join
            join.association.relation = join.association.relation.removingPrefetches()
            return join
        }
        return relation
    }

    /// The names of the ``Column``s the relation itself uses (not its joins').
    var namedColumns: [String] {
        var names: [String] = []
        for selection in selection { selection.collectColumns(into: &names) }
        for node in filters + groups + havings { node.collectColumns(into: &names) }
        for ordering in orderings { ordering.node.collectColumns(into: &names) }
        return names
    }
}

/// An associated table in a request: how it is joined, and whether its columns are selected.
struct SQLJoin: Sendable {
    /// Merges a second join of the same association into this one.
    mutating func merge(_ other: SQLJoin) {
        if other.kind == .required { kind = .required }
        isSelected = isSelected || other.isSelected
        holdsPrefetchKey = holdsPrefetchKey || other.holdsPrefetchKey
        var relation = association.relation
        relation.filters += other.association.relation.filters
        if !other.association.relation.orderings.isEmpty {
            relation.orderings = other.association.relation.orderings
            relation.reversesOrderWrittenInSQL = other.association.relation.reversesOrderWrittenInSQL
        }
        if other.isSelected, case .allColumns? = relation.selection.first?.kind, relation.selection.count == 1 {
            relation.selection = other.association.relation.selection
        }
        for join in other.association.relation.joins { relation.add(join) }
        relation.conflicts += other.association.relation.conflicts
        if let alias = other.association.relation.tableAlias { relation.setTableAlias(alias) }
        association.relation = relation
    }

    enum Kind: Sendable {
        /// `JOIN`: rows without a match are left out.
        case required
        /// `LEFT JOIN`: rows without a match are kept, with NULLs.
        case optional
        /// A second query, for a to-many association (`including(all:)`).
        case prefetch
    }

    var kind: Kind
    /// `including` selects the associated columns; `joining` only filters or orders by them.
    var isSelected: Bool
    /// `annotated(withRequired:)`: the selected columns are the parent's, flat, not a scope
    /// of their own.
    var isAnnotation = false
    /// The pivot table of a through association read back from its destination (to prefetch
    /// or to find one record's): the parent key columns are selected from it.
    var holdsPrefetchKey = false
    /// The kind of a through association's first pivot when another association shares it
    /// and is required (``SQLQueryGenerator/sharingFirstSteps(_:)``); `kind` otherwise.
    var firstStepKind: Kind?
    var association: SQLAssociation
}

/// An association as a request sees it: the key its rows decode under, the destination
/// table's relation (with its own filters, orders and joins), and the foreign key that links
/// the two tables.
struct SQLAssociation: Sendable {
    /// Which table holds the foreign key.
    enum Direction: Sendable {
        /// The origin table holds it (`belongsTo`).
        case belongsTo
        /// The destination table holds it (`hasMany`, `hasOne`).
        case has
    }

    var key: String
    var isToMany: Bool
    var direction: Direction
    var originTable: String
    var foreignKey: ForeignKey?
    var relation: SQLRelation
    /// For an association through others (`hasMany(_:through:using:)`): the associations
    /// walked first, from the origin's table; this one starts where the last of them ends.
    var pivots: [SQLAssociation] = []
    /// For an association on a condition of its own (``JoinAssociation``): the condition, in
    /// place of a foreign key's columns.
    var joinCondition: SQLExpression.Node?

    /// The association with its relation's orderings reversed, and its pivots'.
    func reversedOrder() -> SQLAssociation {
        var association = self
        association.relation = relation.reversed()
        association.pivots = pivots.map { $0.reversedOrder() }
        return association
    }

    /// Whether both link the same tables by the same columns (then their joins merge).
    func isSameLink(as other: SQLAssociation) -> Bool {
        KnownColumns.folded(relation.table) == KnownColumns.folded(other.relation.table)
            && KnownColumns.folded(originTable) == KnownColumns.folded(other.originTable)
            && direction == other.direction && foreignKey == other.foreignKey
            && pivots.count == other.pivots.count
            && zip(pivots, other.pivots).allSatisfy { $0.isSameLink(as: $1) }
            && joinConditionSignature?.sql == other.joinConditionSignature?.sql
            && joinConditionSignature?.arguments == other.joinConditionSignature?.arguments
    }

    /// The join condition as SQL with its arguments, to compare two; `nil` without one.
    private var joinConditionSignature: (sql: String, arguments: [DatabaseValue])? {
        guard let joinCondition else { return nil }
        var context = SQLRenderContext(joinAliases: ("origin", "destination"))
        return (joinCondition.render(&context), context.arguments)
    }
}
