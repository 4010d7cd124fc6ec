/// A ``RowView`` of a statement's current row, or of one scope of it without to-many rows, kept
/// so that it is made once and lent to every row: such a view reads whichever row the statement
/// is on. A view is not copyable, so it is kept in a class; making one per row, with its
/// references, cost about as much as reading three integers.
final class KeptRowView {
    let view: RowView

    init(statement: Statement, scope plan: ScopePlan?) {
        let scopes = plan.flatMap { $0.children.isEmpty ? nil : KeptScopes(statement: statement, plan: $0) }
        view = plan.map { RowView(source: .statement(statement), plan: $0, keptScopes: scopes) } ?? RowView(statement: statement)
    }
}

/// The kept views of a kept view's to-one scopes (`row.decode(forKey: "author")`), each made
/// the first time a row asks for it.
final class KeptScopes {
    private let statement: Statement
    private let plan: ScopePlan
    @exclusivity(unchecked) private var views: [KeptRowView?]

    init(statement: Statement, plan: ScopePlan) {
        self.statement = statement
        self.plan = plan
        views = Array(repeating: nil, count: plan.children.count)
    }

    /// The kept view of the scope of `key` when it is a child of this scope spelled as its
    /// association is; `nil` otherwise (the view then finds the scope the general way).
    func view(forKey key: String) -> KeptRowView? {
        guard let index = plan.children.firstIndex(where: { $0.key == key }) else { return nil }
        if let kept = views[index] { return kept }
        let kept = KeptRowView(statement: statement, scope: plan.children[index].plan)
        views[index] = kept
        return kept
    }
}
