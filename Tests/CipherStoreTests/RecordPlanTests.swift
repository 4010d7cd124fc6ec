@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// Records decode through a plan made on a request's first row (each coding key's column) and
/// insert through one made on a table's first insert (each key's parameter): a key that is not
/// the planned one is found by name, a new statement gets a new plan, and an error on a later
/// row names its column as on the first.
@Suite struct RecordPlanTests {
    let db: Connection

    init() throws {
        db = try Connection(location: .inMemory, key: .passphrase("plans"))
    }

    /// Reads `a` or `b` depending on `kind`: the keys asked for differ from row to row.
    struct EitherOr: Decodable, Equatable {
        var kind: String
        var value: Int64
        enum CodingKeys: String, CodingKey { case kind, a, b }
        init(kind: String, value: Int64) { (self.kind, self.value) = (kind, value) }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            kind = try container.decode(String.self, forKey: .kind)
            value = try container.decode(Int64.self, forKey: kind == "a" ? .a : .b)
        }
    }

    @Test func keysAskedForConditionallyReadTheirOwnColumnOnEveryRow() throws {
        let sql = """
            SELECT 'a' AS kind, 1 AS a, 10 AS b UNION ALL SELECT 'b', 2, 20 UNION ALL SELECT 'b', 3, 30 UNION ALL SELECT 'a', 4, 40
            """
        let expected = [EitherOr(kind: "a", value: 1), EitherOr(kind: "b", value: 20), EitherOr(kind: "b", value: 30), EitherOr(kind: "a", value: 4)]
        #expect(try db.fetchAll(EitherOr.self, sql: sql) == expected)
        #expect(try db.fetchAll(sql: sql).map { try db.decode(EitherOr.self, from: $0) } == expected)
    }

    /// Keys of a struct type holding a `String`, made anew for each read.
    struct NamedKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    struct Dynamic: Decodable, Equatable {
        var values: [Int64]
        init(values: [Int64]) { self.values = values }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: NamedKey.self)
            values = try ["x", "y"].map { try container.decode(Int64.self, forKey: NamedKey(stringValue: $0)) }
        }
    }

    @Test func keysMadeAnewForEachReadFindTheirColumns() throws {
        let sql = "SELECT 1 AS y, 2 AS x UNION ALL SELECT 3, 4"
        #expect(try db.fetchAll(Dynamic.self, sql: sql) == [Dynamic(values: [2, 1]), Dynamic(values: [4, 3])])
    }

    struct Item: Codable, Equatable, FetchableRecord { var id: Int64; var name: String }
    struct ItemWithColor: Codable, Equatable, FetchableRecord { var id: Int64; var name: String; var color: String }

    @Test func selectStarAfterAddColumnDecodesTheNewColumn() throws {
        try db.execute(sql: "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        try db.insert(Item(id: 1, name: "tea"), into: "item")
        #expect(try Item.fetchAll(db, sql: "SELECT * FROM item") == [Item(id: 1, name: "tea")])
        let before = try #require(throws: RecordDecodingError.self) { try ItemWithColor.fetchAll(db, sql: "SELECT * FROM item") }
        #expect(before.problem == .missingColumn(availableColumns: ["id", "name"]))

        try db.execute(sql: "ALTER TABLE item ADD COLUMN color TEXT NOT NULL DEFAULT 'green'")
        #expect(try ItemWithColor.fetchAll(db, sql: "SELECT * FROM item") == [ItemWithColor(id: 1, name: "tea", color: "green")])
        #expect(try Item.fetchAll(db, sql: "SELECT * FROM item") == [Item(id: 1, name: "tea")])
        // The INSERT kept for the table is for two columns; a record of three gets its own.
        try db.insert(ItemWithColor(id: 2, name: "milk", color: "white"), into: "item")
        try db.insert(Item(id: 3, name: "honey"), into: "item")
        #expect(try ItemWithColor.fetchAll(db, sql: "SELECT * FROM item ORDER BY id") == [
            ItemWithColor(id: 1, name: "tea", color: "green"), ItemWithColor(id: 2, name: "milk", color: "white"),
            ItemWithColor(id: 3, name: "honey", color: "green"),
        ])
    }

    struct Total: Decodable { var id: Int64; var total: Int64 }

    @Test func anErrorOnALaterRowNamesItsColumnAsOnTheFirst() throws {
        let sql = "SELECT 1 AS id, 10 AS total UNION ALL SELECT 2, 20 UNION ALL SELECT 3, 'many'"
        let error = try #require(throws: RecordDecodingError.self) { try db.fetchAll(Total.self, sql: sql) }
        #expect(error == RecordDecodingError(recordType: "Total", column: "total", problem: .typeMismatch(storageClass: "text", propertyType: "Int64")))
        #expect(error.description.contains("column 'total'"))
    }

    /// Optional properties of the common types, each read through the plan.
    struct Optionals: Decodable, Equatable {
        var int: Int?
        var small: Int8?
        var real: Double?
        var text: String?
        var flag: Bool?
        var blob: Data?
        var absent: Int64?
    }

    @Test func optionalPropertiesReadValuesNullsAndMissingColumns() throws {
        let sql = """
            SELECT 1 AS int, 2 AS small, 0.5 AS real, 'tea' AS text, 1 AS flag, x'01' AS blob
            UNION ALL SELECT NULL, NULL, NULL, NULL, NULL, NULL
            """
        let expected = [Optionals(int: 1, small: 2, real: 0.5, text: "tea", flag: true, blob: Data([1]), absent: nil),
                        Optionals(int: nil, small: nil, real: nil, text: nil, flag: nil, blob: nil, absent: nil)]
        #expect(try db.fetchAll(Optionals.self, sql: sql) == expected)
        #expect(try db.fetchAll(sql: sql).map { try db.decode(Optionals.self, from: $0) } == expected)
    }

    @Test func anOptionalPropertyOfTheWrongTypeNamesItsColumn() throws {
        let sql = "SELECT 1 AS int, 2 AS small UNION ALL SELECT 'x', 300"
        let fromSQL = try #require(throws: RecordDecodingError.self) { try db.fetchAll(Optionals.self, sql: sql) }
        #expect(fromSQL == RecordDecodingError(recordType: "Optionals", column: "int", problem: .typeMismatch(storageClass: "text", propertyType: "Int")))
        let overflow = try #require(throws: RecordDecodingError.self) { try db.fetchAll(Optionals.self, sql: "SELECT 1 AS int, 300 AS small") }
        #expect(overflow == RecordDecodingError(recordType: "Optionals", column: "small", problem: .overflow(value: "300", propertyType: "Int8")))
    }

    struct Note: Codable, Equatable, FetchableRecord { var id: Int64; var body: String; var tag: String? }
    struct ShortNote: Codable { var id: Int64; var body: String }
    /// Leaves `tag` out when it is nil, as a hand-written `encode(to:)` may.
    struct SparseNote: Encodable {
        var id: Int64
        var body: String
        var tag: String?
        enum CodingKeys: String, CodingKey { case id, body, tag }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            if let tag { try container.encode(tag, forKey: .tag) }
            try container.encode(body, forKey: .body)
        }
    }

    @Test func recordsOfOtherKeysInsertedIntoOneTableKeepTheirOwnColumns() throws {
        try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL, tag TEXT DEFAULT 'none')")
        try db.insert(Note(id: 1, body: "a", tag: "x"), into: "note")
        try db.insert(ShortNote(id: 2, body: "b"), into: "note")
        try db.insert(Note(id: 3, body: "c", tag: nil), into: "note")
        try db.insert(SparseNote(id: 4, body: "d", tag: "y"), into: "note")
        try db.insert(SparseNote(id: 5, body: "e", tag: nil), into: "note")
        try db.insert(Note(id: 6, body: "f", tag: "z"), into: "note")
        #expect(try Note.fetchAll(db, sql: "SELECT * FROM note ORDER BY id") == [
            Note(id: 1, body: "a", tag: "x"), Note(id: 2, body: "b", tag: "none"), Note(id: 3, body: "c", tag: nil),
            Note(id: 4, body: "d", tag: "y"), Note(id: 5, body: "e", tag: "none"), Note(id: 6, body: "f", tag: "z"),
        ])
    }

    @Test func aRefusedInsertThroughThePlanChangesNothing() throws {
        try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT NOT NULL, tag TEXT)")
        try db.insert(Note(id: 1, body: "a", tag: nil), into: "note")
        let error = try #require(throws: DatabaseError.self) { try db.insert(Note(id: 1, body: "again", tag: "x"), into: "note") }
        #expect(error.resultCode.primaryResultCode == .SQLITE_CONSTRAINT)
        try db.insert(Note(id: 2, body: "b", tag: "y"), into: "note")
        #expect(try Note.fetchAll(db, sql: "SELECT * FROM note ORDER BY id") == [Note(id: 1, body: "a", tag: nil), Note(id: 2, body: "b", tag: "y")])
    }

    final class Captured: @unchecked Sendable {
        weak var decoder: RecordDecoder?
    }

    /// Records what decodes it, to check that nothing keeps the decoder afterwards.
    struct Watched: Decodable {
        static let captured = Captured()
        var id: Int64
        init(from decoder: any Decoder) throws {
            Self.captured.decoder = (decoder as? RecordDecoder.TopLevel)?.decoder
            id = try decoder.container(keyedBy: CodingKeys.self).decode(Int64.self, forKey: .id)
        }
        enum CodingKeys: CodingKey { case id }
    }

    @Test func decodersAndEncodersAreReleasedWithTheirOwners() throws {
        _ = try db.fetchAll(Watched.self, sql: "SELECT 1 AS id UNION ALL SELECT 2")
        #expect(Watched.captured.decoder == nil)
        let row = try #require(try db.fetchOne(sql: "SELECT 3 AS id"))
        _ = try db.decode(Watched.self, from: row)
        #expect(Watched.captured.decoder == nil)

        var connection: Connection? = try Connection(location: .inMemory, key: nil)
        try connection?.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        try connection?.insert(ShortNote(id: 1, body: "a"), into: "t")
        try connection?.insert(ShortNote(id: 2, body: "b"), into: "t")
        weak let encoder = try #require(connection?.recordEncoder)
        connection = nil
        #expect(encoder == nil)
    }
}
