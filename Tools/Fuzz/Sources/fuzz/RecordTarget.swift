import CipherStore
import Foundation

// The record decoder (Decodable rows: numbers, text, blobs, dates, UUIDs, nested JSON, optionals)
// on rows of fuzzed values. Only thrown errors are acceptable.

// libFuzzer runs the target on one thread only: the one connection is never shared.
nonisolated(unsafe) let recordDatabase: Connection = {
    let db = try! Connection(location: .inMemory, key: nil)
    try! db.execute(sql: "CREATE TABLE r(id, name, score, payload, created, uuid, flag, nested, small)")
    return db
}()

struct FuzzRecord: Decodable {
    struct Nested: Codable { var values: [String: Int]; var tags: [String]? }
    enum Kind: String, Codable { case a, b }
    var id: Int64
    var name: String
    var score: Double?
    var payload: Data
    var created: Date?
    var uuid: UUID?
    var flag: Bool
    var nested: Nested?
    var small: Int8
}

struct LooseRecord: Decodable {
    var id: Int?
    var name: FuzzRecord.Kind?
    var score: Float?
    var payload: String?
    var created: String?
    var uuid: Data?
    var flag: Int?
    var nested: [Int]?
    var small: UInt8?
}

/// One database value per field, read from the input: a tag byte, then its bytes.
func fuzzValues(_ bytes: [UInt8]) -> [(any DatabaseValueConvertible)?] {
    var values: [(any DatabaseValueConvertible)?] = []
    var index = 0
    while values.count < 9 {
        guard index < bytes.count else { values.append(nil); continue }
        let tag = bytes[index] % 5
        let length = index + 1 < bytes.count ? Int(bytes[index + 1] % 32) : 0
        let body = Array(bytes[min(index + 2, bytes.count)..<min(index + 2 + length, bytes.count)])
        index += 2 + length
        switch tag {
        case 0: values.append(nil)
        case 1: values.append(body.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) })
        case 2: values.append(Double(bitPattern: body.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }))
        case 3: values.append(String(decoding: body, as: UTF8.self))
        default: values.append(Data(body))
        }
    }
    return values
}

func fuzzRecords(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let values = fuzzValues(Array(UnsafeBufferPointer(start: data, count: size)))
    let db = recordDatabase
    _ = try? db.execute(sql: "DELETE FROM r")
    _ = try? db.execute(sql: "INSERT INTO r VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", arguments: StatementArguments(values))
    _ = try? db.fetchAll(FuzzRecord.self, sql: "SELECT * FROM r")
    _ = try? db.fetchAll(LooseRecord.self, sql: "SELECT * FROM r")
    _ = try? db.fetchOne(FuzzRecord.Nested.self, sql: "SELECT nested AS values, name AS tags FROM r")
    return 0
}

/// Seeds: a row that decodes as a `FuzzRecord`, and one of mixed types.
let recordSeeds: [(String, [UInt8])] = [
    ("decodable", [1, 1, 7] + [3, 4] + Array("note".utf8) + [2, 8, 0x40, 0x09, 0x21, 0xFB, 0x54, 0x44, 0x2D, 0x18] + [4, 3, 1, 2, 3]
        + [3, 23] + Array("2026-11-25 10:00:00.000".utf8) + [4, 16] + Array(repeating: 0xAB, count: 16) + [1, 1, 1]
        + [3, 24] + Array(#"{"values":{"a":1},"tags":["x"]}"#.utf8.prefix(24)) + [1, 1, 5]),
    ("mixed", [0, 0, 3, 1, 0x62, 4, 2, 0xFF, 0xFE, 2, 8, 0x7F, 0xF0, 0, 0, 0, 0, 0, 0, 3, 5] + Array("1e999".utf8)),
]
