/// A search for an ``FTS4`` table (FTS3 query syntax), built safely from what a user typed or
/// written out and checked.
///
/// ```swift
/// let pattern = FTS3Pattern(matchingAllTokensIn: searchField.text)   // nil: nothing to search
/// let found = try Document.matching(pattern).fetchAll(db)
/// ```
///
/// The builders (`matchingAllTokensIn`, `matchingAnyTokenIn`, `matchingAllPrefixesIn`,
/// `matchingPhrase`) split the text where the `cjk` tokenizer does and quote every word, so
/// nothing a user types is read as query syntax: quotes, parentheses, `*`, `^`, `-`, `:`,
/// `AND`/`OR`/`NOT`/`NEAR` are separators or plain words, and never widen or break the
/// search. A word is searched as a phrase: `iPhone6` finds "iPhone6" and "iPhone 6",
/// `泡温泉` finds the three characters in a row. A lone CJK character that ends a word (`泉`,
/// or `的` in `iPhone的`) is searched as a prefix: on FTS4 the `cjk` tokenizer indexes CJK
/// text as bigrams, so it finds the character where a bigram starts with it (泉水, not 温泉).
/// One with more of the word after it (`的` in `A的B`) is searched as itself, so `A的B`
/// does not find `A的照B`. ``FTS5Pattern`` on FTS5 has no such limit. See <doc:FullTextSearch>.
///
/// See <https://www.sqlite.org/fts3.html#full_text_index_queries>.
public struct FTS3Pattern: Sendable, Hashable {
    /// The pattern, as MATCH receives it.
    public let rawPattern: String

    init(unchecked rawPattern: String) {
        self.rawPattern = rawPattern
    }

    /// A pattern written in the FTS3 query syntax, checked by SQLite.
    ///
    /// ```swift
    /// let pattern = try FTS3Pattern(rawPattern: #""hot spring" OR 温泉 -winter"#)
    /// ```
    ///
    /// SQLCipher's FTS3 uses the standard query syntax: implicit AND, `OR`, `-` for NOT,
    /// `"phrases"`, `prefix*`, `column:token`, `NEAR/n` — no parentheses and no `AND`/`NOT`
    /// keywords.
    ///
    /// - Throws: a ``DatabaseError`` whose message says what is malformed, e.g.
    ///   "malformed MATCH expression: [OR]".
    public init(rawPattern: String) throws {
        try FullTextPatternCheck.check(rawPattern, module: "fts4")
        self.rawPattern = rawPattern
    }

    /// Matches rows that contain every word of `string`, anywhere. `nil` when `string` has
    /// no word (empty, or only punctuation), or more than ``maximumWordCount`` different ones.
    ///
    /// ```swift
    /// FTS3Pattern(matchingAllTokensIn: "温泉 iPhone")?.rawPattern  // "温泉" "iPhone"
    /// ```
    public init?(matchingAllTokensIn string: String) {
        guard let words = Self.quotedWords(string) else { return nil }
        self.init(unchecked: words.joined(separator: " "))
    }

    /// Matches rows that contain at least one word of `string`. `nil` when it has none, or
    /// more than ``maximumWordCount`` different ones.
    ///
    /// ```swift
    /// FTS3Pattern(matchingAnyTokenIn: "温泉 iPhone")?.rawPattern  // "温泉" OR "iPhone"
    /// ```
    public init?(matchingAnyTokenIn string: String) {
        guard let words = Self.quotedWords(string) else { return nil }
        self.init(unchecked: words.joined(separator: " OR "))
    }

    /// Matches rows that contain every word of `string`, the last token of each as a prefix
    /// (search as you type). `nil` when it has none, or more than ``maximumWordCount``
    /// different ones.
    ///
    /// ```swift
    /// FTS3Pattern(matchingAllPrefixesIn: "iPh 温")?.rawPattern  // "iPh*" "温*"
    /// ```
    public init?(matchingAllPrefixesIn string: String) {
        guard let words = Self.quotedWords(string, prefix: true) else { return nil }
        self.init(unchecked: words.joined(separator: " "))
    }

    /// Matches rows that contain the words of `string` in a row, in this order. `nil` when
    /// it has none.
    ///
    /// ```swift
    /// FTS3Pattern(matchingPhrase: "泡温泉, iPhone!")?.rawPattern  // "泡温泉 iPhone"
    /// ```
    public init?(matchingPhrase string: String) {
        let words = FullTextInput(string).words
        guard !words.isEmpty else { return nil }
        // Only the phrase's very last character may stand for the start of a pair.
        let rendered = words.enumerated().map { Self.render($1, endsPhrase: $0 == words.count - 1) }
        self.init(unchecked: "\"" + rendered.joined(separator: " ") + "\"")
    }

    /// The most words the all-words, any-word and prefix builders take. FTS3 refuses a query
    /// of more than 4,096 phrases ("FTS expression tree is too large"); dropping words would
    /// widen an all-words search, so longer input gives no pattern.
    public static let maximumWordCount = 1_000

    /// Each different word between double quotes; `nil` when there is none, or too many.
    private static func quotedWords(_ string: String, prefix: Bool = false) -> [String]? {
        var seen: Set<String> = []
        var quoted: [String] = []
        for word in FullTextInput(string).words {
            var text = render(word)
            if prefix && !text.hasSuffix("*") { text += "*" }
            guard seen.insert(text).inserted else { continue }
            quoted.append("\"" + text + "\"")
            if quoted.count > maximumWordCount { return nil }
        }
        return quoted.isEmpty ? nil : quoted
    }

    /// A word's runs separated by spaces (FTS numbers a phrase's tokens in order, whatever
    /// separates them), a lone CJK character that ends the phrase followed by `*`.
    ///
    /// A lone character with more of the phrase after it (`的` in `A的B`) stays as it is: the
    /// text it must match has that character alone between the same neighbours, which the
    /// tokenizer indexes as the character itself. As a prefix it would also match a pair (the
    /// `的照` of `A的照B`).
    private static func render(_ word: [FullTextInput.Run], endsPhrase: Bool = true) -> String {
        word.enumerated().map { index, run in
            run.isCJK && run.characterCount == 1 && endsPhrase && index == word.count - 1 ? run.text + "*" : run.text
        }.joined(separator: " ")
    }
}

extension FTS3Pattern: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(rawPattern) }

    /// The pattern stored as text, when SQLite accepts it.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> FTS3Pattern? {
        guard case .text(let text) = value else { return nil }
        return try? FTS3Pattern(rawPattern: text)
    }
}
