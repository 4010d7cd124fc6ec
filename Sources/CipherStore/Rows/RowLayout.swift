/// The column names of a result, shared by all its rows, with a case-insensitive index
/// built once per statement rather than once per row.
@usableFromInline
final class RowLayout: Sendable {
    @usableFromInline let columnNames: [String]
    private let indexByName: [String: Int]

    init(columnNames: [String]) {
        self.columnNames = columnNames
        var index: [String: Int] = [:]
        // The leftmost column wins when names repeat, as in SQLite's own lookups.
        for (offset, name) in columnNames.enumerated().reversed() {
            index[name.lowercased()] = offset
        }
        self.indexByName = index
    }

    @usableFromInline
    func index(of name: String) -> Int? {
        // For the usual handful of columns, comparing short names beats hashing them.
        if columnNames.count <= 16 {
            for (offset, column) in columnNames.enumerated() where column == name { return offset }
        }
        return indexByName[name] ?? indexByName[name.lowercased()]
    }
}
