/// A record that builds itself from a row with its own `init(row:)`, in place of the
/// `Decodable` initializer: GRDB's hand-written record initializer, and the fastest way to
/// fetch records.
///
/// ```swift
/// struct Player: Codable, FetchableRecord, RowDecodableRecord {
///     var id: Int64
///     var name: String
///     var score: Int
///
///     init(row: borrowing RowView) throws {
///         id = try row.decode(atIndex: 0)
///         name = try row.decode(forColumn: "name")
///         score = try row.decode(forColumn: "score")
///     }
/// }
/// let players = try Player.fetchAll(db, sql: "SELECT id, name, score FROM player")
/// ```
///
/// Every fetch of the type builds it with `init(row:)`: SQL, requests, cursors, a record nested
/// in another through an association (`var author: Author` in a `Decodable` struct), and
/// ``Connection/decode(_:from:)``. The row is read in place, nothing copied; it holds the
/// record's own columns, and an association's record is read from its scope
/// (`row.decode(forKey: "author")`, ``RowView/decodeIfPresent(_:forKey:)``, and
/// `row.decode([Book].self, forKey: "books")` for `including(all:)`).
///
/// Choose it for the records of hot loops, or to bring over a GRDB record that writes its own
/// `init(row:)`: a `Decodable` record costs about twice the raw C reads per row through
/// `Decoder`, one with `init(row:)` close to them (BENCHMARKS.md). Coming from GRDB, the row is a
/// ``RowView`` (it lives only during the call, as GRDB's row does in a fetch loop), and reads
/// throw instead of stopping the app: `row["name"]` becomes `try row.decode(forColumn: "name")`.
/// The type stays `Decodable` (synthesized for most structs), which the other record APIs use.
public protocol RowDecodableRecord: FetchableRecord {
    /// Builds the record from the current row.
    /// - Throws: ``CipherStoreError/valueConversion(column:reason:)`` for a missing column or a
    ///   value that does not convert, or what the initializer throws.
    init(row: borrowing RowView) throws
}

/// Builds records of one type with their `init(row:)`: made once per decoder for a
/// ``RowDecodableRecord`` type, so a row costs one call and no conformance lookup.
final class RowRecordBuilder<Record> {
    let build: (borrowing RowView) throws -> Record

    private init(_ build: @escaping (borrowing RowView) throws -> Record) {
        self.build = build
    }

    /// The builder of `type`, or `nil` when it is not a ``RowDecodableRecord``.
    static func make(_ type: Record.Type) -> RowRecordBuilder<Record>? {
        guard let rowType = type as? any RowDecodableRecord.Type else { return nil }
        func builder<R: RowDecodableRecord>(_: R.Type) -> AnyObject {
            RowRecordBuilder<R> { (row: borrowing RowView) in try R(row: row) }
        }
        return builder(rowType) as? RowRecordBuilder<Record>
    }
}
