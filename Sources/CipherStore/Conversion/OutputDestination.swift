import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
    /// - Throws: ``DatabaseFileError`` (`outputDirectoryUnusable`, `outputIsSource`,
    ///   `outputIsDirectory`, `notARegularFile`, `outputExists`).
    static func checkNewFile(_ path: String, source: String?, overwrite: Bool) throws {
        let directory = FileSystem.directory(of: path)
        guard FileSystem.isDirectory(directory), FileSystem.isWritableDirectory(directory) else {
            throw DatabaseFileError.outputDirectoryUnusable(path: directory)
        }
        if let source, FileSystem.isSameFile(path, source) || path == source {
            throw DatabaseFileError.outputIsSource(path: path)
        }
        guard FileSystem.exists(path) else { return }
        // Say what the output is before suggesting --force, which would not help.
        if FileSystem.isDirectory(path) { throw DatabaseFileError.outputIsDirectory(path: path) }
        let output = DatabaseFileInfo.inspect(path: path)
        if output.kind == .notARegularFile {
            throw DatabaseFileError.notARegularFile(path: path, fileType: output.specialFileType ?? "a special file")
        }
        guard overwrite else { throw DatabaseFileError.outputExists(path: path) }
    }

    /// Puts a finished, synced file under a new name: `link(2)`, which fails instead of
    /// replacing a file that appeared meanwhile, or with `overwrite` a rename over the existing
    /// file. A journal, log or log index beside the name is cleared first (logs moved aside),
    /// so it is never applied to the new file (see ``DatabaseSideFiles``).
    ///
    /// - Returns: what was done with the side files.
    /// - Throws: ``DatabaseFileError/outputExists(path:)``, ``DatabaseFileError/databaseInUse(path:detail:)``
    ///   (another process has a side file open; nothing changed), and the errors of
    ///   ``DurableReplacement`` (``DurableReplacement/Unsynced`` when the name holds the new
    ///   file but its directory sync failed).
    @discardableResult
    static func publish(_ temporaryPath: String, as path: String, overwrite: Bool) throws -> DatabaseSideFiles.Cleared {
        if !overwrite && FileSystem.exists(path) { throw DatabaseFileError.outputExists(path: path) }
        let removed = try DatabaseSideFiles.clear(beside: path, keepingLogs: true)
        if overwrite {
            try DurableReplacement.rename(temporaryPath, over: path)
        } else {
            guard try DurableReplacement.link(temporaryPath, as: path) else { throw DatabaseFileError.outputExists(path: path) }
        }
        return removed
    }

    /// ``publish(_:as:overwrite:)`` for a database with a slot file beside it: `writeSlotFile`
    /// writes, just before the database takes its name, the slot file that opens the new
    /// database (at `slotFile`), or returns `nil` when it has none.
    ///
    /// A slot file already at that name opens the database the name holds now, so it is kept
    /// aside (a second hard link) until the new database has the name. When the database does
    /// not get it, the old slot file is put back (or the new one removed when there was none),
    /// and the old database still opens. Once the database has the name, the new slot file
    /// stays (also when the directory sync failed after it) and the old one is removed. A crash
    /// in between leaves the old one beside them as `NAME.keys.previous-PID-N`.
    /// - Returns: the slot file written, or `nil`, and what was done with the side files.
    /// - Throws: as ``publish(_:as:overwrite:)``, and the errors of `writeSlotFile`.
    static func publish(_ temporaryPath: String, as path: String, overwrite: Bool, slotFile: String,
                        writingSlotFile writeSlotFile: () throws -> String?)
        throws -> (slotFile: String?, sideFiles: DatabaseSideFiles.Cleared) {
        let previous = overwrite ? try setAside(slotFile) : nil
        let database = FileSystem.identity(temporaryPath)
        var written: String?
        var removed = DatabaseSideFiles.Cleared()
        do {
            written = try writeSlotFile()
            removed = try publish(temporaryPath, as: path, overwrite: overwrite)
        } catch where DurableReplacement.holds(path, identity: database) {
            // The new database has the name: the new slot file is the one that opens it.
            if let previous { FileSystem.removeIfPresent(previous) }
            throw error
        } catch {
            if let previous, written == nil {
                // Nothing replaced it: the old slot file is still in place under its name too.
                FileSystem.removeIfPresent(previous)
            } else if let previous {
                // Put back over the new one; should even that fail, it stays under its second name.
                _ = rename(previous, slotFile)
            } else if let written {
                FileSystem.removeIfPresent(written)
            }
            throw error
        }
        if let previous { FileSystem.removeIfPresent(previous) }
        return (written, removed)
    }

    /// A second name for the file at `path` (the name itself when it is a symbolic link), or
    /// `nil` when there is nothing there.
    private static func setAside(_ path: String) throws -> String? {
        guard FileSystem.exists(path) || FileSystem.isSymbolicLink(path) else { return nil }
        let aside = path + ".previous-\(getpid())-\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
        guard link(path, aside) == 0 else { throw FileSystem.ioError("link", path) }
        return aside
    }
}
