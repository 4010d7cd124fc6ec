import CipherStore
import Foundation
import TestSupport
import Testing

/// Records decode the same way, with the same errors, straight from SQL (the statement fast
/// path) and from a fetched `Row`.
@Suite struct RecordDecodingTests {
    enum Mood: String, Codable, Sendable { case happy, calm }
    struct Point: Codable, Sendable { var x: Int }

    struct Price: Decodable, Sendable { var price: Double }
    struct Count: Decodable, Sendable { var count: Int }
    struct Name: Decodable, Sendable { var name: String }
    struct Level: Decodable, Sendable { var level: Int8 }
    struct Population: Decodable, Sendable { var population: Int32 }
    struct Age: Decodable, Sendable { var age: UInt8 }
    struct Total: Decodable, Sendable { var total: Int64 }
    struct Feeling: Decodable, Sendable { var mood: Mood }
    struct Located: Decodable, Sendable { var point: Point }
    struct Tagged: Decodable, Sendable { var tags: [Int] }
    /// Asks for a nested container itself, as a hand-written init(from:) may.
    struct Nested: Decodable, Sendable {
        enum CodingKeys: String, CodingKey { case inner }
        enum InnerKeys: String, CodingKey { case x }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            _ = try container.nestedContainer(keyedBy: InnerKeys.self, forKey: .inner)
        }
    }

    /// One mismatch, decoded both ways.
    struct Mismatch: Sendable, CustomTestStringConvertible {
        let name: String
        let sql: String
        let expected: RecordDecodingError
        let decodeBothWays: @Sendable (Connection, String) throws -> (fromSQL: RecordDecodingError, fromRow: RecordDecodingError)
        var testDescription: String { name }

        init<Record: Decodable & Sendable>(_ name: String, _ type: Record.Type, sql: String,
                                           column: String?, _ problem: RecordDecodingError.Problem) {
            self.name = name
            self.sql = sql
            self.expected = RecordDecodingError(recordType: "\(Record.self)", column: column, problem: problem)
            self.decodeBothWays = { db, sql in
                let fromSQL = try #require(throws: RecordDecodingError.self) { _ = try db.fetchAll(Record.self, sql: sql) }
                let fromRow = try #require(throws: RecordDecodingError.self) {
                    for row in try db.fetchAll(sql: sql) { _ = try db.decode(Record.self, from: row) }
                }
                return (fromSQL, fromRow)
            }
        }
    }

    static let mismatches: [Mismatch] = [
        Mismatch("missing column", Price.self, sql: "SELECT 1 AS id, 'x' AS name",
                 column: "price", .missingColumn(availableColumns: ["id", "name"])),
        Mismatch("NULL for a non-optional Double", Price.self, sql: "SELECT NULL AS price",
                 column: "price", .null(propertyType: "Double")),
        Mismatch("NULL on the second row, after the first planned the columns", Price.self,
                 sql: "SELECT 1.5 AS price UNION ALL SELECT NULL", column: "price", .null(propertyType: "Double")),
        Mismatch("NULL for an enum", Feeling.self, sql: "SELECT NULL AS mood", column: "mood", .null(propertyType: "Mood")),
        Mismatch("text into Int", Count.self, sql: "SELECT 'many' AS count",
                 column: "count", .typeMismatch(storageClass: "text", propertyType: "Int")),
        Mismatch("fractional real into Int", Count.self, sql: "SELECT 2.5 AS count",
                 column: "count", .typeMismatch(storageClass: "real", propertyType: "Int")),
        Mismatch("integer into String", Name.self, sql: "SELECT 42 AS name",
                 column: "name", .typeMismatch(storageClass: "integer", propertyType: "String")),
        Mismatch("blob into String", Name.self, sql: "SELECT x'00ff' AS name",
                 column: "name", .typeMismatch(storageClass: "blob", propertyType: "String")),
        Mismatch("integer into an enum with String raw values", Feeling.self, sql: "SELECT 7 AS mood",
                 column: "mood", .typeMismatch(storageClass: "integer", propertyType: "Mood")),
        Mismatch("300 into Int8", Level.self, sql: "SELECT 300 AS level",
                 column: "level", .overflow(value: "300", propertyType: "Int8")),
        Mismatch("3,000,000,000 into Int32", Population.self, sql: "SELECT 3000000000 AS population",
                 column: "population", .overflow(value: "3000000000", propertyType: "Int32")),
        Mismatch("-1 into UInt8", Age.self, sql: "SELECT -1 AS age",
                 column: "age", .overflow(value: "-1", propertyType: "UInt8")),
        Mismatch("1e30 into Int64", Total.self, sql: "SELECT 1e30 AS total",
                 column: "total", .overflow(value: "1e+30", propertyType: "Int64")),
        Mismatch("integer into a nested struct (stored as JSON text)", Located.self, sql: "SELECT 1 AS point", column: "point",
                 .typeMismatch(storageClass: "integer", propertyType: "Point")),
        Mismatch("integer into an array (stored as JSON text)", Tagged.self, sql: "SELECT 12 AS tags", column: "tags",
                 .typeMismatch(storageClass: "integer", propertyType: "Array<Int>")),
        Mismatch("NULL into an array", Tagged.self, sql: "SELECT NULL AS tags", column: "tags",
                 .null(propertyType: "Array<Int>")),
        Mismatch("nested container asked for", Nested.self, sql: "SELECT 1 AS inner", column: "inner",
                 .unsupportedShape("it asks for a nested keyed container, but a column holds one value (to read a column's JSON, decode the property's type with decode(_:forKey:))")),
        Mismatch("a single value as the record", String.self, sql: "SELECT 'a' AS name", column: nil,
                 .unsupportedShape("it decodes as a single value, but a record decodes one property per column (read one value with Row.value(_:at:) or Connection.fetchScalar)")),
    ]

    @Test(arguments: mismatches)
    func mismatchThrowsTheSameErrorFromSQLAndFromARow(_ mismatch: Mismatch) throws {
        let db = try Connection(location: .inMemory, key: .passphrase("records"))
        let (fromSQL, fromRow) = try mismatch.decodeBothWays(db, mismatch.sql)
        #expect(fromSQL == fromRow)
        #expect(fromSQL == mismatch.expected)
        // Every message names the record and the column, and says what to do.
        #expect(fromSQL.description.hasPrefix("Cannot decode \(mismatch.expected.recordType)"))
        if let column = mismatch.expected.column { #expect(fromSQL.description.contains("column '\(column)'")) }
        #expect(fromSQL.description.split(separator: ". ").count >= 2)
    }

    @Test func unknownRawValueIsTheSameInvalidValueErrorBothWays() throws {
        let db = try Connection(location: .inMemory, key: .passphrase("records"))
        let sql = "SELECT 'sad' AS mood"
        let fromSQL = try #require(throws: RecordDecodingError.self) { try db.fetchOne(Feeling.self, sql: sql) }
        let row = try #require(try db.fetchOne(sql: sql))
        let fromRow = try #require(throws: RecordDecodingError.self) { try db.decode(Feeling.self, from: row) }
        #expect(fromSQL == fromRow)
        guard case .invalidValue(let reason) = fromSQL.problem else {
            Issue.record("expected invalidValue, got \(fromSQL)")
            return
        }
        #expect(reason.contains("sad"))
        #expect(fromSQL.column == "mood")
        #expect(fromSQL.recordType == "Feeling")
    }

    /// Every supported property type, read both ways to the same values.
    struct Everything: Decodable, Equatable, Sendable {
        var id: Int64
        var small: Int8
        var medium: Int32
        var unsigned: UInt16
        var count: Int
        var ratio: Float
        var price: Double
        var flag: Bool
        var name: String
        var blob: Data
        var at: Date
        var mood: Mood
        var note: String?
        var absent: Int?
    }

    @Test func everySupportedTypeDecodesToTheSameValuesBothWays() throws {
        let db = try Connection(location: .inMemory, key: .passphrase("records"))
        // Column names differ in case from the coding keys; a whole real reads as an integer.
        let sql = """
            SELECT 1 AS ID, -128 AS small, 2147483647 AS medium, 65535 AS unsigned, 7.0 AS count, 0.5 AS ratio,
                   3 AS price, 1 AS flag, '茶' AS name, x'00ff' AS blob, '2014-11-14 01:02:03.000' AS at,
                   'calm' AS mood, NULL AS note
            """
        let expected = Everything(id: 1, small: -128, medium: .max, unsigned: .max, count: 7, ratio: 0.5, price: 3,
                                  flag: true, name: "茶", blob: Data([0, 255]), at: Date(timeIntervalSince1970: 1_415_926_923),
                                  mood: .calm, note: nil, absent: nil)
        #expect(try db.fetchOne(Everything.self, sql: sql) == expected)
        let row = try #require(try db.fetchOne(sql: sql))
        #expect(try db.decode(Everything.self, from: row) == expected)
    }

    /// A record-typed property that no column names decodes from the row's own columns, both
    /// ways; a type that contains itself stops with the missing column instead of recursing.
    @Test func aRecordPropertyWithoutAColumnDecodesFromTheSameRow() throws {
        struct Inner: Decodable, Equatable, Sendable { var x: Int; var label: String }
        struct Outer: Decodable, Equatable, Sendable { var inner: Inner; var extra: Int }
        final class Chain: Decodable, Sendable { let next: Chain; let x: Int }
        let directory = try TemporaryDirectory()
        let db = try Connection(path: directory.path("nested.db"), key: .rawKey(hex: String(repeating: "7d", count: 32)))
        let sql = "SELECT 1 AS x, 'one' AS label, 2 AS extra UNION ALL SELECT 3, 'three', 4"
        let expected = [Outer(inner: Inner(x: 1, label: "one"), extra: 2), Outer(inner: Inner(x: 3, label: "three"), extra: 4)]
        #expect(try db.fetchAll(Outer.self, sql: sql) == expected)
        #expect(try db.fetchAll(sql: sql).map { try db.decode(Outer.self, from: $0) } == expected)
        #expect {
            _ = try db.fetchAll(Chain.self, sql: sql)
        } throws: { error in
            (error as? RecordDecodingError)?.column == "next"
        }
    }
}
