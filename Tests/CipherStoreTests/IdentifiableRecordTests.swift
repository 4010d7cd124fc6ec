import CipherStore
import Foundation
import TestSupport
import Testing

/// GRDB's spelling for Identifiable records and raw-value enums, each request checked against
/// the same SQL.
@Suite struct IdentifiableRecordTests {
    enum Color: String, Codable, DatabaseValueConvertible {
        case red, green, blue
    }

    struct Player: Codable, Equatable, FetchableRecord, TableRecord, Identifiable {
        static let databaseTableName = "player"
        var id: Int64
        var name: String
        var color: Color
    }

    let directory: TemporaryDirectory
    let db: Connection

    init() throws {
        directory = try TemporaryDirectory()
        db = try Connection(path: directory.path("players.db"), key: .rawKey(hex: String(repeating: "1d", count: 32)))
        try db.executeScript("""
            CREATE TABLE player(id INTEGER PRIMARY KEY, name TEXT NOT NULL, color TEXT NOT NULL);
            INSERT INTO player VALUES (1, 'Arthur', 'red'), (2, 'Barbara', 'blue'), (3, 'Craig', 'blue'), (5, 'Diane', 'green');
            """)
    }

    func names(_ sql: String) throws -> [String] { try String.fetchAll(db, sql: sql) }

    @Test func findFetchOneFilterDeleteAndExistsByID() throws {
        #expect(try Player.find(db, id: 2) == Player(id: 2, name: "Barbara", color: .blue))
        #expect(try Player.fetchOne(db, id: 4) == nil)
        #expect {
            try Player.find(db, id: 4)
        } throws: { error in
            guard case RecordError.recordNotFound(let table, let key) = error else { return false }
            return table == "player" && key == ["id": .integer(4)] && "\(error)".contains("id = 4")
        }
        #expect(try Player.filter(id: 3).fetchAll(db).map(\.name) == names("SELECT name FROM player WHERE id = 3"))
        #expect(try Player.filter(ids: [1, 5, 9]).order(Column("id")).fetchAll(db).map(\.name)
                == names("SELECT name FROM player WHERE id IN (1, 5, 9) ORDER BY id"))
        #expect(try Player.filter(ids: [Int64]()).fetchCount(db) == 0)
        #expect(try Player.exists(db, id: 5))
        #expect(try !Player.exists(db, id: 6))
        #expect(try Player.deleteOne(db, id: 1))
        #expect(try !Player.deleteOne(db, id: 1))
        #expect(try names("SELECT name FROM player ORDER BY id") == ["Barbara", "Craig", "Diane"])
    }

    @Test func aRawValueEnumNeedsNoBodyAndComparesByItsRawValue() throws {
        #expect(Color.blue.databaseValue == .text("blue"))
        #expect(Color.fromDatabaseValue(.text("green")) == .green)
        #expect(Color.fromDatabaseValue(.text("purple")) == nil)
        #expect(try Player.filter(Column("color") == Color.blue).order(Column("name")).fetchAll(db).map(\.name)
                == names("SELECT name FROM player WHERE color = 'blue' ORDER BY name"))
        #expect(try Color.fetchAll(db, sql: "SELECT color FROM player ORDER BY id") == [.red, .blue, .blue, .green])
    }
}
