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
}
