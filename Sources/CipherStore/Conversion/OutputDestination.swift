/// Where a conversion writes its result.
public enum OutputDestination: Sendable, Hashable {
    /// A new file. An existing file is replaced only when `overwrite` is true; the source
    /// itself is never accepted.
    case file(String, overwrite: Bool = false)
    /// Replace the source: the result is written beside it, verified, and renamed over it in
    /// one atomic step. With `backup`, the original stays under that path (a hard link, no
    /// copy) — for `encrypt`, that backup is plaintext.
    ///
    /// A symbolic link is followed: the file it names is replaced. A file with other names
    /// (hard links) is refused, since those names would keep the old contents — plaintext, or
    /// readable with the old key — unless `replacingOtherLinks` is true, which replaces this
    /// name only.
    case inPlace(backup: String? = nil, replacingOtherLinks: Bool = false)
}

extension OutputDestination {
    /// Checks that a new file can be written at `path` (``file(_:overwrite:)``): its directory
    /// is writable, it is not `source`, and an existing file there is replaced only with
    /// `overwrite` (never a directory or a special file).
    ///
    /// - Throws: ``ConversionError`` (`outputDirectoryUnusable`, `outputIsSource`,
    ///   `outputIsDirectory`, `notARegularFile`, `outputExists`).
    static func checkNewFile(_ path: String, source: String?, overwrite: Bool) throws {
        let directory = FileSystem.directory(of: path)
        guard FileSystem.isDirectory(directory), FileSystem.isWritableDirectory(directory) else {
            throw ConversionError.outputDirectoryUnusable(path: directory)
        }
        if let source, FileSystem.isSameFile(path, source) || path == source {
            throw ConversionError.outputIsSource(path: path)
        }
        guard FileSystem.exists(path) else { return }
        // Say what the output is before suggesting --force, which would not help.
        if FileSystem.isDirectory(path) { throw ConversionError.outputIsDirectory(path: path) }
        let output = DatabaseFileInfo.inspect(path: path)
        if output.kind == .notARegularFile {
            throw ConversionError.notARegularFile(path: path, fileType: output.specialFileType ?? "a special file")
        }
        guard overwrite else { throw ConversionError.outputExists(path: path) }
    }

    /// Puts a finished, synced file under a new name: `link(2)`, which fails instead of
    /// replacing a file that appeared meanwhile, or with `overwrite` a rename over the existing
    /// file, whose journal or WAL is removed first so it is never applied to the new one.
    ///
    /// - Throws: ``ConversionError/outputExists(path:)`` (nothing changed), and the errors of
    ///   ``DurableReplacement`` (``DurableReplacement/Unsynced`` when the name holds the new
    ///   file but its directory sync failed).
    static func publish(_ temporaryPath: String, as path: String, overwrite: Bool) throws {
        if overwrite {
            for suffix in ["-journal", "-wal", "-shm"] { FileSystem.removeIfPresent(path + suffix) }
            try DurableReplacement.rename(temporaryPath, over: path)
        } else {
            guard try DurableReplacement.link(temporaryPath, as: path) else { throw ConversionError.outputExists(path: path) }
        }
    }

    /// ``publish(_:as:overwrite:)``, with what a failure means read from the disk: once the
    /// name leads to the new file, the error is a ``NotDurableError`` saying `nowOnDisk`;
    /// before that, nothing changed and the error is rethrown.
    static func publish(_ temporaryPath: String, as path: String, overwrite: Bool, nowOnDisk: String, nextStep: String) throws {
        let identity = FileSystem.identity(temporaryPath)
        do {
            try publish(temporaryPath, as: path, overwrite: overwrite)
        } catch {
            guard DurableReplacement.holds(path, identity: identity) else { throw error }
            throw NotDurableError(path: path, failure: (error as? DurableReplacement.Unsynced)?.failure ?? "\(error)",
                                  nowOnDisk: nowOnDisk, previousState: overwrite ? "the file '\(path)' held before" : "a missing '\(path)'",
                                  nextStep: nextStep)
        }
    }

    /// ``publish(_:as:overwrite:nowOnDisk:nextStep:)`` for a database whose slot file was
    /// written beside the name first: the slot file is removed when the database did not get
    /// the name, and kept once it did (a ``NotDurableError`` too), since it opens that database.
    static func publish(_ temporaryPath: String, as path: String, overwrite: Bool, slotFile: String?, nowOnDisk: String, nextStep: String) throws {
        do {
            try publish(temporaryPath, as: path, overwrite: overwrite, nowOnDisk: nowOnDisk, nextStep: nextStep)
        } catch let error as NotDurableError {
            throw error
        } catch {
            if let slotFile { FileSystem.removeIfPresent(slotFile) }
            throw error
        }
    }
}
