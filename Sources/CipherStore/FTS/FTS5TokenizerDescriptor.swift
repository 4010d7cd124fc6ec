/// The tokenizer of an ``FTS5`` table: how its text is split into the tokens a search matches.
///
/// ```swift
/// try db.create(virtualTable: "document", using: FTS5()) { t in
///     t.column("body")
///     t.tokenizer = .cjk   // tokenize='cjk'
/// }
/// ```
///
/// See <https://www.sqlite.org/fts5.html#tokenizers>.
public struct FTS5TokenizerDescriptor: Sendable, Hashable {
    /// The tokenizer's name followed by its arguments, as FTS5's `tokenize` option lists them.
    public let components: [String]

    init(components: [String]) {
        self.components = components
    }

    /// ASCII letters and digits, ASCII case folded; every other character is part of a token.
    public static func ascii() -> FTS5TokenizerDescriptor {
        FTS5TokenizerDescriptor(components: ["ascii"])
    }

    /// FTS5's default: Unicode letters and digits, Unicode case folding, diacritics removed.
    /// It does not split Chinese or Japanese text into words.
    public static func unicode61() -> FTS5TokenizerDescriptor {
        FTS5TokenizerDescriptor(components: ["unicode61"])
    }

    /// The Porter stemmer (English) over another tokenizer, `unicode61` by default.
    public static func porter(wrapping base: FTS5TokenizerDescriptor = .unicode61()) -> FTS5TokenizerDescriptor {
        FTS5TokenizerDescriptor(components: ["porter"] + base.components)
    }

    /// CipherStore's tokenizer for Chinese, Japanese and Korean text mixed with other scripts.
    /// On FTS5 it also indexes each CJK character on its own, so a one-character search finds
    /// it anywhere. Registered on every connection CipherStore opens. See <doc:FullTextSearch>.
    public static let cjk = FTS5TokenizerDescriptor(components: ["cjk"])

    /// `tokenize=…` as FTS5 takes it: one string literal.
    var sql: String {
        "'" + components.joined(separator: " ").replacingOccurrences(of: "'", with: "''") + "'"
    }
}
