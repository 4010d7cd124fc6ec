import Foundation

/// The steps every command that writes a whole database file takes (a conversion, a backup, a
/// restore, a repair), in this order and in this one place:
///
/// 1. ``init(output:named:source:publication:options:started:nowOnDisk:previousState:nextStep:)``:
///    a new name is checked (``OutputDestination/checkNewFile(_:source:overwrite:)``), the
///    temporary files of crashed runs are removed, and cancellation is checked.
/// 2. ``run(fill:verify:)``: a temporary file is created beside the output (mode 0600); the
///    command fills it, then verifies it while another thread syncs it; a file that replaces
///    a database gets that database's owner, group and mode; the last cancellation check; the
///    file takes its name (``Publication``); the schema copy is written beside it; the result
///    is reported from what the disk holds.
///
/// Until the name is taken, any failure removes the temporary file and leaves the output's
/// name as it was. Once the name leads to the new file the command has happened, whichever
/// step failed after it: that failure (the directory sync) is a ``NotDurableError`` that says
/// what is on disk now.
struct WholeFileWrite {
    /// Where the file is written: for a database replaced through a symbolic link, the file
    /// the link names.
    let outputPath: String
    /// The name the caller gave, which reports and errors use.
    let name: String
    let publication: Publication
    let options: DatabaseFileOptions
    let started: Date
    /// Temporary files of earlier, crashed runs removed by `init`.
    let removedLeftovers: [String]
    private let nowOnDisk: () -> String
    private let previousState: String?
    private let nextStep: String

    /// Checks the output and clears what crashed runs left beside it.
    ///
    /// - Parameters:
    ///   - output: where the result goes.
    ///   - name: how the caller named it, when not `output` (a symbolic link to it).
    ///   - source: the file the command reads, which a new name may not be.
    ///   - nowOnDisk: what the name holds once the new file has it, for a ``NotDurableError``.
    ///   - previousState: what a power cut could bring back; by default what the publication
    ///     replaces.
    ///   - nextStep: what to do after a ``NotDurableError``.
    /// - Throws: the errors of ``OutputDestination/checkNewFile(_:source:overwrite:)`` for a new
    ///   name, ``DatabaseFileError/cancelled``.
    init(output: String, named name: String? = nil, source: String?, publication: Publication, options: DatabaseFileOptions,
         started: Date, nowOnDisk: @escaping () -> String, previousState: String? = nil, nextStep: String) throws {
        if let overwrite = publication.newNameOverwrite {
            try OutputDestination.checkNewFile(output, source: source, overwrite: overwrite)
        }
        self.outputPath = output
        self.name = name ?? output
        self.publication = publication
        self.options = options
        self.started = started
        self.nowOnDisk = nowOnDisk
        self.previousState = previousState
        self.nextStep = nextStep
        removedLeftovers = TemporaryFiles.removeLeftovers(for: output)
        try Context.checkCancelled(options)
    }

    /// Writes, verifies, syncs and publishes the new file.
    ///
    /// - Parameters:
    ///   - fill: writes the new database into ``Context/temporaryPath`` (the file exists,
    ///     empty) and closes what it wrote with, or hands it on to `verify`.
    ///   - verify: checks what `fill` wrote; returns its result, and the schema copy to write
    ///     beside the published file (`nil` for none: an old one there is removed).
    /// - Returns: what `verify` returned, with what the publication did.
    func run<Filled, Verified>(fill: (Context) throws -> Filled,
                               verify: (Filled, Context) throws -> (Verified, SchemaCopy.Pending?)) throws -> Written<Verified> {
        let context = Context(temporaryPath: TemporaryFiles.path(for: outputPath), options: options)
        try context.checkCancelled()
        var isPublished = false
        defer { if !isPublished { FileSystem.removeDatabaseFiles(context.temporaryPath) } }
        try FileSystem.createOwnerOnlyFile(context.temporaryPath)
        let filled = try fill(context)
        try context.checkCancelled()
        let (verified, schemaCopy) = try verifyAndSync(filled, context, verify)
        try context.checkCancelled()
        context.report(.replacing, fraction: 0.95, written: FileSystem.size(context.temporaryPath))
        // The last moment to stop: after the publication the result is in place.
        try context.checkCancelled()
        let result = FileSystem.identity(context.temporaryPath)
        let published: Published
        do {
            published = try publish(context.temporaryPath)
        } catch {
            // Read from the disk: once the name leads to the new file, the command happened.
            guard DurableReplacement.holds(outputPath, identity: result) else { throw error }
            isPublished = true
            throw NotDurableError(path: name, failure: (error as? DurableReplacement.Unsynced)?.failure ?? "\(error)",
                                  nowOnDisk: nowOnDisk(), previousState: previousState ?? publication.previousState(of: name),
                                  nextStep: nextStep)
        }
        isPublished = true
        let schemaCopyPath = SchemaCopy.publish(schemaCopy, forDatabase: outputPath)
        let bytes = FileSystem.size(outputPath)
        context.report(.done, fraction: 1, written: bytes)
        return Written(value: verified, removedLeftovers: removedLeftovers, published: published, schemaCopyPath: schemaCopyPath,
                       outputBytes: bytes, seconds: Date().timeIntervalSince(started))
    }

