/// What ``DatabaseMaintenance/verify(path:key:cipher:)`` found: the database opens with the
/// key and passes `PRAGMA integrity_check`, with these tables and row counts.
public struct VerificationReport: Sendable, Hashable {
    /// One table and its row count.
    public struct Table: Sendable, Hashable {
        /// The table name.
        public let name: String
        /// Its number of rows.
        public let rowCount: Int
    }

    /// The path verified.
    public let path: String
    /// Whether the file is encrypted.
    public let isEncrypted: Bool
    /// The tables, sorted by name, with their row counts.
    public let tables: [Table]
    /// `PRAGMA user_version`.
    public let userVersion: Int
    /// `PRAGMA application_id`.
    public let applicationID: Int
    /// `PRAGMA journal_mode`.
    public let journalMode: String
    /// The number of schema objects (tables, indexes, views, triggers).
    public let schemaObjectCount: Int
}
