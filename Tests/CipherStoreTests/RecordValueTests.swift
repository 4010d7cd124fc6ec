import CipherStore
import Foundation
import TestSupport
import Testing

/// The value types a record may hold, through the record encoder and decoder, and as
/// statement arguments where they are column types.
@Suite struct RecordValueTests {
    struct Address: Codable, Equatable, Sendable {
        var city: String
        var zip: String?
        var since: Date
    }

    enum Mood: String, Codable, Sendable { case happy, calm }

    /// A single-value wrapper: stored as its one value, not as JSON.
    struct Meters: Codable, Equatable, Sendable {
        var value: Double
        init(_ value: Double) { self.value = value }
        init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Double.self) }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }

    struct Profile: Codable, Equatable, Sendable {
        var id: UUID
        var ratio: Float
        var big: UInt64
        var small: UInt8
        var site: URL
        var avatar: Data
        var seen: Date
        var address: Address
        var tags: [String]
        var scores: [String: Int]
        var previous: Address?
        var mood: Mood
        var height: Meters
    }

    static let profile = Profile(
        id: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!, ratio: 0.1, big: UInt64(Int64.max), small: 255,
        site: URL(string: "https://example.com/a b/é?q=1")!, avatar: Data([0, 1, 254, 255]),
        seen: Date(timeIntervalSince1970: 1_416_000_000.123),
        address: Address(city: "北京", zip: nil, since: Date(timeIntervalSince1970: 1_400_000_000.5)),
        tags: ["a", "b \"quoted\""], scores: ["b": 2, "a": 1], previous: nil, mood: .calm, height: Meters(1.75))

    static func database() throws -> Connection {
        let db = try Connection(location: .inMemory, key: .passphrase("values"))
        try db.execute(sql: """
            CREATE TABLE profile(id BLOB PRIMARY KEY, ratio REAL, big INTEGER, small INTEGER, site TEXT, avatar BLOB,
                                 seen TEXT, address TEXT, tags TEXT, scores TEXT, previous TEXT, mood TEXT, height REAL)
            """)
        return db
    }

    @Test func everyValueTypeRoundTripsThroughARecord() throws {
        let db = try Self.database()
        try db.insert(Self.profile, into: "profile")
        let fetched = try #require(try db.fetchOne(Profile.self, sql: "SELECT * FROM profile"))
        var expected = Self.profile
        expected.site = URL(string: Self.profile.site.absoluteString)!
        #expect(fetched == expected)
        let row = try #require(try db.fetchOne(sql: "SELECT * FROM profile"))
        #expect(try db.decode(Profile.self, from: row) == expected)
    }

    @Test func storageIsAsDocumented() throws {
        let db = try Self.database()
        try db.insert(Self.profile, into: "profile")
        let row = try #require(try db.fetchOne(sql: """
            SELECT typeof(id), hex(id), typeof(ratio), typeof(big), big, site, address, tags, scores, typeof(previous),
                   mood, typeof(height), seen
            FROM profile
            """))
        #expect(try row.value(String.self, at: 0) == "blob")
        #expect(try row.value(String.self, at: 1) == "E621E1F8C36C495A93FC0C247A3E6E5F")
        #expect(try row.value(String.self, at: 2) == "real")
        #expect(try row.value(String.self, at: 3) == "integer")
        #expect(try row.value(Int64.self, at: 4) == Int64.max)
        #expect(try row.value(String.self, at: 5) == Self.profile.site.absoluteString)
        #expect(try row.value(String.self, at: 6) == #"{"city":"北京","since":1400000000500}"#)
        #expect(try row.value(String.self, at: 7) == #"["a","b \"quoted\""]"#)
        #expect(try row.value(String.self, at: 8) == #"{"a":1,"b":2}"#)
        #expect(try row.value(String.self, at: 9) == "null")
        #expect(try row.value(String.self, at: 10) == "calm")
        #expect(try row.value(String.self, at: 11) == "real")
        #expect(try row.value(String.self, at: 12) == "2014-11-14 21:20:00.123")
        // SQL can read the JSON text: sorted keys make equal values equal text.
        #expect(try db.fetchScalar(Int.self, sql: #"SELECT count(*) FROM profile WHERE scores = '{"a":1,"b":2}'"#) == 1)
    }

    @Test func aUUIDStoredAsTextIsReadToo() throws {
        let db = try Connection(location: .inMemory, key: .passphrase("values"))
        struct Tagged: Decodable { var id: UUID }
        let lower = try #require(try db.fetchOne(Tagged.self, sql: "SELECT 'e621e1f8-c36c-495a-93fc-0c247a3e6e5f' AS id"))
        #expect(lower.id == Self.profile.id)
        #expect(try db.fetchScalar(UUID.self, sql: "SELECT ?", arguments: [Self.profile.id.uuidString]) == Self.profile.id)
        // A blob of another length is no UUID.
        #expect(throws: RecordDecodingError(recordType: "Tagged", column: "id", problem: .typeMismatch(storageClass: "blob", propertyType: "UUID"))) {
            try db.fetchOne(Tagged.self, sql: "SELECT x'0102' AS id")
        }
    }

    @Test func columnTypesRoundTripAsStatementArguments() throws {
        let db = try Connection(location: .inMemory, key: .passphrase("values"))
        try db.execute(sql: "CREATE TABLE t(id, ratio, small, site, avatar, seen, wide)")
        let p = Self.profile
        try db.execute(sql: "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?)",
                       arguments: [p.id, p.ratio, p.small, p.site, p.avatar, p.seen, UInt32.max])
        let row = try #require(try db.fetchOne(sql: "SELECT * FROM t"))
        #expect(try row.value(UUID.self, at: 0) == p.id)
        #expect(try row.value(Float.self, at: 1) == p.ratio)
        #expect(try row.value(UInt8.self, at: 2) == p.small)
        #expect(try row.value(URL.self, at: 3) == URL(string: p.site.absoluteString))
        #expect(try row.value(Data.self, at: 4) == p.avatar)
        #expect(try row.value(Date.self, at: 5) == p.seen)
        #expect(try row.value(UInt32.self, at: 6) == UInt32.max)
        // Named arguments convert the same way.
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM t WHERE id = :id", arguments: ["id": p.id]) == 1)
    }

    @Test func aUInt64AboveInt64MaxIsAClearErrorAndNothingIsInserted() throws {
        let db = try Self.database()
        var profile = Self.profile
        profile.big = UInt64(Int64.max) + 1
        let error = try #require(throws: EncodingError.self) { try db.insert(profile, into: "profile") }
        guard case .invalidValue(_, let context) = error else {
            Issue.record("expected invalidValue, got \(error)")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["big"])
        #expect(context.debugDescription.contains("9223372036854775808 is above Int64.max (9223372036854775807)"))
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM profile") == 0)
        // Reading a negative integer into a UInt64 is an overflow, not a wrapped number.
        struct Wide: Decodable { var big: UInt64 }
        #expect(throws: RecordDecodingError(recordType: "Wide", column: "big", problem: .overflow(value: "-1", propertyType: "UInt64"))) {
            try db.fetchOne(Wide.self, sql: "SELECT -1 AS big")
        }
    }

    @Test func aFloatOutOfRangeIsAnOverflowNotInfinity() throws {
        let db = try Connection(location: .inMemory, key: .passphrase("values"))
        struct Ratio: Decodable { var ratio: Float }
        #expect(throws: RecordDecodingError(recordType: "Ratio", column: "ratio", problem: .overflow(value: "1e+300", propertyType: "Float"))) {
            try db.fetchOne(Ratio.self, sql: "SELECT 1e300 AS ratio")
        }
        let error = try #require(throws: (any Error).self) { try db.fetchScalar(Float.self, sql: "SELECT 1e300") }
        #expect("\(error)".contains("does not convert to Float"))
    }

    @Test func textThatIsNotJSONForTheTypeIsAnInvalidValueBothWays() throws {
        let db = try Connection(location: .inMemory, key: .passphrase("values"))
        struct Located: Decodable { var address: Address }
        let sql = #"SELECT '{"city": 7}' AS address"#
        let fromSQL = try #require(throws: RecordDecodingError.self) { try db.fetchOne(Located.self, sql: sql) }
        let row = try #require(try db.fetchOne(sql: sql))
        let fromRow = try #require(throws: RecordDecodingError.self) { try db.decode(Located.self, from: row) }
        #expect(fromSQL == fromRow)
        guard case .invalidValue(let reason) = fromSQL.problem else {
            Issue.record("expected invalidValue, got \(fromSQL)")
            return
        }
        #expect(reason.hasPrefix("Address is stored as JSON text"))
        #expect(fromSQL.column == "address")
    }
}
