/// The column names of a result, shared by all its rows, with a case-insensitive index
/// built once per statement rather than once per row.
@usableFromInline
final class RowLayout: Sendable {
    @usableFromInline let columnNames: [String]
    /// Each column name's ``StringBits``, in column order.
    private let nameBits: [StringBits]
    private let indexByName: [String: Int]

    init(columnNames: [String]) {
        self.columnNames = columnNames
        self.nameBits = columnNames.map(StringBits.init)
        var index: [String: Int] = [:]
        // The leftmost column wins when names repeat, as in SQLite's own lookups.
        for (offset, name) in columnNames.enumerated().reversed() {
            index[name.lowercased()] = offset
        }
        self.indexByName = index
    }

    @usableFromInline
    func index(of name: String) -> Int? {
        // The usual read names its column with the same short literal on every row: that
        // string's two words equal the column name's, so it is found with integer compares,
        // before any string comparison or hashing.
        let bits = StringBits(name)
        for offset in nameBits.indices where nameBits[offset] == bits { return offset }
        if columnNames.count <= 16 {
            for (offset, column) in columnNames.enumerated() where column == name { return offset }
        }
        return indexByName[name] ?? indexByName[name.lowercased()]
    }
}

/// The two words a `String` is made of. Equal words are the same string: the same inline
/// bytes of a short string (up to 15 UTF-8 bytes, stored in the words themselves), or the same
/// storage of a long one. Unequal words say nothing, so a match is only ever a shortcut.
struct StringBits: Equatable, Sendable {
    private let first: UInt64
    private let second: UInt64

    @inline(__always)
    init(_ string: String) {
        (first, second) = unsafeBitCast(string, to: (UInt64, UInt64).self)
    }
}
