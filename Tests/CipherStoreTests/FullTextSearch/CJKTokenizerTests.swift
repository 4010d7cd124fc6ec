@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// The `cjk` tokenizer itself, read through FTS's own `fts3tokenize` table (the tokens,
/// spans and positions FTS4 indexes) and, on SQLCipher 4, through an FTS5 table's vocabulary.
@Suite struct CJKTokenizerTests {
    struct Token: Equatable, CustomStringConvertible {
        var text: String
        var start: Int
        var end: Int
        var position: Int
        var description: String { "\(text)[\(start),\(end))@\(position)" }
    }

    let db: Connection

    init() throws {
        db = try Connection(location: .inMemory, key: nil)
        try db.execute(sql: "CREATE VIRTUAL TABLE tokens USING fts3tokenize(cjk)")
    }

    /// The tokens FTS4 gets for `input`, any bytes: a blob cast to text is passed on unchecked.
    func tokens(_ input: Data) throws -> [Token] {
        try db.fetchAll(sql: #"SELECT token, start, "end", position FROM tokens WHERE input = CAST(? AS TEXT)"#, arguments: [input]).map {
            Token(text: try $0.value(String.self, at: 0), start: try $0.value(at: 1), end: try $0.value(at: 2), position: try $0.value(at: 3))
        }
    }

    func tokens(_ input: String) throws -> [Token] { try tokens(Data(input.utf8)) }
    func texts(_ input: String) throws -> [String] { try tokens(input).map(\.text) }

