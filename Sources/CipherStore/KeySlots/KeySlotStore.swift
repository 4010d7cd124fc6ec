import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads and writes slot files: every write is a new file (mode 0600), synced, renamed into
/// place, and the directory synced; changes take an exclusive lock on the slot file.
enum KeySlotStore {
    /// A slot file is tiny; anything larger is not one.
    static let maximumFileSize = 64 * 1024

    /// Reads and parses the slot file of `database`.
    /// - Throws: ``KeySlotError/slotFileMissing(expectedAt:database:)`` and the parser's errors.
    static func read(_ path: String, database: String) throws -> KeySlotFile {
        guard FileSystem.exists(path) else {
            throw KeySlotError.slotFileMissing(expectedAt: path, database: database)
        }
        guard FileSystem.size(path) <= maximumFileSize else {
            throw KeySlotError.damaged(path: path, detail: "it is \(FileSystem.size(path)) bytes, far more than a slot file holds")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FileSystem.ioError("read", path)
        }
        return try KeySlotFile(parsing: Array(data), path: path)
    }

    /// Replaces the slot file with `file`, atomically and durably, inside
    /// ``withExclusiveLock(_:database:_:)``: the new file is locked before it takes the name,
    /// so the lock goes on covering the slot file until the whole change is done.
    ///
    /// The new file is checked before it takes the name (see ``writeTemporary(_:beside:verifying:)``).
    ///
    /// - Throws: ``DurableReplacement/Unsynced`` when the new file took the name but the
    ///   directory sync failed; any other error leaves the slot file as it was.
    static func replace(_ path: String, with file: KeySlotFile, holding lock: HeldLock,
                        verifying check: (KeySlotFile) throws -> Void) throws {
        let temporary = try writeTemporary(file, beside: path, verifying: check)
        try DurableFile.rename(temporary, over: path, after: { try lock.lockAlso(temporary) })
    }

    /// The slot files (the one locked first, and each written since) that a change holds
    /// locked until it ends.
    final class HeldLock {
        private var descriptors: [Int32] = []

        fileprivate init() {}

        /// Locks the file at `path` (not yet under the slot file's name, so nobody waits for it).
        fileprivate func lockAlso(_ path: String) throws {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw FileSystem.ioError("open", path) }
            descriptors.append(descriptor)
            guard flock(descriptor, LOCK_EX) == 0 else { throw FileSystem.ioError("flock", path) }
        }

        fileprivate func adopt(_ descriptor: Int32) {
            descriptors.append(descriptor)
        }