    /// Runs `verify` while another thread syncs the file (the two overlap on a second core),
    /// then gives a file that replaces a database that database's owner, group and mode, and
    /// syncs that change too.
    private func verifyAndSync<Filled, Verified>(_ filled: Filled, _ context: Context,
                                                 _ verify: (Filled, Context) throws -> (Verified, SchemaCopy.Pending?))
        throws -> (Verified, SchemaCopy.Pending?) {
        let temporaryPath = context.temporaryPath
        let syncing = BackgroundWork { try FileSystem.sync(temporaryPath) }
        defer { syncing.wait() }
        let verified = try verify(filled, context)
        try syncing.value()
        if case .replacing = publication {
            // The result replaces the original for whoever used it. After the verification,
            // which a read-only mode would keep from opening the file for writing.
            try FileSystem.copyOwnerAndMode(from: outputPath, to: temporaryPath)
            try FileSystem.sync(temporaryPath)
        }
        return verified
    }
}

extension WholeFileWrite {
    /// What the fill and verify steps get: the temporary file, and the one place that reports
    /// progress and checks for cancellation.
    final class Context {
        /// The new file, beside the output; empty when the fill step starts.
        let temporaryPath: String
        let options: DatabaseFileOptions
        /// The total last reported, which the steps after the command's own report again.
        private var bytesTotal: Int64 = 0

        init(temporaryPath: String, options: DatabaseFileOptions) {
            self.temporaryPath = temporaryPath
            self.options = options
        }

        /// Whether the caller asked the command to stop.
        var isCancelled: Bool { options.cancellation?.isCancelled == true }

        /// - Throws: ``DatabaseFileError/cancelled`` when the caller asked the command to stop.
        func checkCancelled() throws {
            try Self.checkCancelled(options)
        }

        static func checkCancelled(_ options: DatabaseFileOptions) throws {
            if options.cancellation?.isCancelled == true { throw DatabaseFileError.cancelled }
        }

        /// Reports progress to ``DatabaseFileOptions/progress``.
        /// - Parameters:
        ///   - fraction: of the whole command, from 0 to 1.
        ///   - written: bytes written (or copied) so far.
        ///   - total: the estimate of the total; by default the last one reported.
        func report(_ phase: DatabaseFileProgress.Phase, fraction: Double, written: Int64, total: Int64? = nil) {
            if let total { bytesTotal = total }
            options.progress?(DatabaseFileProgress(phase: phase, bytesWritten: written, bytesTotal: bytesTotal, fractionCompleted: fraction))
        }
    }

    /// What a finished ``WholeFileWrite/run(fill:verify:)`` did, read from the disk.
    struct Written<Value> {
        /// What the verify step returned.
        let value: Value
        let removedLeftovers: [String]
        let published: Published
        /// The schema copy written beside the result, if one was.
        let schemaCopyPath: String?
        let outputBytes: Int64
        let seconds: Double

        /// The report of a command whose result was verified against its source.
        /// - Parameter path: the name the report gives the result.
        func report(path: String, verification: VerificationReport, rowidsNotKept: [String] = []) -> DatabaseFileReport {
            DatabaseFileReport(outputPath: path, backupPath: published.backupPath, removedLeftovers: removedLeftovers,
                               verification: verification.at(path: path), outputBytes: outputBytes, seconds: seconds,
                               slotFilePath: published.slotFile, schemaCopyPath: schemaCopyPath,
                               removedSideFiles: published.sideFiles.removed, sideFilesMovedAside: published.sideFiles.movedAside.map(\.to),
                               rowidsNotKept: rowidsNotKept)
        }
    }
}
