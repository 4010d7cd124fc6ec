@testable import CipherStore
import TestSupport
import Testing

/// The repair recognises `CREATE VIRTUAL TABLE` and `WITHOUT ROWID` in SQL stripped of
/// comments, spaces and case; ASCII text takes a byte-by-byte path that must give what the
/// character-by-character one gives.
@Suite struct CompactSQLTests {
    @Test func commentsSpacesAndCaseAreStripped() {
        #expect(DatabaseSalvage.compactSQL("create /* x */ virtual\ttable -- note\n t USING fts4(a)") == "CREATEVIRTUALTABLETUSINGFTS4(A)")
        #expect(DatabaseSalvage.compactSQL("CREATE TABLE t(k PRIMARY KEY) without\r\nrowid").hasSuffix("WITHOUTROWID"))
        #expect(DatabaseSalvage.compactSQL("CREATE TABLE t(a) /* unterminated") == "CREATETABLET(A)")
    }

    /// "\r\n" is one character: a `--` comment runs past it to the next lone "\n".
    @Test func aLineCommentEndsAtALineFeedWithoutACarriageReturnBeforeIt() {
        #expect(DatabaseSalvage.compactSQL("a -- c\r\nb\nc") == "AC")
        #expect(DatabaseSalvage.compactSQL("a -- c\nb") == "AB")
    }

    @Test func asciiTextGivesWhatTheCharacterPathGives() {
        let alphabet = Array("-/*\r\n \t\u{0B}\u{0C}aZz;(".utf8) + [0x1C, 0x1F, 0x7F, 0x00]
        var generator = SplitMix64(seed: 30)
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0...14, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            let sql = String(decoding: bytes, as: UTF8.self)
            #expect(DatabaseSalvage.compactSQL(sql) == DatabaseSalvage.compactSQLByCharacter(sql), "\(bytes)")
        }
    }

    @Test func textBeyondASCIITakesTheCharacterPath() {
        #expect(DatabaseSalvage.compactSQL("create table 温泉\u{3000}(a) -- é\nwithout rowid") == "CREATETABLE温泉(A)WITHOUTROWID")
    }
}
