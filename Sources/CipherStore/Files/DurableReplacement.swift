/// The one way CipherStore puts a finished file under its name: the new file, already written
/// and synced, is renamed (or linked) to the name, and the directory is synced so the new name
/// survives a power cut.
///
/// What a failure means is read from the disk, not from the step that failed: when the name
/// still leads to what it led to before, nothing changed; when it leads to the new file, the
/// replacement happened and only its durability is in doubt (``Unsynced``). Callers turn the
/// latter into a ``NotDurableError`` that says what is now in place.
enum DurableReplacement {
    /// The name holds the new file, but syncing its directory failed: after a power cut the
    /// previous content of the name could come back.
    struct Unsynced: Error {
        let path: String
        /// The failed call and the system's reason.
        let failure: String
    }

    /// Renames `newFile` over `name` (replacing what is there), then syncs the directory.
    ///
    /// - Throws: ``DatabaseFileError/io(operation:path:reason:)`` when the name was not replaced
    ///   (nothing changed), ``Unsynced`` when it was but the directory sync failed.
    static func rename(_ newFile: String, over name: String) throws {
        let identity = FileSystem.identity(newFile)
        do {
            try FileSystem.rename(newFile, to: name)
        } catch where identity == nil || FileSystem.identity(name) != identity {
            throw error
        }
        try syncDirectory(holding: name)
    }

    /// Gives `newFile` the name `name` only if nothing has it yet (`link(2)`, which never
    /// replaces), removes the temporary name, then syncs the directory.
    ///
    /// - Returns: `false` when the name exists (nothing changed).
    /// - Throws: as ``rename(_:over:)``.
    static func link(_ newFile: String, as name: String) throws -> Bool {
        let identity = FileSystem.identity(newFile)
        do {
            guard try FileSystem.link(newFile, to: name) else { return false }
        } catch where identity == nil || FileSystem.identity(name) != identity {
            throw error
        }
        FileSystem.removeIfPresent(newFile)
        try syncDirectory(holding: name)
        return true
    }

    /// Whether `name` now leads to the file that had `identity` (see ``FileSystem/identity(_:)``).
    static func holds(_ name: String, identity: [UInt64]?) -> Bool {
        identity != nil && FileSystem.identity(name) == identity
    }

    private static func syncDirectory(holding name: String) throws {
        do {
            try FileSystem.syncDirectory(of: name)
        } catch DatabaseFileError.io(let operation, let path, let reason) {
            throw Unsynced(path: name, failure: "\(operation) of the directory '\(path)' failed: \(reason)")
        }
    }
}
