import Foundation

/// Stored as a 16-byte blob, its bytes in RFC 4122 order: less than half the size of its text
/// (36 bytes), so smaller rows and indexes, and blobs sort in the same order as the uppercase
/// text. Reading also accepts the text form (`E621E1F8-C36C-495A-93FC-0C247A3E6E5F`, either
/// case), as other tools often write it. In the `sqlcipher` shell, `hex(id)` shows a stored UUID.
extension UUID: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue {
        .blob(withUnsafeBytes(of: uuid) { Data($0) })
    }

    public static func fromDatabaseValue(_ value: DatabaseValue) -> UUID? {
        switch value {
        case .blob(let data) where data.count == 16:
            return data.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        case .text(let text):
            return UUID(uuidString: text)
        default:
            return nil
        }
    }
}

/// Stored as text, its `absoluteString`; reading accepts any text `URL(string:)` accepts.
extension URL: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(absoluteString) }

    public static func fromDatabaseValue(_ value: DatabaseValue) -> URL? {
        guard case .text(let text) = value else { return nil }
        return URL(string: text)
    }
}
