@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// Patterns built from what users type: whatever the input holds — quotes, parentheses,
/// operators, column filters, `*` — the search neither fails nor finds more than the rows
/// holding every word typed. On FTS4 always, and on FTS5 where the library has it.
@Suite struct FullTextPatternTests {
    static let texts = [
        "一只雪猴在日本边泡温泉边玩iPhone的照片",    // 1
        "猴子 monkey and the sea",                   // 2
        "Hot springs: 温泉 NEAR the sea",            // 3
        "body title text, or not",                   // 4
        "温泉 and iPhone or 猴子",                   // 5
    ]

    let db: Connection

    init() throws {
        db = try Connection(location: .inMemory, key: nil)
        try db.create(virtualTable: "doc4", using: FTS4()) { t in
            t.column("body")
            t.tokenizer = .cjk
        }
        if FTS5.isAvailable {
            try db.create(virtualTable: "doc5", using: FTS5()) { t in
                t.column("body")
                t.tokenizer = .cjk
            }
        }
        for text in Self.texts {
            try db.execute(sql: "INSERT INTO doc4(body) VALUES (?)", arguments: [text])
            if FTS5.isAvailable { try db.execute(sql: "INSERT INTO doc5(body) VALUES (?)", arguments: [text]) }
        }
    }

    /// The rows each engine finds for the pattern the builder makes of `input`.
    func found(_ input: String, _ build: (String) -> (fts3: String?, fts5: String?)) throws -> [[Int]] {
        let patterns = build(input)
        var results: [[Int]] = []
        for (table, pattern) in [("doc4", patterns.fts3), ("doc5", patterns.fts5)] where table == "doc4" || FTS5.isAvailable {
            guard let pattern else {
                results.append([])
                continue
            }
            results.append(try db.fetchAll(sql: "SELECT rowid FROM \(table) WHERE \(table) MATCH ? ORDER BY rowid", arguments: [pattern]).map { try $0.value(at: 0) })
        }
        return results
    }

    static func allTokens(_ input: String) -> (fts3: String?, fts5: String?) {
        (FTS3Pattern(matchingAllTokensIn: input)?.rawPattern, FTS5Pattern(matchingAllTokensIn: input)?.rawPattern)
    }

    static var builders: [(String) -> (fts3: String?, fts5: String?)] { [
        allTokens,
        { (FTS3Pattern(matchingAnyTokenIn: $0)?.rawPattern, FTS5Pattern(matchingAnyTokenIn: $0)?.rawPattern) },
        { (FTS3Pattern(matchingAllPrefixesIn: $0)?.rawPattern, FTS5Pattern(matchingAllPrefixesIn: $0)?.rawPattern) },
        { (FTS3Pattern(matchingPhrase: $0)?.rawPattern, FTS5Pattern(matchingPhrase: $0)?.rawPattern) },
        { (nil, FTS5Pattern(matchingPrefixPhrase: $0)?.rawPattern) },
    ] }

