/// The column names of a result, shared by all its rows, with a case-insensitive index
/// built once per statement rather than once per row.
@usableFromInline
final class RowLayout: Sendable {
    @usableFromInline let columnNames: [String]
    /// Each column name's ``StringBits`` to its leftmost column, as the lookups below find it.
    @usableFromInline let columnByBits: StringBitsIndex
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
        // Only a name's leftmost column: a later column of the same name is another string
        // with other bits, which must not find itself.
        self.columnByBits = StringBitsIndex(columnNames.enumerated().compactMap { offset, name in
            exact[name] == offset ? StringBits(name).map { (bits: $0, position: offset) } : nil
        })
    }

    /// The column of a name: the leftmost column spelled exactly so, else the leftmost whose
    /// name matches case-insensitively.
    @inlinable
    func index(of name: String) -> Int? {
        // The usual read names its column with the same short literal on every row: that
        // string's two words equal the column name's, so it is found by them in a small hash
        // table (inlined in the caller), before any string comparison or hashing of characters.
        if let bits = StringBits(name), let offset = columnByBits.position(of: bits) { return offset }
        return index(spelled: name)
    }

    /// The lookup by the name's characters, when its two words found no column.
    @usableFromInline
    func index(spelled name: String) -> Int? {
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
