/// Associations through others (`hasMany(_:through:using:)`, `hasOne(_:through:using:)`): a
/// chain of steps from the origin's table, over one or more pivot tables, to the destination.
///
/// Joined from the origin, the chain renders as one JOIN per step, the pivots unselected.
/// Read back from the destination (to prefetch with `including(all:)`, to find one record's
/// with `request(for:)`, or in an aggregate's subquery), each step is reversed:
///
/// ```sql
/// SELECT "book".* FROM "book"
/// JOIN "author" ON "author"."id" = "book"."authorId" AND "author"."libraryId" IN (…)
/// ```
extension SQLAssociation {
    /// The association that reaches `self`'s origin, followed by `self`: the key, filters and
    /// orderings of the result are the target's, as in GRDB.
    func through(_ pivot: SQLAssociation) -> SQLAssociation {
        var chained = self
        chained.pivots = pivot.steps + pivots
        return chained
    }

    /// Every step from the origin's table to the destination, each without pivots.
    var steps: [SQLAssociation] {
        var last = self
        last.pivots = []
        return pivots + [last]
    }

    /// The step that leaves the origin's table: its join columns link the origin's rows.
    var firstStep: SQLAssociation { steps[0] }

    /// The destination's rows linked to the origin's rows that `condition` selects: `relation`
    /// (the destination's) filtered by `condition` on the first step's destination table,
    /// joined back over the pivots for a through association.
    /// - Parameter condition: an expression on the columns of the first step's destination
    ///   table (its child columns).
    func restricting(_ relation: SQLRelation, by condition: SQLExpression.Node) -> SQLRelation {
        let steps = self.steps
        var restricted = relation
        guard steps.count > 1 else {
            restricted.filters += condition.conjuncts
            return restricted
        }
        // From the first pivot outwards: each pivot's relation, joined to the table after it.
        var holder = steps[0].relation
        holder.filters.append(condition)
        var join = SQLJoin(kind: .required, isSelected: false, holdsPrefetchKey: true,
                           association: steps[1].reversed(reaching: steps[0], relation: holder))
        for index in steps.indices.dropFirst(2) {
            var pivot = steps[index - 1].relation
            pivot.add(join)
            join = SQLJoin(kind: .required, isSelected: false, association: steps[index].reversed(reaching: steps[index - 1], relation: pivot))
        }
        restricted.add(join)
        return restricted
    }

    /// This step read from its destination back to its origin, the table `previous` reaches
    /// (with `relation`, that table's relation). Its key is one no request gives (a space
    /// starts it), so that it never merges with a join of the request's own: a condition of
    /// one must not apply to the other. A step on a condition of its own (``JoinAssociation``)
    /// keeps it, its two tables swapped.
    private func reversed(reaching previous: SQLAssociation, relation: SQLRelation) -> SQLAssociation {
        SQLAssociation(key: " pivot " + previous.key, isToMany: false, direction: direction == .belongsTo ? .has : .belongsTo,
                       originTable: self.relation.table, foreignKey: foreignKey, relation: relation,
                       joinCondition: joinCondition?.swappingJoinSides())
    }
}
