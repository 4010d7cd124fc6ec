import Foundation

/// What ``DatabaseRepair/salvage(path:key:cipher:to:newKey:overwrite:options:)-4zglv`` recovered.
public struct RepairReport: Sendable {
    /// One table of the new database and the rows put into it.
    public struct Table: Sendable, Hashable {
        /// Its name: the original's, or `recovered_N` for rows whose table is not known.
        public let name: String
        /// Rows recovered.
        public let recoveredRows: Int
        /// Rows the table had when the database's schema copy was last taken (see
        /// ``schemaCopyTaken``), when it holds a count; `nil` otherwise.
        public let expectedRows: Int?
    }

    /// The new, verified database.
    public let outputPath: String
    /// The pages the damaged database has: those of the file (after its log's last commit, or
    /// with an unfinished transaction rolled back), and those page 1's header says it has
    /// beyond them (``pagesMissingAtEnd``).
    public let pageCount: Int
    /// Pages that were read intact (their HMAC matched). Free pages are not read.
    public let pagesRead: Int
    /// Pages of the file that could not be read: their HMAC did not match.
    public let pagesLost: [Int]
    /// Whether the schema was read from the file; when not, rows were sorted into
    /// `recovered_N` tables by their number of columns.
    public let schemaRecovered: Bool
    /// When the database's schema copy (`DB.schema`) was taken, when one opened with the key;
    /// `nil` without one.
    public let schemaCopyTaken: Date?
    /// Whether tables, indexes, views or triggers the damaged file's schema no longer tells
    /// were rebuilt from the schema copy.
    public let schemaFromCopy: Bool
    /// The tables of the new database, in the order they were written.
    public let tables: [Table]
    /// What could not be put back (an index that no longer fits the rows, a row its table
    /// refused), in words.
    public let problems: [String]
    /// The slot file copied beside the new database (a slot database repaired with its data key).
    public let slotFilePath: String?
    /// The schema copy written beside the new database, when one could be.
    public let schemaCopyPath: String?
    /// The share of the database's pages that were not lost, from 0 to 1. Free pages, which
    /// hold no rows and are not read, count as not lost. A repair that is not complete scores
    /// below 1 even when no page was lost (rows of a `WITHOUT ROWID` table, a log not read):
    /// at most 0.999.
    public var score: Double {
        let pages = pageCount == 0 ? 0 : Double(pageCount - pagesLost.count - pagesMissingAtEnd) / Double(pageCount)
        return isComplete ? pages : min(pages, 0.999)
    }
    /// Whether everything was recovered: no page lost or missing, the schema read, nothing refused.
    public var isComplete: Bool { pagesLost.isEmpty && pagesMissingAtEnd == 0 && schemaRecovered && problems.isEmpty }
    /// Rows recovered in all.
    public var recoveredRows: Int { tables.reduce(0) { $0 + $1.recoveredRows } }
    /// Wall-clock seconds.
    public let seconds: Double
    /// A journal, write-ahead log or log index that lay beside the output's name and was
    /// removed before the new database took the name: SQLite would have applied it to it.
    public var removedSideFiles: [String] = []
    /// The new names of a log or journal that lay beside the output's name, kept aside (it may
    /// be the only copy of another database's last commits): delete it once nothing needs it.
    public var sideFilesMovedAside: [String] = []
    /// Pages page 1's header says the database has beyond the end of the file: the file was
    /// cut short, or its header is damaged. Counted as lost.
    public var pagesMissingAtEnd = 0
    /// Whether the database's size came from the last commit in its write-ahead log (which
    /// says how many pages the database had after it), not from the file's length.
    public var sizeFromLog = false
    /// What the repair did that loses nothing, in words (an unfinished transaction rolled back).
    public var notes: [String] = []
    /// Collations the schema names that the repair did not have (an app's own), replaced by
    /// stand-ins in binary order. Every row is kept, but its ``PlaceholderCollations/indexes``
    /// were built in byte order: before relying on them, run `REINDEX name` for each collation
    /// in the app that has it.
    public var placeholderCollations: PlaceholderCollations = .none
}
