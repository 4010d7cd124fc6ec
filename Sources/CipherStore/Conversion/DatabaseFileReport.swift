/// What a finished whole-file operation (a conversion, a backup, a restore) did, read from
/// the disk once the result has its name.
public struct DatabaseFileReport: Sendable {
    /// The path of the verified result.
    public let outputPath: String
    /// Where the original was kept, when a backup was asked for.
    public let backupPath: String?
    /// Temporary files of earlier, crashed runs that were removed before starting.
    public let removedLeftovers: [String]
    /// The verification of the result against the source.
    public let verification: VerificationReport
    /// The size of the result in bytes.
    public let outputBytes: Int64
    /// Wall-clock seconds, verification included.
    public let seconds: Double
    /// The slot file written beside the result, when one was (the backup of a slot database
    /// made with its own data key: see ``DatabaseBackup``).
    public var slotFilePath: String? = nil
    /// The encrypted schema copy written beside an encrypted result (`RESULT.schema`, which
    /// ``DatabaseRepair`` reads when the schema pages are lost), or `nil` when none could be
    /// written; a plaintext result has none.
    public var schemaCopyPath: String? = nil
    /// A journal, write-ahead log or log index that lay beside the output's name and was
    /// removed before the result took the name: SQLite would have applied it to the result.
    public var removedSideFiles: [String] = []
    /// The new names of a log or journal that lay beside the output's name, kept aside rather
    /// than removed (it may be the only copy of another database's last commits): delete it
    /// once nothing needs it.
    public var sideFilesMovedAside: [String] = []
    /// The new names of files that lay beside the database named like its journal or log but
    /// were not SQLite's (their first bytes say so): SQLite would have deleted them at the
    /// first open. Kept, not read; delete them once nothing needs them.
    public var unrecognizedSideFilesMovedAside: [String] = []
    /// Tables whose columns are named `rowid`, `_rowid_` and `oid` alike: SQL cannot reach
    /// their rowids, so the copy gave their rows new ones (in the same order) and verification
    /// compared their rows in that order. Empty for almost every database.
    public var rowidsNotKept: [String] = []
}