    @Test func chineseRunsBecomeOverlappingBigramsAtConsecutivePositions() throws {
        let sentence = "一只雪猴在日本边泡温泉边玩iPhone的照片"
        let found = try tokens(sentence)
        #expect(found.map(\.text) == ["一只", "只雪", "雪猴", "猴在", "在日", "日本", "本边", "边泡", "泡温", "温泉", "泉边", "边玩",
                                      "iphone", "的照", "照片"])
        #expect(found.map(\.position) == Array(0..<15))
        // Spans tile each run (a bigram covers its first character, the run's last bigram
        // both): FTS4's snippet() needs tokens that do not overlap.
        #expect(found[9] == Token(text: "温泉", start: 27, end: 30, position: 9))
        #expect(found[11] == Token(text: "边玩", start: 33, end: 39, position: 11))
        #expect(found[12] == Token(text: "iphone", start: 39, end: 45, position: 12))
        for (previous, next) in zip(found, found.dropFirst()) { #expect(previous.end <= next.start) }
    }

    @Test func aLoneCJKCharacterIsItsOwnToken() throws {
        #expect(try texts("泉") == ["泉"])
        #expect(try texts("2014年 野生") == ["2014", "年", "野生"])
        #expect(try texts("泡温泉") == ["泡温", "温泉"])
    }

    @Test func wordsAreCaseFoldedAndSplitWhereLettersMeetDigits() throws {
        #expect(try texts("iPhone6Plus TR350S") == ["iphone", "6", "plus", "tr", "350", "s"])
        // Full-width forms, Latin-1 and Latin Extended, Greek (final sigma too), Cyrillic.
        #expect(try texts("ｉＰｈｏｎｅ６ ÉCOLE Straße ŁÓDŹ ΣΊΣΥΦΟΣ МОСКВА") == ["iphone", "6", "école", "straße", "łódź", "σίσυφοσ", "москва"])
    }

    @Test func kanaAndHangulAreBigramsToo() throws {
        #expect(try texts("ひらがなとカタカナ") == ["ひら", "らが", "がな", "なと", "とカ", "カタ", "タカ", "カナ"])
        #expect(try texts("한국어 입니다") == ["한국", "국어", "입니", "니다"])
        #expect(try texts("コーヒー々") == ["コー", "ーヒ", "ヒー", "ー々"])
    }

    @Test func punctuationSymbolsAndEmojiSeparateTokens() throws {
        #expect(try texts("温泉，iPhone！「照片」🐒猴子_x-y") == ["温泉", "iphone", "照片", "猴子", "x", "y"])
        #expect(try texts("、。・ー") == ["ー"])
        #expect(try texts(" \t\n!?\"'()*^:-+{}[]") == [])
    }

    @Test func invalidUTF8IsSkippedWithoutReadingPastTheInput() throws {
        let onsen = Array("温泉".utf8)
        let cases: [([UInt8], [String])] = [
            (Array(onsen.dropLast()), ["温"]),                        // a character cut short at the end
            (Array(onsen.dropLast(2)) + Array("x".utf8), ["温", "x"]), // cut short in the middle
            ([0xC0, 0xAF, 0x41], ["a"]),                              // overlong "/"
            ([0xED, 0xA0, 0x80, 0x42], ["b"]),                        // a UTF-16 surrogate
            ([0xF4, 0x90, 0x80, 0x80], []),                           // past U+10FFFF
            ([0x80, 0xBF, 0xFE, 0xFF], []),                           // lone continuations, invalid bytes
            ([0x41, 0x00, 0x42], ["a", "b"]),                         // NUL separates
            ([0xE6], []),
        ]
        for (bytes, expected) in cases {
            #expect(try tokens(Data(bytes)).map(\.text) == expected, "\(bytes)")
        }
    }

    @Test func everyCutOfAMixedTextTokenizesWithinItsBytes() throws {
        let bytes = Array("一只雪猴在日本边泡温泉边玩iPhone的照片，Ｉｐｈｏｎｅ６ ÉCOLE 한국어 🐒".utf8)
        for length in 0...bytes.count {
            for token in try tokens(Data(bytes[0..<length])) {
                #expect(token.start >= 0 && token.start < token.end && token.end <= length)
            }
        }
    }

    /// Random bytes, and random mixes of valid and broken UTF-8: no crash, and every token
    /// inside the input, valid UTF-8, at consecutive positions, with spans that do not
    /// overlap. Under AddressSanitizer (`make check-sanitizers`) a read past the input fails.
    @Test func randomBytesNeverCrashOrYieldTokensOutsideTheInput() throws {
        var random = SplitMix64(seed: 0x5EED_C1C1)
        let fragments: [[UInt8]] = ["温", "泉", "iP", "6", "ｈ", "が", "한", "É", " ", "，", "🐒"].map { Array($0.utf8) }
            + [[0xE6], [0xE6, 0xB8], [0xF0, 0x9F], [0xC3], [0x80], [0xFF], [0x00], [0xED, 0xA0, 0x80]]
        for round in 0..<2_000 {
            var input: [UInt8] = []
            let length = Int.random(in: 0...200, using: &random)
            while input.count < length {
                if round % 2 == 0 {
                    input.append(UInt8.random(in: 0...255, using: &random))
                } else {
                    input += fragments[Int.random(in: 0..<fragments.count, using: &random)]
                }
            }
            let found = try tokens(Data(input))
            for (index, token) in found.enumerated() {
                #expect(token.start >= 0 && token.start < token.end && token.end <= input.count, "\(input) \(found)")
                #expect(token.position == index)
                #expect(!token.text.isEmpty && String(validating: Data(token.text.utf8), as: UTF8.self) != nil)
                if index > 0 { #expect(found[index - 1].end <= token.start, "\(input) \(found)") }
            }
        }
    }

    @Test func aVeryLongWordIsOneToken() throws {
        let word = String(repeating: "Ab", count: 50_000)
        #expect(try texts(word + " 温泉") == [word.lowercased(), "温泉"])
    }

    @Test func tokenizerArgumentsAreRefused() throws {
        #expect(throws: DatabaseError.self) {
            try db.execute(sql: "CREATE VIRTUAL TABLE t USING fts4(body, tokenize=cjk unigram)")
        }
        #expect(try !db.tableExists("t"))
    }

    /// FTS5 can tell a document from a query: documents also index every CJK character on
    /// its own, colocated with its bigram, so a one-character query finds it anywhere.
    @Test(.enabled(if: FTS5.isAvailable, "FTS5 is SQLCipher 4's; FTS4's tokens are tested above"))
    func fts5DocumentsIndexEachCJKCharacterBesideItsBigram() throws {
        try db.execute(sql: "CREATE VIRTUAL TABLE t USING fts5(body, tokenize='cjk')")
        try db.execute(sql: "CREATE VIRTUAL TABLE terms USING fts5vocab(t, 'instance')")
        try db.execute(sql: "INSERT INTO t(body) VALUES ('泡温泉iPhone')")
        let instances = try db.fetchAll(sql: "SELECT term, offset FROM terms ORDER BY offset, term").map {
            "\(try $0.value(String.self, at: 0))@\(try $0.value(Int.self, at: 1))"
        }
        #expect(instances == ["泡@0", "泡温@0", "温@1", "温泉@1", "泉@2", "iphone@3"])
    }

    @Test(.enabled(if: FTS5.isAvailable, "FTS5 is SQLCipher 4's"))
    func fts5TokenizesRandomBytesWithoutCrashing() throws {
        try db.execute(sql: "CREATE VIRTUAL TABLE t USING fts5(body, tokenize='cjk')")
        var random = SplitMix64(seed: 0xF75)
        for round in 0..<500 {
            let input = Data((0..<Int.random(in: 0...120, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
            try db.execute(sql: "INSERT INTO t(body) VALUES (CAST(? AS TEXT))", arguments: [input])
            // Queries and highlights tokenize as FTS5 queries and as documents again.
            try db.execute(sql: "INSERT INTO t(body) VALUES (CAST(? AS TEXT) || ' 温泉')", arguments: [input])
            if round % 50 == 0 {
                // The random bytes as a quoted string: tokenized in query mode, never syntax.
                let query = Data("\"温泉\" OR \"".utf8) + input.filter { $0 != 0x22 && $0 != 0 } + Data("\"".utf8)
                #expect(try !db.fetchAll(sql: "SELECT highlight(t, 0, '[', ']') FROM t WHERE t MATCH CAST(? AS TEXT)", arguments: [query]).isEmpty)
            }
        }
        try db.execute(sql: "INSERT INTO t(t) VALUES ('integrity-check')")
    }
}
