import CSQLCipher

/// How the rows of one request with associations split: the base table's columns, then each
/// included to-one association's columns under its key. Built once per request from the
/// query's ``ScopeLayout``, so splitting a row copies nothing: a scope is a range of the
/// query's columns, read where they are (the statement's current row, or a fetched ``Row``).
final class ScopePlan: Sendable {
    /// This scope's columns among the query's.
    let range: Range<Int>
    /// Their names, for matching coding keys.
    let layout: RowLayout
    /// A LEFT JOIN's scope: its columns are all NULL when no row matched.
    let isOptional: Bool
    /// The included to-one associations, by lowercased key.
    let children: [(key: String, plan: ScopePlan)]

    private init(_ scope: ScopeLayout, columnNames: [String], isOptional: Bool) {
        range = scope.range
        layout = RowLayout(columnNames: Array(columnNames[scope.range]))
        self.isOptional = isOptional
        children = scope.children.map { ($0.key.lowercased(), ScopePlan($0.layout, columnNames: columnNames, isOptional: $0.isOptional)) }
    }

    /// - Parameters:
    ///   - layout: the query's layout, or `nil` for a one-table query.
    ///   - columnNames: the result's column names.
    ///   - visibleWidth: how many of them the caller sees (the rest are hidden key columns).
    convenience init(layout: ScopeLayout?, columnNames: [String], visibleWidth: Int) {
        self.init(layout ?? ScopeLayout(range: 0..<visibleWidth), columnNames: columnNames, isOptional: false)
    }

    /// Whether this is an optional association's scope that matched no row in `source`'s
    /// current row: its columns are all NULL.
    func isMissing(in source: ColumnSource) -> Bool {
        isOptional && range.allSatisfy { source.columnType(at: $0) == SQLITE_NULL }
    }

    /// The child indexes that lead to the scope of `key`: among this scope's, else among its
    /// scopes' scopes, depth first, so a flat record can name an association nested in
    /// another (`var country: Country?` beside `var author: Author` for
    /// `Book.author.including(optional: Person.country)`), as in GRDB.
    func path(to key: String) -> [Int]? {
        let lowercased = key.lowercased()
        if let index = children.firstIndex(where: { $0.key == lowercased }) { return [index] }
        for (index, child) in children.enumerated() {
            if let path = child.plan.path(to: key) { return [index] + path }
        }
        return nil
    }
}

/// One row of a request with associations, seen through its ``ScopePlan``, with the rows of
/// its to-many associations (fetched by a second query) under their keys. Records decode from
/// it with nested records and arrays (`struct BookInfo: Decodable { var book: Book; var
/// author: Author? }`).
struct ScopedRow {
    /// All the query's columns: the statement's current row (valid until the next step), or
    /// a fetched row.
    let source: ColumnSource
    /// The scope this row stands for.
    let plan: ScopePlan
    /// The rows of its to-many associations, in a box: a row without any (a one-query request,
    /// every row of a record cursor) copies as `nil`, not as two dictionaries to retain.
    private(set) var prefetchedRows: PrefetchedRows?

    init(source: ColumnSource, plan: ScopePlan, prefetchedRows: PrefetchedRows? = nil) {
        self.source = source
        self.plan = plan
        self.prefetchedRows = prefetchedRows
    }

    /// Included to-many associations' rows, by lowercased key.
    var prefetched: [String: [ScopedRow]] {
        get { prefetchedRows?.byKey ?? [:] }
        set { uniquePrefetchedRows().byKey = newValue }
    }

    /// The rows of to-many associations included under this scope's to-one scopes
    /// (`Book.author.including(all: Author.books)`), by the path to their scope
    /// (``ScopePlan/path(to:)``), then by lowercased key; given to the scope by ``scope(at:)``.
    var nestedPrefetched: [[Int]: [String: [ScopedRow]]] {
        get { prefetchedRows?.nested ?? [:] }
        set { uniquePrefetchedRows().nested = newValue }
    }

    /// The box of this row's to-many rows, made or copied so that no other row shares it.
    private mutating func uniquePrefetchedRows() -> PrefetchedRows {
        if isKnownUniquelyReferenced(&prefetchedRows), let rows = prefetchedRows { return rows }
        let rows = PrefetchedRows(byKey: prefetchedRows?.byKey ?? [:], nested: prefetchedRows?.nested ?? [:])
        prefetchedRows = rows
        return rows
    }

    /// An optional association that matched no row: its columns are all NULL.
    var isMissing: Bool { plan.isMissing(in: source) }

    /// The rows of the to-many association under `key`: this scope's, else one included under
    /// one of its to-one scopes, the shallowest first (as GRDB looks for them), so a flat record
    /// can name it (`var books: [Book]` beside `var author: Author` for
    /// `Book.author.including(all: Author.books)`).
    func prefetchedRows(_ key: String) -> [ScopedRow]? {
        if let rows = prefetched[key] ?? prefetched[key.lowercased()] { return rows }
        guard !nestedPrefetched.isEmpty else { return nil }
        let lowercased = key.lowercased()
        let paths = nestedPrefetched.keys.sorted { $0.count != $1.count ? $0.count < $1.count : $0.lexicographicallyPrecedes($1) }
        return paths.lazy.compactMap { nestedPrefetched[$0]?[lowercased] }.first
    }

    /// The scope at the end of `path` (from ``ScopePlan/path(to:)``), on the same columns,
    /// with the to-many associations' rows included under it.
    func scope(at path: [Int]) -> ScopedRow {
        var plan = self.plan
        for index in path { plan = plan.children[index].plan }
        var scope = ScopedRow(source: source, plan: plan)
        guard let prefetchedRows, !prefetchedRows.nested.isEmpty else { return scope }
        scope.prefetched = nestedPrefetched[path] ?? [:]
        for (nestedPath, rows) in nestedPrefetched where nestedPath.count > path.count && nestedPath.starts(with: path) {
            scope.nestedPrefetched[Array(nestedPath.dropFirst(path.count))] = rows
        }
        return scope
    }
}

/// The storage of ``ScopedRow/prefetched`` and ``ScopedRow/nestedPrefetched``, copied on write.
final class PrefetchedRows {
    var byKey: [String: [ScopedRow]]
    var nested: [[Int]: [String: [ScopedRow]]]

    init(byKey: [String: [ScopedRow]], nested: [[Int]: [String: [ScopedRow]]]) {
        self.byKey = byKey
        self.nested = nested
    }
}
