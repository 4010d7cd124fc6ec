import Foundation

extension DatabaseSalvage {
    /// SQL without comments, spaces or case, to recognise `CREATE VIRTUAL TABLE` and a
    /// `WITHOUT ROWID` ending however they are spelled.
    static func compactSQL(_ sql: String) -> String {
        // Schemas are ASCII nearly always: read bytes, not characters, then.
        if sql.utf8.allSatisfy({ $0 < 0x80 }) { return compactASCIISQL(Array(sql.utf8)) }
        return compactSQLByCharacter(sql)
    }

    /// ``compactSQL(_:)`` character by character, for any text.
    static func compactSQLByCharacter(_ sql: String) -> String {
        var result = ""
        var rest = Substring(sql)
        while let first = rest.first {
            if first == "-", rest.hasPrefix("--") {
                rest = rest.drop { $0 != "\n" }
            } else if first == "/", rest.hasPrefix("/*") {
                rest = rest.dropFirst(2)
                if let end = rest.range(of: "*/") { rest = rest[end.upperBound...] } else { rest = "" }
            } else {
                if !first.isWhitespace { result.append(first) }
                rest = rest.dropFirst()
            }
        }
        return result.uppercased()
    }

    /// ``compactSQL(_:)`` byte by byte, for ASCII text: each byte is a character but "\r\n",
    /// one whitespace character (so "\n" ends a `--` comment only when no "\r" precedes it).
    private static func compactASCIISQL(_ bytes: [UInt8]) -> String {
        let (lineFeed, carriageReturn) = (UInt8(ascii: "\n"), UInt8(ascii: "\r"))
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            let next = index + 1 < bytes.count ? bytes[index + 1] : 0
            if byte == UInt8(ascii: "-"), next == UInt8(ascii: "-") {
                index += 2
                while index < bytes.count, bytes[index] != lineFeed || bytes[index - 1] == carriageReturn { index += 1 }
            } else if byte == UInt8(ascii: "/"), next == UInt8(ascii: "*") {
                // Past the first "*/" after the opening, or to the end without one.
                var probe = index + 2
                index = bytes.count
                while probe + 1 < bytes.count {
                    if bytes[probe] == UInt8(ascii: "*"), bytes[probe + 1] == UInt8(ascii: "/") {
                        index = probe + 2
                        break
                    }
                    probe += 1
                }
            } else if byte == carriageReturn, next == lineFeed {
                index += 2
            } else {
                // Character.isWhitespace on ASCII: tab, line feed, vertical tab, form feed,
                // carriage return, space.
                if !(0x09...0x0D).contains(byte), byte != 0x20 {
                    result.append((0x61...0x7A).contains(byte) ? byte - 0x20 : byte)
                }
                index += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}
