/// What ``DatabaseFile/verify(path:key:cipher:)-barc`` found: the database opens with the
/// key and passes `PRAGMA integrity_check`, with these tables and row counts (except the
/// indexes of ``placeholderCollations``, which the check could not check).
public struct VerificationReport: Sendable, Hashable {
    /// One table and its row count.
    public struct Table: Sendable, Hashable {
        /// The table name.
        public let name: String
        /// Its number of rows.
        public let rowCount: Int
    }

    /// The path verified.
    public internal(set) var path: String
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
    /// The page size in bytes (`cipher_page_size` for an encrypted file).
    public let pageSize: Int
    /// PBKDF2 iterations a passphrase goes through (`kdf_iter`); `nil` for a plaintext file.
    public let kdfIterations: Int?
    /// For a file with a plaintext header (``CipherSettings/plaintextHeaderSize``), its KDF
    /// salt, which the file does not hold where SQLCipher reads it: keep it with the key and
    /// give it as ``CipherSettings/salt`` to open the file. `nil` for other files.
    public let plaintextHeaderSalt: [UInt8]?
    /// Collations the schema names that the check did not have, replaced by stand-ins in
    /// binary order, and the indexes that the integrity check therefore could not check.
    public let placeholderCollations: PlaceholderCollations
    /// SQL functions the schema calls (an index on an expression, a `CHECK` constraint) that
    /// the check did not have — an app registers them: it ran `PRAGMA quick_check` without
    /// CHECK constraints, which checks every page and row but not whether the indexes hold
    /// what their tables do. Empty when the whole integrity check ran.
    public internal(set) var functionsNotChecked: [String] = []
    /// Files beside the database named like its rollback journal or write-ahead log whose first
    /// bytes are not SQLite's (``DatabaseFile/verify(path:key:cipher:)-barc`` only): left as
    /// they are and not read. SQLite reads a database as in WAL mode while any `-wal` is beside
    /// it, so ``journalMode`` says `wal` then, whatever mode the file itself is in.
    public internal(set) var unrecognizedSideFiles: [String] = []

    /// The cipher settings the file opened with, as SQLCipher reports them (with SQLCipher 3:
    /// page size, KDF iterations and HMAC use; the rest is SQLCipher 3's fixed choice); `nil`
    /// for a plaintext file.
    public internal(set) var cipherSettings: CipherSettings?

    /// The same report for the file under another name (a conversion's result, once renamed).
    func at(path: String) -> VerificationReport {
        var report = self
        report.path = path
        return report
    }
}
