/// A `Decodable` record that fetches itself: `Note.fetchAll(db, sql: …)` as well as
/// `db.fetchAll(Note.self, sql: …)`.
///
/// ```swift
/// struct Note: Codable, FetchableRecord { var id: Int64; var body: String }
/// let notes = try Note.fetchAll(db, sql: "SELECT * FROM note ORDER BY id")
/// let note = try Note.fetchOne(db, sql: "SELECT * FROM note WHERE id = ?", arguments: [1])
/// ```
///
/// Conforming needs nothing more than `Decodable`: every method has its implementation,
/// the same as the connection's (`Connection/fetchAll(_:sql:arguments:)`,
/// `Connection/fetchOne(_:sql:arguments:)`, ``Connection/fetchCursor(_:sql:arguments:)->RecordCursor<Record>``),
/// with the same errors.
public protocol FetchableRecord: Decodable {
    /// How the date in `column` is read; ``DatabaseDateDecodingStrategy/deferredToDate`` by
    /// default. See ``EncodableRecord`` for the storing side.
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy
}

extension FetchableRecord {
    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .deferredToDate }

    /// All rows of a query decoded as this record. See `Connection/fetchAll(_:sql:arguments:)`.
    /// - Throws: ``DatabaseError``, or ``RecordDecodingError`` when a row does not fit.
    @inlinable
    public static func fetchAll(_ db: Connection, sql: String, arguments: StatementArguments = .none) throws -> [Self] {
        try db.fetchAll(Self.self, sql: sql, arguments: arguments)
    }

    /// The first row of a query decoded as this record, or `nil`. See
    /// `Connection/fetchOne(_:sql:arguments:)`.
    /// - Throws: ``DatabaseError``, or ``RecordDecodingError`` when the row does not fit.
    public static func fetchOne(_ db: Connection, sql: String, arguments: StatementArguments = .none) throws -> Self? {
        try db.fetchOne(Self.self, sql: sql, arguments: arguments)
    }

    /// A cursor that decodes rows as this record one at a time. See
    /// ``Connection/fetchCursor(_:sql:arguments:)->RecordCursor<Record>``.
    /// - Throws: ``DatabaseError``; the cursor's ``RecordCursor/next()`` also throws ``RecordDecodingError``.
    public static func fetchCursor(_ db: Connection, sql: String, arguments: StatementArguments = .none) throws -> RecordCursor<Self> {
        try db.fetchCursor(Self.self, sql: sql, arguments: arguments)
    }
}
