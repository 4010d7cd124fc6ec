import CipherStore

/// A row of `item`, decoded by `Decodable`.
struct Item: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "item"
    var i0, i1, i2, i3, i4, i5, i6, i7, i8, i9: Int64
}

extension Item {
    /// A hand-written initialiser on the statement's current row: the hot path.
    init(statement: Statement) {
        i0 = statement.int64(at: 0); i1 = statement.int64(at: 1); i2 = statement.int64(at: 2)
        i3 = statement.int64(at: 3); i4 = statement.int64(at: 4); i5 = statement.int64(at: 5)
        i6 = statement.int64(at: 6); i7 = statement.int64(at: 7); i8 = statement.int64(at: 8)
        i9 = statement.int64(at: 9)
    }

    var sum: Int64 { i0 &+ i1 &+ i2 &+ i3 &+ i4 &+ i5 &+ i6 &+ i7 &+ i8 &+ i9 }
}
