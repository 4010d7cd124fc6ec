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

/// The same row built by its own `init(row:)`, read by index: the record API's fast path.
struct ItemRow: Codable, FetchableRecord, RowDecodableRecord {
    var i0, i1, i2, i3, i4, i5, i6, i7, i8, i9: Int64

    init(row: borrowing RowView) throws {
        i0 = try row.decode(atIndex: 0); i1 = try row.decode(atIndex: 1); i2 = try row.decode(atIndex: 2)
        i3 = try row.decode(atIndex: 3); i4 = try row.decode(atIndex: 4); i5 = try row.decode(atIndex: 5)
        i6 = try row.decode(atIndex: 6); i7 = try row.decode(atIndex: 7); i8 = try row.decode(atIndex: 8)
        i9 = try row.decode(atIndex: 9)
    }

    var sum: Int64 { i0 &+ i1 &+ i2 &+ i3 &+ i4 &+ i5 &+ i6 &+ i7 &+ i8 &+ i9 }
}

/// The same row built by its own `init(row:)`, read by column name, as GRDB records write it.
struct ItemRowByName: Codable, FetchableRecord, RowDecodableRecord {
    var i0, i1, i2, i3, i4, i5, i6, i7, i8, i9: Int64

    init(row: borrowing RowView) throws {
        i0 = try row.decode(forColumn: "i0"); i1 = try row.decode(forColumn: "i1"); i2 = try row.decode(forColumn: "i2")
        i3 = try row.decode(forColumn: "i3"); i4 = try row.decode(forColumn: "i4"); i5 = try row.decode(forColumn: "i5")
        i6 = try row.decode(forColumn: "i6"); i7 = try row.decode(forColumn: "i7"); i8 = try row.decode(forColumn: "i8")
        i9 = try row.decode(forColumn: "i9")
    }

    var sum: Int64 { i0 &+ i1 &+ i2 &+ i3 &+ i4 &+ i5 &+ i6 &+ i7 &+ i8 &+ i9 }
}
