/// How far a whole-file operation has come, as reported to ``DatabaseFileOptions/progress``.
public struct DatabaseFileProgress: Sendable, Hashable {
    /// The steps of a conversion.
    public enum Phase: String, Sendable, Hashable {
        case copying, verifying, replacing, done
    }

    /// The current step.
    public let phase: Phase
    /// Bytes of the result on disk so far. While copying this stays small: the result's pages
    /// are held in memory and written when the copy commits (see
    /// ``DatabaseFileOptions/pageCacheBytes``); ``fractionCompleted`` follows the source read.
    public let bytesWritten: Int64
    /// The size of the source, the estimate of the total.
    public let bytesTotal: Int64
    /// An estimate of the whole operation done, from 0 to 1.
    public let fractionCompleted: Double

    /// How a conversion (encrypt, decrypt, a key change, an upgrade) spreads its
    /// ``fractionCompleted`` over its steps, after their measured cost: on a file with indexes,
    /// the copy took about a quarter of the time, the integrity check of the result (on the
    /// exporting connection, where SQLite reports no progress) about half, and the comparison
    /// of every row with the source's the rest. A share close to the cost keeps a time left
    /// computed from the fraction close to the truth in every step.
    enum ConversionShare {
        /// The copy ends here.
        static let copied = 0.35
        /// The integrity check of the result ends here.
        static let checked = 0.65
        /// The comparison with the source ends here; swapping the file in is the rest.
        static let compared = 0.94
    }
}
