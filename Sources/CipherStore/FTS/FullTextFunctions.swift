// The auxiliary functions of full-text queries, as query-interface expressions. Each takes
// the full-text table's name, and is meaningful only in a request filtered by `matching`.

extension FTS4 {
    /// `snippet(table, …)`: a fragment of the matching text with the matches marked, for
    /// `select` or `annotated(with:)`.
    ///
    /// ```swift
    /// let rows = try Document.matching(pattern)
    ///     .select(FTS4.snippet("document", start: "[", end: "]"), as: String.self).fetchAll(db)
    /// ```
    ///
    /// With the `cjk` tokenizer a match is marked from its first character up to, not
    /// including, its last one, unless that one ends a run of CJK characters: FTS4's snippet
    /// cannot mark overlapping bigrams (see <doc:FullTextSearch>).
    ///
    /// - Parameters:
    ///   - table: the full-text table.
    ///   - start: the text put before each match.
    ///   - end: the text put after each match.
    ///   - ellipsis: marks text left out.
    ///   - column: the column to take the fragment from, or -1 for any.
    ///   - tokens: about how many tokens the fragment holds (at most 64; negative: the
    ///     fragment may come in several pieces).
    public static func snippet(_ table: String, start: String = "<b>", end: String = "</b>", ellipsis: String = "<b>...</b>",
                               column: Int = -1, tokens: Int = -15) -> SQLExpression {
        fullTextFunction("snippet", table, [.text(start), .text(end), .text(ellipsis), .integer(Int64(column)), .integer(Int64(tokens))])
    }

    /// `offsets(table)`: where each match is, as text: four integers per match (column,
    /// term, byte offset, byte length).
    public static func offsets(_ table: String) -> SQLExpression {
        fullTextFunction("offsets", table, [])
    }

    /// `fts4_rank(matchinfo(table), weights…)`, CipherStore's relevance score for FTS4 rows
    /// (FTS4 has none of its own): for each phrase of the query and each column, the row's
    /// hits divided by the hits in all rows, times the column's weight (1 by default),
    /// summed. Higher is better: order by it descending.
    ///
    /// ```swift
    /// let ranked = try Document.matching(pattern).order(FTS4.rank("document").desc).fetchAll(db)
    /// ```
    ///
    /// It favours rows that hold the query's rarer phrases, and several times; it knows
    /// nothing of document length or of how close the phrases are.
    public static func rank(_ table: String, weights: [Double] = []) -> SQLExpression {
        SQLExpression(.function("fts4_rank", [.function("matchinfo", [tableColumn(table)], distinct: false)] + weights.map { .value(.real($0)) },
                                distinct: false))
    }
}

extension FTS5 {
    /// `highlight(table, column, open, close)`: the whole text of one column with the
    /// matches marked.
    public static func highlight(_ table: String, column: Int, open: String = "<b>", close: String = "</b>") -> SQLExpression {
        fullTextFunction("highlight", table, [.integer(Int64(column)), .text(open), .text(close)])
    }

    /// `snippet(table, column, open, close, ellipsis, tokens)`: a fragment of the matching
    /// text (at most 64 tokens) with the matches marked; `column` -1 lets FTS5 choose.
    public static func snippet(_ table: String, column: Int = -1, open: String = "<b>", close: String = "</b>",
                               ellipsis: String = "…", tokens: Int = 16) -> SQLExpression {
        fullTextFunction("snippet", table, [.integer(Int64(column)), .text(open), .text(close), .text(ellipsis), .integer(Int64(tokens))])
    }

    /// `bm25(table, weights…)`: FTS5's relevance score with a weight per column (lower is
    /// better). Without weights it is ``Column/rank``.
    public static func bm25(_ table: String, weights: [Double] = []) -> SQLExpression {
        fullTextFunction("bm25", table, weights.map { .real($0) })
    }
}

/// The hidden column named after a full-text table, which its functions take first.
private func tableColumn(_ table: String) -> SQLExpression.Node {
    .literal(SQL(sql: Connection.quoteIdentifier(table)))
}

private func fullTextFunction(_ name: String, _ table: String, _ arguments: [DatabaseValue]) -> SQLExpression {
    SQLExpression(.function(name, [tableColumn(table)] + arguments.map { .value($0) }, distinct: false))
}
