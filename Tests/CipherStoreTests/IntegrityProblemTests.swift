@testable import CipherStore
import Testing

/// Which index an integrity-check problem is about: what the whole-file checks set aside (an
/// index under a stand-in) or name (one under the app's collation) must be that index and no
/// other, whatever the names look like.
@Suite struct IntegrityProblemTests {
    @Test(arguments: [
        ("row 3 missing from index word_text", "word_text"),
        ("wrong # of entries in index word_text", "word_text"),
        ("non-unique entry in index word_text", "word_text"),
        // A name that holds another index's name after " index ": the first marker decides.
        ("row 3 missing from index x index sqlite_autoindex_word_1", "x index sqlite_autoindex_word_1"),
        ("wrong # of entries in index a missing from index b", "a missing from index b"),
    ])
    func aProblemNamesItsIndex(problem: String, index: String) {
        #expect(DatabaseFile.indexName(in: problem) == index)
    }

    @Test(arguments: ["*** in database main ***", "Page 5 is never used", "NULL value in word.text", "row 3 missing"])
    func aProblemAboutNoIndexNamesNone(problem: String) {
        #expect(DatabaseFile.indexName(in: problem) == nil)
    }
}
