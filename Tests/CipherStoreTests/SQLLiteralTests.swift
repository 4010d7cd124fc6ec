@testable import CipherStore
import Foundation
import Testing

/// `literal:` SQL: every interpolated value is bound, never spliced into the text.
@Suite struct SQLLiteralTests {
    struct Note: Codable, Equatable {
        var id: Int64
        var body: String?
        var done: Bool
    }

    let db: Connection

    init() throws {
        db = try Connection(location: .inMemory, key: try DatabaseKey.rawKey(hex: String(repeating: "a7", count: 32)))
        try db.executeScript("""
            CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT, done BOOLEAN NOT NULL DEFAULT 0);
            INSERT INTO note(id, body, done) VALUES (1, 'one', 0), (2, 'two', 1), (3, 'three', 0);
            """)
    }

    @Test func aValueIsBoundAsItIsWhateverItHolds() throws {
        let hostile = "it's \"quoted\"; DROP TABLE note; --"
        var statements: [String] = []
        try db.trace { statements.append($0) }
        try db.execute(literal: "UPDATE note SET body = \(hostile) WHERE id = \(2)")
        try db.trace(nil)
        #expect(statements == ["UPDATE note SET body = ? WHERE id = ?"])
        #expect(try String.fetchOne(db, literal: "SELECT body FROM note WHERE id = \(2)") == hostile)
        #expect(try Int.fetchOne(db, literal: "SELECT count(*) FROM note") == 3)
    }

    @Test func nilIsNullAndDataIsOneBlob() throws {
        let missing: String? = nil
        try db.execute(literal: "UPDATE note SET body = \(missing) WHERE id = \(1)")
        #expect(try db.fetchScalar(Int.self, literal: "SELECT body IS NULL FROM note WHERE id = \(1)") == 1)
        let blob = Data([0, 1, 2, 255])
        #expect(try db.fetchScalar(Data.self, literal: "SELECT \(blob)") == blob)
    }

    @Test func anArrayIsAnInListAndAnEmptyOneMatchesNothing() throws {
        let ids: [Int64] = [1, 3]
        #expect(try db.fetchAll(Note.self, literal: "SELECT * FROM note WHERE id IN \(ids) ORDER BY id").map(\.id) == [1, 3])
        let none: [Int64] = []
        #expect(try db.fetchAll(literal: "SELECT * FROM note WHERE id IN \(none)").isEmpty)
    }

    @Test func columnsAndIdentifiersAreQuotedAndExpressionsKeepTheirArguments() throws {
        try db.execute(sql: #"CREATE TABLE "odd ""name"""(x)"#)
        try db.execute(literal: "INSERT INTO \(identifier: "odd \"name\"") VALUES (\(7))")
        #expect(try Int.fetchAll(db, literal: "SELECT \(Column("x")) FROM \(identifier: "odd \"name\"")") == [7])

        let condition = Column("done") == false && Column("body") != "three"
        let order: SQL = "ORDER BY \(sql: "id DESC")"
        let query: SQL = "SELECT * FROM note WHERE \(condition) " + order
        #expect(query.arguments == [false.databaseValue, "three".databaseValue])
        #expect(try db.fetchAll(Note.self, literal: query) == [Note(id: 1, body: "one", done: false)])
        #expect(try db.fetchOne(Note.self, literal: "SELECT * FROM note WHERE id = \(2)")?.done == true)
        #expect(try db.fetchAll(String.self, literal: "SELECT body FROM note WHERE done = \(false) ORDER BY id") == ["one", "three"])
        #expect(try db.fetchOne(literal: "SELECT body FROM note WHERE id = \(3)")?[0] == "three".databaseValue)
    }
}
