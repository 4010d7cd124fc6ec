/// The column names of a result, shared by all its rows, with a case-insensitive index
/// built once per statement rather than once per row.
final class RowLayout: Sendable {
    let columnNames: [String]
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

    func index(of name: String) -> Int? {
        indexByName[name] ?? indexByName[name.lowercased()]
    }
}
