import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The POSIX file operations CipherStore needs, in one place.
enum FileSystem {
    /// Creates a missing file with mode 0600, so a database (and the journals SQLite gives the
    /// same mode) never starts out readable by others. Returns the path when it created it.
    static func createOwnerOnlyFileIfMissing(_ path: String) -> String? {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            // Exists already, or cannot be created: SQLite's own open reports the latter precisely.
            return nil
        }
        close(descriptor)
        return path
    }

    /// Creates a new file with mode 0600; fails when it exists.
    static func createOwnerOnlyFile(_ path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw ioError("create", path) }
        close(descriptor)
    }

    /// Removes a file, ignoring a missing one.
    static func removeIfPresent(_ path: String) {
        unlink(path)
    }

    /// Removes a database file and the journal, WAL and shared-memory files SQLite may have left beside it.
    static func removeDatabaseFiles(_ path: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(path + suffix) }
    }

    static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }

    static func size(_ path: String) -> Int64 {
        var status = stat()
        return stat(path, &status) == 0 ? Int64(status.st_size) : 0
    }

    /// Whether two paths name the same file: through symlinks and hard links alike.
    static func isSameFile(_ first: String, _ second: String) -> Bool {
        var a = stat(), b = stat()
        guard stat(first, &a) == 0, stat(second, &b) == 0 else { return false }
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }

    /// The directory holding a path ("." for a bare file name).
    static func directory(of path: String) -> String {
        let parent = (path as NSString).deletingLastPathComponent
        return parent.isEmpty ? "." : parent
    }

    /// Writes a file's data to stable storage.
    static func sync(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ioError("open", path) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw ioError("fsync", path) }
    }

    /// Makes a rename or link in a directory durable.
    static func syncDirectory(of path: String) throws {
        try sync(directory(of: path))
    }

    /// Atomically replaces `destination` with `source`.
    static func rename(_ source: String, to destination: String) throws {
        guard Foundation.rename(source, destination) == 0 else { throw ioError("rename", source) }
    }

    /// Gives `source` a second name; fails with `EEXIST` rather than replace anything.
    /// - Returns: `false` when `destination` already exists.
    static func link(_ source: String, to destination: String) throws -> Bool {
        if Foundation.link(source, destination) == 0 { return true }
        if errno == EEXIST { return false }
        throw ioError("link", destination)
    }

    /// Whether the directory lets this process create files in it.
    static func isWritableDirectory(_ path: String) -> Bool {
        access(path, W_OK | X_OK) == 0
    }

    /// Other processes that have the file open, found through /proc (Linux; processes of
    /// other users are visible only to root). Empty where /proc is unavailable.
    static func otherProcessesHavingOpen(_ path: String) -> [Int32] {
        var target = stat()
        guard stat(path, &target) == 0,
              let processes = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        let me = getpid()
        var holders: [Int32] = []
        for entry in processes {
            guard let pid = Int32(entry), pid != me,
                  let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(entry)/fd") else { continue }
            for descriptor in descriptors {
                var status = stat()
                if stat("/proc/\(entry)/fd/\(descriptor)", &status) == 0,
                   status.st_dev == target.st_dev, status.st_ino == target.st_ino {
                    holders.append(pid)
                    break
                }
            }
        }
        return holders
    }

    /// An error naming the failed call, the path and the system's reason.
    static func ioError(_ operation: String, _ path: String) -> ConversionError {
        ConversionError.io(operation: operation, path: path, reason: String(cString: strerror(errno)))
    }
}
