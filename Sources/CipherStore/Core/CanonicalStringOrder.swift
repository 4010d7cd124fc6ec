import Foundation

/// Unicode canonical order as a total order: strings compared by the UTF-8 bytes of their
/// Normalization Form C, so that canonically equivalent strings ("é" precomposed, or "e" and a
/// combining accent) are equal and every three strings order consistently.
///
/// Swift's `<` on strings means this order, but on Linux it is not transitive when a string
/// holds a letter and its combining accent apart ("α" < "α\u{301}" == "ά" < "α"); an index
/// under such a comparison fails SQLite's integrity check. Byte order of normalized UTF-8 is
/// the order of their Unicode scalars.
enum CanonicalStringOrder {
    /// `lhs` and `rhs` in canonical order.
    static func compare(_ lhs: String, _ rhs: String) -> ComparisonResult {
        // ASCII is its own normal form: no normalization, no allocation.
        if isASCII(lhs) && isASCII(rhs) { return byteOrder(lhs.utf8, rhs.utf8) }
        return byteOrder(lhs.precomposedStringWithCanonicalMapping.utf8, rhs.precomposedStringWithCanonicalMapping.utf8)
    }

    /// `lhs` and `rhs` lowercased, in canonical order: "Äpfel" and "äpfel" are the same.
    static func compareCaseInsensitive(_ lhs: String, _ rhs: String) -> ComparisonResult {
        if isASCII(lhs) && isASCII(rhs) { return byteOrder(lhs.utf8.lazy.map(asciiLowercase), rhs.utf8.lazy.map(asciiLowercase)) }
        return compare(lhs.lowercased(), rhs.lowercased())
    }

    /// The text of `bytes`, valid UTF-8 or not. A byte that is not part of a valid sequence
    /// becomes the private-use scalar U+10FF00 + its value, not U+FFFD as in
    /// `String(decoding:as:)`: values that differ in such bytes stay different. (Valid text
    /// holding those very scalars, at the end of the last private-use plane, compares equal.)
    static func decoding(_ bytes: UnsafeRawBufferPointer) -> String {
        if let valid = String(validating: bytes, as: UTF8.self) { return valid }
        var scalars = String.UnicodeScalarView()
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var position = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                scalars.append(Unicode.UTF8.decode(encoded))
                position += encoded.count
            case .error(let length):
                for byte in bytes[position..<position + length] {
                    // 0x10FF80...0x10FFFF: scalars, so never nil.
                    scalars.append(Unicode.Scalar(0x10FF00 + UInt32(byte)) ?? "\u{FFFD}")
                }
                position += length
            case .emptyInput:
                return String(scalars)
            }
        }
    }

    private static func isASCII(_ string: String) -> Bool {
        string.utf8.allSatisfy { $0 < 0x80 }
    }

    private static func asciiLowercase(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
    }

    /// Lexicographic order of two byte sequences; a prefix comes first.
    private static func byteOrder(_ lhs: some Sequence<UInt8>, _ rhs: some Sequence<UInt8>) -> ComparisonResult {
        var left = lhs.makeIterator(), right = rhs.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return .orderedSame
            case (nil, _): return .orderedAscending
            case (_, nil): return .orderedDescending
            case let (l?, r?) where l != r: return l < r ? .orderedAscending : .orderedDescending
            default: continue
            }
        }
    }
}
