extension WholeFileWrite {
    /// How the verified, synced file takes its name.
    enum Publication {
        /// A name no database has yet, or with `overwrite` whatever file is there (see
        /// ``OutputDestination/publish(_:as:overwrite:)``).
        case newName(overwrite: Bool)
        /// A new name, with the slot file that opens the new database written just before it
        /// takes the name (see ``OutputDestination/publish(_:as:overwrite:slotFile:writingSlotFile:)``).
        /// `writeSlotFile` gets the temporary file and returns the slot file it wrote, or `nil`.
        case newNameWithSlotFile(overwrite: Bool, writeSlotFile: (_ temporaryPath: String) throws -> String?)
        /// In place of the database at the output, which the command keeps locked against
        /// writers until the rename. The journal and log beside it are removed, or with
        /// `keepingLogs` the logs are moved aside; with `backup`, the old database keeps that
        /// name (a hard link).
        case replacing(keepingLogs: Bool, backup: String?)

        /// For a new name, whether a file there may be replaced; `nil` in place.
        var newNameOverwrite: Bool? {
            switch self {
            case .newName(let overwrite), .newNameWithSlotFile(let overwrite, _): return overwrite
            case .replacing: return nil
            }
        }

        /// What a power cut right after the publication could bring back at `name`.
        func previousState(of name: String) -> String {
            switch newNameOverwrite {
            case true?: return "the file '\(name)' held before"
            case false?: return "a missing '\(name)'"
            case nil: return "the database it replaced"
            }
        }
    }

    /// What the publication did beside the new file's name.
    struct Published {
        /// The journal, log and index cleared beside the name.
        var sideFiles = DatabaseSideFiles.Cleared()
        /// The slot file written beside the new database.
        var slotFile: String?
        /// The name the replaced database keeps.
        var backupPath: String?
    }

    /// Gives the temporary file the output's name.
    ///
    /// - Throws: when the name was not taken, the step's error (nothing changed: a backup link
    ///   made for it is removed again); when it was, ``DurableReplacement/Unsynced`` (the
    ///   directory sync failed), which ``run(fill:verify:)`` turns into a ``NotDurableError``.
    func publish(_ temporaryPath: String) throws -> Published {
        switch publication {
        case .newName(let overwrite):
            return Published(sideFiles: try OutputDestination.publish(temporaryPath, as: outputPath, overwrite: overwrite))
        case .newNameWithSlotFile(let overwrite, let writeSlotFile):
            let (slotFile, sideFiles) = try OutputDestination.publish(
                temporaryPath, as: outputPath, overwrite: overwrite, slotFile: KeySlots.slotFilePath(forDatabase: outputPath),
                writingSlotFile: { try writeSlotFile(temporaryPath) })
            return Published(sideFiles: sideFiles, slotFile: slotFile)
        case .replacing(let keepingLogs, let backup):
            // What lies beside the database would be applied to the new file: a journal kept
            // by PERSIST or TRUNCATE mode (old pages — plaintext, for an encryption), a log
            // the lock did not checkpoint, or those of a damaged database that was never read.
            // Nobody else can write to them while the command holds its lock.
            let sideFiles = try DatabaseSideFiles.clear(beside: outputPath, keepingLogs: keepingLogs)
            // Opened before the rename, while its name still leads to it; overwritten after
            // it only when no name is left for it (see ReplacedFile).
            let replacedFile = try ReplacedFile(path: outputPath)
            defer { replacedFile.retire() }
            try replace(with: temporaryPath, keepingBackup: backup)
            return Published(sideFiles: sideFiles, backupPath: backup)
        }
    }

    /// Renames the temporary file over the output, after linking the old file to `backup`.
    private func replace(with temporaryPath: String, keepingBackup backup: String?) throws {
        let original = FileSystem.identity(outputPath)
        if let backup {
            guard try FileSystem.link(outputPath, to: backup) else { throw DatabaseFileError.backupExists(path: backup) }
        }
        do {
            // The backup's name must survive a power cut as surely as the result's.
            if let backup, FileSystem.directory(of: backup) != FileSystem.directory(of: outputPath) {
                try FileSystem.syncDirectory(of: backup)
            }
            try DurableReplacement.rename(temporaryPath, over: outputPath)
        } catch {
            if let backup, DurableReplacement.holds(outputPath, identity: original) { FileSystem.removeIfPresent(backup) }
            throw error
        }
    }
}
