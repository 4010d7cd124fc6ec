import Foundation

/// SQLite's record format, read without trusting it: a header (its size, then one serial
/// type per column, all varints) followed by the values. A record that does not parse is
/// `nil`, never a crash or a guess.
enum RecordFormat {
    /// The text encoding of a database (its header's offset 56).
    enum TextEncoding: UInt32 {
        case utf8 = 1, utf16LittleEndian = 2, utf16BigEndian = 3
    }

    static func values(_ payload: [UInt8], encoding: TextEncoding = .utf8) -> [DatabaseValue]? {
        var position = 0
        guard let headerSize = BTreePage.varint(payload, &position), headerSize >= 1, headerSize <= payload.count else { return nil }
        var types: [Int64] = []
        while position < Int(headerSize) {
            guard let type = BTreePage.varint(payload, &position), type >= 0, type != 10, type != 11 else { return nil }
            types.append(type)
        }
        guard position == Int(headerSize) else { return nil }
        var values: [DatabaseValue] = []
        values.reserveCapacity(types.count)
        var body = Int(headerSize)
        for type in types {
            let size = Self.size(of: type)
            guard size >= 0, body + size <= payload.count else { return nil }
            values.append(value(type, payload[body..<(body + size)], encoding: encoding))
            body += size
        }
        guard body == payload.count else { return nil }
        return values
    }

    private static func size(of type: Int64) -> Int {
        switch type {
        case 0, 8, 9: return 0
        case 1...4: return Int(type)
        case 5: return 6
        case 6, 7: return 8
        default: return type > 1 << 32 ? -1 : Int((type - 12) / 2)
        }
    }

    private static func value(_ type: Int64, _ bytes: ArraySlice<UInt8>, encoding: TextEncoding) -> DatabaseValue {
        switch type {
        case 0: return .null
        case 8: return .integer(0)
        case 9: return .integer(1)
        case 1...6:
            // Big-endian two's complement, sign-extended from its width.
            var value = Int64(Int8(bitPattern: bytes.first!))
            for byte in bytes.dropFirst() { value = value << 8 | Int64(byte) }
            return .integer(value)
        case 7:
            var bits: UInt64 = 0
            for byte in bytes { bits = bits << 8 | UInt64(byte) }
            return .real(Double(bitPattern: bits))
        default:
            if type % 2 == 0 { return .blob(Data(bytes)) }
            switch encoding {
            case .utf8: return .text(String(decoding: bytes, as: UTF8.self))
            case .utf16LittleEndian, .utf16BigEndian:
                let units = stride(from: bytes.startIndex, to: bytes.endIndex - 1, by: 2).map { index in
                    encoding == .utf16LittleEndian ? UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8
                                                   : UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
                }
                return .text(String(decoding: units, as: UTF16.self))
            }
        }
    }
}