    @Test func everyWordIsQuotedAndNothingElseIsKept() {
        #expect(FTS3Pattern(matchingAllTokensIn: #"温泉" OR "猴子"#)?.rawPattern == #""温泉" "OR" "猴子""#)
        #expect(FTS3Pattern(matchingAnyTokenIn: "iPhone6 泉")?.rawPattern == #""iPhone6" OR "泉*""#)
        #expect(FTS3Pattern(matchingAllPrefixesIn: "iPh 温泉")?.rawPattern == #""iPh*" "温泉*""#)
        #expect(FTS3Pattern(matchingPhrase: "玩iPhone的照片!")?.rawPattern == #""玩 iPhone 的照片""#)
        #expect(FTS5Pattern(matchingAllTokensIn: "body:温泉 -x")?.rawPattern == #""body" "温泉" "x""#)
        #expect(FTS5Pattern(matchingAllPrefixesIn: "iPh 温")?.rawPattern == #""iPh"* "温"*"#)
        #expect(FTS5Pattern(matchingPrefixPhrase: "一只 雪猴")?.rawPattern == #"^"一只 雪猴""#)
        for empty in ["", "   ", "!!!", #""""#, "*", "-", "()", "「」，。", "🐒", "^:+{}"] {
            #expect(FTS3Pattern(matchingAllTokensIn: empty) == nil && FTS3Pattern(matchingAnyTokenIn: empty) == nil
                    && FTS3Pattern(matchingAllPrefixesIn: empty) == nil && FTS3Pattern(matchingPhrase: empty) == nil
                    && FTS5Pattern(matchingAllTokensIn: empty) == nil && FTS5Pattern(matchingPrefixPhrase: empty) == nil, "\(empty)")
        }
    }

    /// FTS3 refuses a query of more than 4,096 phrases: a pasted text gives no pattern rather
    /// than an error (dropping words would widen an all-words search); repeated words count
    /// once, and a phrase has no such limit. FTS5 has none either.
    @Test func aVeryLongInputGivesNoFTS3PatternInsteadOfAnError() throws {
        let words = (0..<5_000).map { "w\($0)" }
        #expect(FTS3Pattern(matchingAllTokensIn: words.joined(separator: " ")) == nil)
        #expect(FTS3Pattern(matchingAnyTokenIn: words.joined(separator: " ")) == nil)
        #expect(FTS3Pattern(matchingAllPrefixesIn: words.joined(separator: " ")) == nil)
        let repeated = String(repeating: "温泉 monkey ", count: 5_000)
        #expect(try found(repeated, Self.allTokens) == (FTS5.isAvailable ? [[], []] : [[]]))
        #expect(try found("温泉 " + String(repeating: "the SEA, ", count: 5_000), Self.allTokens).allSatisfy { $0 == [3] })
        let phrase = try #require(FTS3Pattern(matchingPhrase: words.joined(separator: " ")))
        #expect(try db.fetchAll(sql: "SELECT rowid FROM doc4 WHERE doc4 MATCH ?", arguments: [phrase]).isEmpty)
        let limit = (0..<FTS3Pattern.maximumWordCount).map { "w\($0)" }.joined(separator: " ")
        for pattern in [FTS3Pattern(matchingAllTokensIn: limit), FTS3Pattern(matchingAnyTokenIn: limit)] {
            #expect(try db.fetchAll(sql: "SELECT rowid FROM doc4 WHERE doc4 MATCH ?", arguments: [pattern]).isEmpty)
        }
        if FTS5.isAvailable {
            let many = try #require(FTS5Pattern(matchingAnyTokenIn: words.joined(separator: " ") + " monkey"))
            #expect(try db.fetchAll(sql: "SELECT rowid FROM doc5 WHERE doc5 MATCH ?", arguments: [many]).map { try $0.value(Int.self, at: 0) } == [2])
        }
    }

    /// Operators and filters typed by a user are words or separators: each row found holds
    /// every word, on both engines (a naive pattern would have found rows 1, 2, 3 and 5 for
    /// the first input, and failed with a syntax error on several others).
    @Test func hostileInputNeitherFailsNorWidensTheSearch() throws {
        let cases: [(String, [Int])] = [
            (#"温泉" OR "猴子"#, [5]),        // "or" is a word, and row 5 holds it
            (#"温泉" OR "monkey"#, []),
            (#""温泉"#, [1, 3, 5]),
            ("温泉 -iPhone", [1, 5]),           // not NOT: "-" separates
            ("温泉*", [1, 3, 5]),
            ("body:monkey", []),                // not a column filter
            ("body: title", [4]),
            ("NEAR(温泉 sea)", [3]),            // "near" is a word of row 3
            ("温泉 NEAR/2 sea", []),
            ("(温泉 OR 猴子)", [5]),
            ("温泉 AND 猴子", [5]),
            ("^温泉", [1, 3, 5]),
            ("+温泉 {body}", []),
            ("'; DROP TABLE doc4; --", []),
            ("OR", [4, 5]),
            ("NOT", [4]),
            ("AND", [2, 5]),
            ("NEAR", [3]),
            ("\"\"温泉\"\"", [1, 3, 5]),
            ("温泉\\\"", [1, 3, 5]),
        ]
        for (input, expected) in cases {
            for rows in try found(input, Self.allTokens) {
                #expect(rows == expected, "\(input)")
            }
        }
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM doc4") == 5)
    }

    /// Random input from words and every character of the two query syntaxes: every builder
    /// runs on both engines without an error, and what the all-words and phrase builders find
    /// holds each word typed (checked on the text, without the tokenizer).
    @Test func randomHostileInputNeverFailsAndFindsOnlyRowsHoldingEveryWord() throws {
        let pieces = ["温泉", "猴子", "iPhone", "monkey", "sea", "泉", "the", "OR", "AND", "NOT", "NEAR", "NEAR/3", "body", "title",
                      "\"", "'", "(", ")", "*", "^", "-", "+", ":", "{", "}", "[", "]", ",", ";", "\\", "/", " ", "  ", "\t", "。", "「"]
        var random = SplitMix64(seed: 0xF75_0F75)
        for _ in 0..<400 {
            let input = (0..<Int.random(in: 1...8, using: &random)).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &random)] }.joined()
            for (index, build) in Self.builders.enumerated() {
                let results = try found(input, build)
                guard index == 0 || index == 3 else { continue }
                let words = Self.words(of: input)
                for rows in results {
                    for row in rows {
                        let text = Self.squeezed(Self.texts[row - 1])
                        #expect(words.allSatisfy { text.contains($0) }, "\(input) found row \(row)")
                    }
                }
            }
        }
    }

    /// Letters and digits in a row, lowercased: the words of the input, told apart without
    /// the tokenizer.
    static func words(of input: String) -> [String] {
        input.lowercased().split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }

    /// A text's letters and digits, lowercased, with nothing between them: a phrase of words
    /// found in the text is a substring of this.
    static func squeezed(_ text: String) -> String {
        String(text.lowercased().filter { $0.isLetter || $0.isNumber })
    }
}
