/// A record whose `id` property is its table's rowid (an `INTEGER PRIMARY KEY` column), `nil`
/// until the record is inserted.
///
/// ```swift
/// struct Note: Codable, RowIDRecord {
///     var id: Int64?
///     var body: String
/// }
/// var note = Note(id: nil, body: "hi")
/// try db.insert(&note, into: "note")
/// print(note.id!)   // the new row's id
/// ```
///
/// `id` may be any integer type (`Int64?`, `Int?`); `insert(&record, into:)` (on ``Connection``) throws
/// ``RecordError/rowIDOutOfRange(table:rowID:idType:)`` for a rowid the type cannot hold.
public protocol RowIDRecord: Encodable {
    /// The integer type of the id; inferred from the `id` property.
    associatedtype RowID: FixedWidthInteger
    /// The row's id, `nil` before the record is inserted.
    var id: RowID? { get set }
}

extension RowIDRecord {
    /// Sets a nil `id` to the rowid of the row just inserted into `table`.
    /// - Throws: ``RecordError/rowIDOutOfRange(table:rowID:idType:)`` when `RowID` cannot hold it.
    mutating func takeRowID(_ rowID: Int64, table: String) throws {
        guard id == nil else { return }
        guard let converted = RowID(exactly: rowID) else {
            throw RecordError.rowIDOutOfRange(table: table, rowID: rowID, idType: "\(RowID.self)")
        }
        id = converted
    }

    /// Whether the record has no id yet.
    var hasNilID: Bool { id == nil }
}
