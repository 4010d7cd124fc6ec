/// The tokenizer of an ``FTS4`` table: how its text is split into the tokens a search matches.
///
/// ```swift
/// try db.create(virtualTable: "document", using: FTS4()) { t in
///     t.column("body")
///     t.tokenizer = .cjk   // tokenize=cjk
/// }
/// ```
///
/// See <https://www.sqlite.org/fts3.html#tokenizer>.
public struct FTS3TokenizerDescriptor: Sendable, Hashable {
    /// The tokenizer's name.
    public let name: String
    /// Its arguments, in order.
    public let arguments: [String]

    init(_ name: String, arguments: [String] = []) {
        self.name = name
        self.arguments = arguments
    }

    /// SQLite's default: ASCII letters and digits, ASCII case folded. Every other character
    /// is part of a token, so Chinese text without spaces is one token per clause.
    public static let simple = FTS3TokenizerDescriptor("simple")

    /// `simple`, then the Porter stemmer (English).
    public static let porter = FTS3TokenizerDescriptor("porter")

    /// Unicode letters and digits, Unicode case folding, diacritics removed. Like `simple`,
    /// it does not split Chinese or Japanese text into words.
    public static func unicode61() -> FTS3TokenizerDescriptor {
        FTS3TokenizerDescriptor("unicode61")
    }

    /// CipherStore's tokenizer for Chinese, Japanese and Korean text mixed with other scripts:
    /// overlapping bigrams of CJK characters, case-folded words of other letters and digits.
    /// Registered on every connection CipherStore opens. See <doc:FullTextSearch>.
    public static let cjk = FTS3TokenizerDescriptor("cjk")

    /// `tokenize=…` as FTS3 and FTS4 take it.
    var sql: String {
        ([name] + arguments.map(Connection.quoteIdentifier)).joined(separator: " ")
    }
}
