import CSQLCipher

/// Reports the progress of the export (``DatabaseExport``) and lets it be cancelled, through SQLite's
/// progress handler. The export is one SQL call that writes most pages when it commits, so
/// how far it has come is how much of the source it has read (counted by the conversion VFS).
final class ExportProgressMonitor {
    private let temporaryPath: String
    private let sourceBytes: Int64
    private let totalBytes: Int64
    private let options: DatabaseFileOptions
    private var cancelled = false
    private var handle: OpaquePointer?

    /// Virtual machine steps between two callbacks: often enough to cancel within milliseconds.
    private static let stepsPerCallback: Int32 = 20_000

    /// - Parameters:
    ///   - sourceBytes: the size of the source's main file, which the export reads about once.
    ///   - totalBytes: the size reported as the total (with the write-ahead log).
    init(temporaryPath: String, sourceBytes: Int64, totalBytes: Int64, options: DatabaseFileOptions) {
        self.temporaryPath = temporaryPath
        self.sourceBytes = max(sourceBytes, 1)
        self.totalBytes = max(totalBytes, 1)
        self.options = options
    }

    /// Runs `body` with the handler installed on `db`.
    func observe(_ db: Connection, _ body: () throws -> Void) throws {
        guard options.progress != nil || options.cancellation != nil else {
            try body()
            return
        }
        let pointer = try db.handle.pointer
        handle = pointer
        defer { handle = nil }
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_progress_handler(pointer, Self.stepsPerCallback, { context in
            guard let context else { return 0 }
            return Unmanaged<ExportProgressMonitor>.fromOpaque(context).takeUnretainedValue().tick()
        }, context)
        defer { sqlite3_progress_handler(pointer, 0, nil, nil) }
        do {
            try withExtendedLifetime(self) { try body() }
        } catch where cancelled {
            // The copy reports the interrupt as a generic error ("interrupted"), not
            // as SQLITE_INTERRUPT: once cancelled, whatever the export failed with is that.
            throw DatabaseFileError.cancelled
        }
    }

    /// Returns non-zero to interrupt the export.
    private func tick() -> Int32 {
        if options.cancellation?.isCancelled == true {
            cancelled = true
            return 1
        }
        if let progress = options.progress, let handle {
            let read = ConversionIO.bytesRead(handle) ?? 0
            let fraction = min(Double(read) / Double(sourceBytes), 1) * DatabaseFileProgress.ConversionShare.copied
            progress(DatabaseFileProgress(phase: .copying, bytesWritten: FileSystem.size(temporaryPath),
                                        bytesTotal: totalBytes, fractionCompleted: fraction))
        }
        return 0
    }
}
