extension QueryInterfaceRequest {
    /// Only the rows of the request's full-text table (``FTS4``) that match `pattern`:
    /// `WHERE "document" MATCH ?`. A `nil` pattern (the builders return one for input with no
    /// word) matches no row.
    ///
    /// ```swift
    /// let pattern = FTS3Pattern(matchingAllTokensIn: "温泉")
    /// let documents = try Document.all().matching(pattern).fetchAll(db)
    /// ```
    public func matching(_ pattern: FTS3Pattern?) -> Self {
        matching(pattern?.databaseValue)
    }

    /// Only the rows of the request's full-text table (``FTS5``) that match `pattern`; a `nil`
    /// pattern matches no row. Order by ``Column/rank`` for the best matches first.
    ///
    /// ```swift
    /// let best = try Document.all().matching(FTS5Pattern(matchingAllTokensIn: "温泉"))
    ///     .order(Column.rank).limit(20).fetchAll(db)
    /// ```
    public func matching(_ pattern: FTS5Pattern?) -> Self {
        matching(pattern?.databaseValue)
    }

    private func matching(_ pattern: DatabaseValue?) -> Self {
        guard let pattern else { return filter(SQLExpression(sql: "0")) }
        return filter(SQLExpression(.tableMatch(table: relation.table, .value(pattern))))
    }
}

extension TableRecord {
    /// The records of this full-text table (``FTS4``) that match `pattern`; none for `nil`.
    /// See ``QueryInterfaceRequest/matching(_:)-(FTS3Pattern?)``.
    public static func matching(_ pattern: FTS3Pattern?) -> QueryInterfaceRequest<Self> {
        all().matching(pattern)
    }

    /// The records of this full-text table (``FTS5``) that match `pattern`; none for `nil`.
    /// See ``QueryInterfaceRequest/matching(_:)-(FTS5Pattern?)``.
    public static func matching(_ pattern: FTS5Pattern?) -> QueryInterfaceRequest<Self> {
        all().matching(pattern)
    }
}

extension Column {
    /// `column MATCH pattern`: the rows whose value in this column of a full-text table
    /// matches; a `nil` pattern matches no row.
    ///
    /// ```swift
    /// let titled = try Document.filter(Column("title").match(FTS3Pattern(matchingPhrase: "温泉"))).fetchAll(db)
    /// ```
    public func match(_ pattern: FTS3Pattern?) -> SQLExpression {
        match(pattern?.databaseValue)
    }

    /// `column MATCH pattern` on an ``FTS5`` table; a `nil` pattern matches no row.
    public func match(_ pattern: FTS5Pattern?) -> SQLExpression {
        match(pattern?.databaseValue)
    }

    private func match(_ pattern: DatabaseValue?) -> SQLExpression {
        guard let pattern else { return SQLExpression(sql: "0") }
        return SQLExpression(.binary(.column(name), "MATCH", .value(pattern)))
    }

    /// FTS5's hidden `rank` column: how well a row matches the query (BM25; lower is
    /// better), for `order(Column.rank)` in a request filtered by
    /// ``QueryInterfaceRequest/matching(_:)-(FTS5Pattern?)``.
    public static let rank = Column("rank")
}
