/// A row of a request with associations, split by association: the base table's columns, each
/// included to-one association's columns under its key, and each to-many association's rows
/// (fetched by a second query) under its key. Records decode from it with nested records and
/// arrays (`struct BookInfo: Decodable { var book: Book; var author: Author? }`).
struct ScopedRow: Sendable {
    /// The base table's columns (or the whole row of a one-table request).
    var row: Row
    /// Included to-one associations, by lowercased key.
    var scopes: [String: ScopedRow] = [:]
    /// Included to-many associations' rows, by lowercased key.
    var prefetched: [String: [ScopedRow]] = [:]
    /// An optional association that matched no row: its columns are all NULL.
    var isMissing = false

    /// The scope of `key`: among this row's, else among its scopes' scopes, depth first, so a
    /// flat record can name an association nested in another (`var country: Country?` beside
    /// `var author: Author` for `Book.author.including(optional: Person.country)`), as in GRDB.
    func scope(_ key: String) -> ScopedRow? {
        if let found = scopes[key] ?? scopes[key.lowercased()] { return found }
        for child in scopes.values {
            if let found = child.scope(key) { return found }
        }
        return nil
    }
    func prefetchedRows(_ key: String) -> [ScopedRow]? { prefetched[key] ?? prefetched[key.lowercased()] }
}

/// Splits the rows of one query by its ``ScopeLayout``, with each scope's column layout built
/// once for the query, not once per row.
struct ScopedRowSplitter {
    private final class Plan {
        let range: Range<Int>
        let layout: RowLayout
        let isOptional: Bool
        let children: [(key: String, plan: Plan)]

        init(_ scope: ScopeLayout, columnNames: [String], isOptional: Bool) {
            range = scope.range
            layout = RowLayout(columnNames: Array(columnNames[scope.range]))
            self.isOptional = isOptional
            children = scope.children.map { ($0.key.lowercased(), Plan($0.layout, columnNames: columnNames, isOptional: $0.isOptional)) }
        }
    }

    private let plan: Plan

    /// - Parameters:
    ///   - layout: the query's layout, or `nil` for a one-table query.
    ///   - columnNames: the result's column names.
    ///   - visibleWidth: how many of them the caller sees (the rest are hidden key columns).
    init(layout: ScopeLayout?, columnNames: [String], visibleWidth: Int) {
        plan = Plan(layout ?? ScopeLayout(range: 0..<visibleWidth), columnNames: columnNames, isOptional: false)
    }

    func split(_ values: [DatabaseValue]) -> ScopedRow {
        func make(_ plan: Plan) -> ScopedRow {
            let slice = plan.range == values.indices ? values : Array(values[plan.range])
            var scoped = ScopedRow(row: Row(layout: plan.layout, values: slice))
            scoped.isMissing = plan.isOptional && slice.allSatisfy(\.isNull)
            for (key, child) in plan.children { scoped.scopes[key] = make(child) }
            return scoped
        }
        return make(plan)
    }
}
