@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// An index under one of GRDB's collations whose order, as this process computes it, is not
/// the one the index was built in: the check says so, rather than "report the problem".
@Suite struct CollationOrderFailureTests {
    static let reversed: @Sendable (String, String) -> ComparisonResult = { lhs, rhs in
        lhs == rhs ? .orderedSame : lhs < rhs ? .orderedDescending : .orderedAscending
    }

    @Test func anIndexOutOfItsCollationsOrderIsNamedWithTheCollation() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("order.db")
        let key = try DatabaseKey.rawKey(hex: String(repeating: "6e", count: 32))
        // Built in reverse order under GRDB's name, as a Foundation that orders differently would.
        let app = try Connection(path: path, key: key)
        try app.add(collation: DatabaseCollation("swiftLocalizedCompare", function: Self.reversed))
        try app.executeScript("""
            CREATE TABLE word(id INTEGER PRIMARY KEY, text TEXT COLLATE swiftLocalizedCompare);
            CREATE INDEX word_text ON word(text);
            INSERT INTO word(text) VALUES ('apple'), ('banana'), ('cherry'), ('date');
            """)
        try app.close()
        let db = try Connection(path: path, key: key)
        let error = #expect(throws: DatabaseFileError.self) { try DatabaseFile.checkIntegrity(db) }
        guard case .collationNotAnOrder(let indexes, let collations)? = error else {
            Issue.record("expected collationNotAnOrder, got \(String(describing: error))")
            return
        }
        #expect(indexes == ["word_text"])
        #expect(collations == ["swiftLocalizedCompare"])
        let message = error?.description ?? ""
        #expect(message.contains("found index word_text out of order: swiftLocalizedCompare"), "\(message)")
        #expect(message.contains("the source was not changed"))
        #expect(!message.contains("report the problem"))

        // Another index out of order too, under an app's collation: that is damage as far as the check can tell.
        try db.add(collation: DatabaseCollation("myorder", function: Self.reversed))
        try db.executeScript("CREATE TABLE other(text TEXT COLLATE myorder); CREATE INDEX other_text ON other(text); INSERT INTO other VALUES ('x'), ('y'), ('z');")
        try db.close()
        let forward = try Connection(path: path, key: key)
        defer { try? forward.close() }
        try forward.add(collation: DatabaseCollation("myorder") { $0 == $1 ? .orderedSame : $0 < $1 ? .orderedAscending : .orderedDescending })
        let mixed = #expect(throws: DatabaseFileError.self) { try DatabaseFile.checkIntegrity(forward) }
        guard case .verificationFailed? = mixed else {
            Issue.record("expected verificationFailed, got \(String(describing: mixed))")
            return
        }
    }
}
