import CSQLCipher

/// Reports the progress of `sqlcipher_export` and lets it be cancelled, through SQLite's
/// progress handler: the export is one SQL call, so the size of the file it writes is the
/// only measure of how far it has come.
final class ExportProgressMonitor {
    private let temporaryPath: String
    private let totalBytes: Int64
    private let options: ConversionOptions
    private var cancelled = false

    /// Virtual machine steps between two callbacks: often enough to cancel within milliseconds.
    private static let stepsPerCallback: Int32 = 20_000

    init(temporaryPath: String, totalBytes: Int64, options: ConversionOptions) {
        self.temporaryPath = temporaryPath
        self.totalBytes = max(totalBytes, 1)
        self.options = options
    }

    /// Runs `body` with the handler installed on `db`.
    func observe(_ db: Connection, _ body: () throws -> Void) throws {
        guard options.progress != nil || options.cancellation != nil else {
            try body()
            return
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_progress_handler(db.handle.pointer, Self.stepsPerCallback, { context in
            guard let context else { return 0 }
            return Unmanaged<ExportProgressMonitor>.fromOpaque(context).takeUnretainedValue().tick()
        }, context)
        defer { sqlite3_progress_handler(db.handle.pointer, 0, nil, nil) }
        do {
            try withExtendedLifetime(self) { try body() }
        } catch ResultCode.SQLITE_INTERRUPT where cancelled {
            throw ConversionError.cancelled
        }
    }

    /// Returns non-zero to interrupt the export.
    private func tick() -> Int32 {
        if options.cancellation?.isCancelled == true {
            cancelled = true
            return 1
        }
        if let progress = options.progress {
            let written = FileSystem.size(temporaryPath)
            // Copying is most of the work: 80% of the whole.
            let fraction = min(Double(written) / Double(totalBytes), 1) * 0.8
            progress(ConversionProgress(phase: .copying, bytesWritten: written, bytesTotal: totalBytes, fractionCompleted: fraction))
        }
        return 0
    }
}
