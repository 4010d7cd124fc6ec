/// A search for an ``FTS5`` table (SQLCipher 4), built safely from what a user typed or
/// written out and checked.
///
/// ```swift
/// let pattern = FTS5Pattern(matchingAllTokensIn: searchField.text)   // nil: nothing to search
/// let best = try Document.matching(pattern).order(Column.rank).fetchAll(db)
/// ```
///
/// The builders split the text where the `cjk` tokenizer does and put every word between
/// double quotes, so nothing a user types is read as query syntax: quotes, parentheses, `*`,
/// `^`, `+`, `-`, `:` and `{}` are separators, and `AND`/`OR`/`NOT`/`NEAR` plain words;
/// they never widen or break the search. A word is searched as a phrase (`iPhone6` finds
/// "iPhone6" and "iPhone 6", `泡温泉` the three characters in a row); with the `cjk`
/// tokenizer a single CJK character is found anywhere. See <doc:FullTextSearch>.
///
/// See <https://www.sqlite.org/fts5.html#full_text_query_syntax>.
public struct FTS5Pattern: Sendable, Hashable {
    /// The pattern, as MATCH receives it.
    public let rawPattern: String

    init(unchecked rawPattern: String) {
        self.rawPattern = rawPattern
    }

    /// A pattern written in the FTS5 query syntax, checked by SQLite (which needs FTS5: on
    /// SQLCipher 3.4.1 this throws "no such module: fts5").
    ///
    /// ```swift
    /// let pattern = try FTS5Pattern(rawPattern: #"温泉 AND (iPhone OR 手机)"#)
    /// let titled = try FTS5Pattern(rawPattern: "title: 温泉", allowedColumns: ["title", "body"])
    /// ```
    ///
    /// - Parameters:
    ///   - rawPattern: the pattern.
    ///   - allowedColumns: the columns its column filters may name (FTS5 refuses others).
    /// - Throws: a ``DatabaseError`` whose message says what is malformed, e.g.
    ///   `fts5: syntax error near "AND"`.
    public init(rawPattern: String, allowedColumns: [String] = []) throws {
        try FullTextPatternCheck.check(rawPattern, module: "fts5", columns: allowedColumns)
        self.rawPattern = rawPattern
    }

    /// Matches rows that contain every word of `string`, anywhere. `nil` when `string` has
    /// no word (empty, or only punctuation).
    ///
    /// ```swift
    /// FTS5Pattern(matchingAllTokensIn: "温泉 iPhone")?.rawPattern  // "温泉" "iPhone"
    /// ```
    public init?(matchingAllTokensIn string: String) {
        guard let words = Self.quotedWords(string) else { return nil }
        self.init(unchecked: words.joined(separator: " "))
    }

    /// Matches rows that contain at least one word of `string`. `nil` when it has none.
    public init?(matchingAnyTokenIn string: String) {
        guard let words = Self.quotedWords(string) else { return nil }
        self.init(unchecked: words.joined(separator: " OR "))
    }

    /// Matches rows that contain every word of `string`, the last token of each as a prefix
    /// (search as you type). `nil` when it has none.
    ///
    /// ```swift
    /// FTS5Pattern(matchingAllPrefixesIn: "iPh 温")?.rawPattern  // "iPh"* "温"*
    /// ```
    public init?(matchingAllPrefixesIn string: String) {
        guard let words = Self.quotedWords(string) else { return nil }
        self.init(unchecked: words.map { $0 + "*" }.joined(separator: " "))
    }

    /// Matches rows that contain the words of `string` in a row, in this order. `nil` when
    /// it has none.
    public init?(matchingPhrase string: String) {
        guard let phrase = Self.phrase(string) else { return nil }
        self.init(unchecked: phrase)
    }

    /// Matches rows whose indexed text starts with the words of `string`, in this order.
    /// `nil` when it has none.
    public init?(matchingPrefixPhrase string: String) {
        guard let phrase = Self.phrase(string) else { return nil }
        self.init(unchecked: "^" + phrase)
    }

    private static func quotedWords(_ string: String) -> [String]? {
        let words = FullTextInput(string).words
        guard !words.isEmpty else { return nil }
        return words.map { "\"" + $0.map(\.text).joined(separator: " ") + "\"" }
    }

    private static func phrase(_ string: String) -> String? {
        let words = FullTextInput(string).words
        guard !words.isEmpty else { return nil }
        return "\"" + words.map { $0.map(\.text).joined(separator: " ") }.joined(separator: " ") + "\""
    }
}

extension FTS5Pattern: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(rawPattern) }

    /// The pattern stored as text, when SQLite accepts it.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> FTS5Pattern? {
        guard case .text(let text) = value else { return nil }
        return try? FTS5Pattern(rawPattern: text)
    }
}