        fileprivate func release() {
            for descriptor in descriptors { close(descriptor) }
            descriptors.removeAll()
        }
    }

    /// Writes a slot file where none exists; never replaces one. Checked before it takes the
    /// name, as ``replace(_:with:holding:verifying:)``.
    /// - Throws: ``KeySlotError/slotFileExists(path:)`` when one appeared meanwhile.
    static func create(_ path: String, with file: KeySlotFile, verifying check: (KeySlotFile) throws -> Void) throws {
        let temporary = try writeTemporary(file, beside: path, verifying: check)
        defer { FileSystem.removeIfPresent(temporary) }
        do {
            guard try DurableReplacement.link(temporary, as: path) else {
                throw KeySlotError.slotFileExists(path: path)
            }
        } catch let error as DurableReplacement.Unsynced {
            // Nothing depends on the new slot file yet: take it away again, so that the
            // database and the slot file stay as they were.
            FileSystem.removeIfPresent(path)
            throw DatabaseFileError.io(operation: "syncing the new slot file's directory", path: path, reason: error.failure)
        }
    }

    /// Writes `file` as the slot file at `path` (a backup's, or a restored database's),
    /// replacing one there only with `overwrite`. Checked before it takes the name, as
    /// ``create(_:with:verifying:)``.
    /// - Throws: ``DatabaseFileError/outputExists(path:)``, and ``DurableReplacement/Unsynced``
    ///   when the file took the name but its directory sync failed.
    static func write(_ file: KeySlotFile, to path: String, overwrite: Bool) throws {
        let temporary = try writeTemporary(file, beside: path, verifying: { _ in })
        defer { FileSystem.removeIfPresent(temporary) }
        try OutputDestination.publish(temporary, as: path, overwrite: overwrite)
    }

    /// Copies the slot file of `database` beside `output` when `output` is a copy with the
    /// same salt (and so the same data key): the slot file then opens the pair. Nothing is
    /// copied when `database` has no slot file or its salt differs.
    ///
    /// - Parameter databaseSaltDamaged: `database`'s own first bytes may be damaged (a repair):
    ///   the slot file is copied when it holds slots for `salt`, whatever `database` starts with.
    /// - Returns: the slot file written, or `nil`.
    /// - Throws: ``BackupError/slotFileChanged(slotFile:)`` when the slot file holds no slot
    ///   for that salt any more (a rotation ran meanwhile), the errors of ``write(_:to:overwrite:)``.
    static func copySlotFile(of database: String, to output: String, salt: [UInt8], overwrite: Bool,
                             databaseSaltDamaged: Bool = false) throws -> String? {
        let source = KeySlots.slotFileTarget(forDatabase: database)
        guard FileSystem.exists(source), databaseSaltDamaged || DatabaseFileInfo.salt(of: database) == salt else { return nil }
        let file = try read(source, database: database)
        guard !file.slots(forDatabaseSalt: salt).isEmpty else {
            if databaseSaltDamaged { return nil }
            throw BackupError.slotFileChanged(slotFile: source)
        }
        let target = KeySlots.slotFilePath(forDatabase: output)
        try OutputDestination.checkNewFile(target, source: source, overwrite: overwrite)
        do {
            try write(file, to: target, overwrite: overwrite)
        } catch is DurableReplacement.Unsynced {
            // The slot file has its name; the database's own publication syncs the same
            // directory next, and says so if that fails too.
        }
        return target
    }

    /// Refuses, before anything is written, a slot file that CipherStore would not read back:
    /// the bytes go through the same parser and caps (slot count, KDF work) as every read.
    /// - Throws: ``KeySlotError/changeWouldBeUnreadable(path:detail:)``.
    static func checkReadable(_ file: KeySlotFile, path: String) throws {
        do {
            _ = try KeySlotFile(parsing: file.serialized(), path: path)
        } catch let error as KeySlotError {
            throw KeySlotError.changeWouldBeUnreadable(path: path, detail: error.reason)
        }
    }

    /// Runs `body` holding an exclusive `flock` on the slot file, so that two processes
    /// changing it take turns. A process that waited re-opens the file if it was replaced
    /// meanwhile, so it always locks the current one. Each file `body` writes with
    /// ``replace(_:with:holding:)`` is locked before it takes the name, so a process that
    /// opens the slot file in the middle of a change waits for all of it, not only its first
    /// write.
    static func withExclusiveLock<T>(_ path: String, database: String, _ body: (HeldLock) throws -> T) throws -> T {
        _ = TemporaryFiles.removeLeftovers(for: path)
        while true {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                if errno == ENOENT { throw KeySlotError.slotFileMissing(expectedAt: path, database: database) }
                throw FileSystem.ioError("open", path)
            }
            let lock = HeldLock()
            lock.adopt(descriptor)
            defer { lock.release() }
            guard flock(descriptor, LOCK_EX) == 0 else { throw FileSystem.ioError("flock", path) }
            var locked = stat(), current = stat()
            guard fstat(descriptor, &locked) == 0 else { throw FileSystem.ioError("fstat", path) }
            if stat(path, &current) == 0, current.st_ino == locked.st_ino, current.st_dev == locked.st_dev {
                return try body(lock)
            }
        }
    }

    /// Writes `file` to a new temporary file beside `path` (``DurableFile``), and reads it
    /// back: the bytes on disk must parse, and `check` must accept them (it opens the slots the
    /// change wrote with their wrapping keys). Only then may the file take the slot file's name.
    ///
    /// - Throws: ``KeySlotError/changeWouldBeUnreadable(path:detail:)`` before anything is
    ///   written, ``KeySlotError/readBackFailed(path:)`` when the file read back differs.
    private static func writeTemporary(_ file: KeySlotFile, beside path: String,
                                       verifying check: (KeySlotFile) throws -> Void) throws -> String {
        try checkReadable(file, path: path)
        let temporary = try DurableFile.writeTemporary([UInt8](file.serialized()), beside: path)
        do {
            let readBack: KeySlotFile
            do {
                readBack = try read(temporary, database: path)
            } catch is KeySlotError {
                throw KeySlotError.readBackFailed(path: path)
            }
            try check(readBack)
        } catch {
            FileSystem.removeIfPresent(temporary)
            throw error
        }
        return temporary
    }
}
