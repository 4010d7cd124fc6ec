/// Records decoded one row at a time, so a large result never sits in memory whole.
///
/// ```swift
/// let cursor = try db.fetchCursor(Note.self, sql: "SELECT id, body FROM note")
/// while let note = try cursor.next() { print(note.body) }
/// ```
public final class RecordCursor<Record: Decodable> {
    private let rows: RowCursor

    init(rows: RowCursor) { self.rows = rows }

    /// The next record, or `nil` when there are no more.
    public func next() throws -> Record? {
        guard let row = try rows.next() else { return nil }
        return try Record(from: RowDecoder(row: row))
    }
}

@available(*, unavailable)
extension RecordCursor: Sendable {}
