import Foundation

/// How a record property that is neither a column type nor a single value (a nested
/// `Codable` struct, an array, a dictionary) is stored: as JSON text.
///
/// Keys are sorted, so equal values store equal text (and compare equal in SQL); dates inside
/// the JSON are milliseconds since 1970, the precision of dates in columns; `Data` is base64;
/// slashes are not escaped, so URLs read as written.
enum JSONColumn {
    static func text(of value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.dataEncodingStrategy = .base64
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func value<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        decoder.dataDecodingStrategy = .base64
        return try decoder.decode(T.self, from: data)
    }
}
