/// The column names of a result, shared by all its rows, with a case-insensitive index
/// built once per statement rather than once per row.
@usableFromInline
final class RowLayout: Sendable {
    @usableFromInline let columnNames: [String]
    /// Each column name's ``StringBits``, in column order; `nil` for a name an earlier column
    /// already has, so the shortcut finds the leftmost column of a name, as the lookups below do.
    private let nameBits: [StringBits?]
    /// Exact names and lowercased names, each to its leftmost column.
    private let indexByExactName: [String: Int]
    private let indexByName: [String: Int]

    init(columnNames: [String]) {
        self.columnNames = columnNames
        var exact: [String: Int] = [:]
        var lowercased: [String: Int] = [:]
        // The leftmost column wins when names repeat, as in SQLite's own lookups.
        for (offset, name) in columnNames.enumerated().reversed() {
            exact[name] = offset
            lowercased[name.lowercased()] = offset
        }
        self.indexByExactName = exact
        self.indexByName = lowercased
        self.nameBits = columnNames.enumerated().map { offset, name in exact[name] == offset ? StringBits(name) : nil }
    }

    /// The column of a name: the leftmost column spelled exactly so, else the leftmost whose
    /// name matches case-insensitively.
    @usableFromInline
    func index(of name: String) -> Int? {
        // The usual read names its column with the same short literal on every row: that
        // string's two words equal the column name's, so it is found with integer compares,
        // before any string comparison or hashing.
        if let bits = StringBits(name) {
            for offset in nameBits.indices where nameBits[offset] == bits { return offset }
        }
        if columnNames.count <= 16 {
            for (offset, column) in columnNames.enumerated() where column == name { return offset }
        } else if let offset = indexByExactName[name] {
            return offset
        }
        return indexByName[name.lowercased()]
    }

    /// `index`, when the row has such a column; else the error a read reports (``Row`` and
    /// ``RowView`` alike).
    @inlinable
    func checkedIndex(_ index: Int) throws -> Int {
        guard index >= 0 && index < columnNames.count else {
            throw CipherStoreError.valueConversion(column: "#\(index)", reason: "the row has \(columnNames.count) column(s)")
        }
        return index
    }

    /// The column of `name` (as ``index(of:)``), or the error a read reports when there is none.
    @inlinable
    func checkedIndex(named name: String) throws -> Int {
        guard let index = index(of: name) else {
            throw CipherStoreError.valueConversion(column: name, reason: "no such column; the row has \(columnNames.joined(separator: ", "))")
        }
        return index
    }
}

/// The two words a `String` is made of, on 64-bit platforms. Equal words are the same string:
/// the same inline bytes of a short string (up to 15 UTF-8 bytes, stored in the words
/// themselves), or the same storage of a long one. Unequal words say nothing, so a match is
/// only ever a shortcut.
struct StringBits: Equatable, Sendable {
    private let first: UInt64
    private let second: UInt64

    /// `nil` where a `String` is not two 64-bit words (32-bit platforms such as arm64_32).
    @inline(__always)
    init?(_ string: String) {
        #if _pointerBitWidth(_64)
        (first, second) = unsafeBitCast(string, to: (UInt64, UInt64).self)
        #else
        return nil
        #endif
    }
}
