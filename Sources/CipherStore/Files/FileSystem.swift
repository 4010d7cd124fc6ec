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

    static func isSymbolicLink(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFLNK
    }

    static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }

    static func size(_ path: String) -> Int64 {
        var status = stat()
        return stat(path, &status) == 0 ? Int64(status.st_size) : 0
    }

    /// What a file of this mode is when it is neither a regular file nor a directory:
    /// "a FIFO (named pipe)", "a character device", "a block device", "a socket".
    static func specialFileType(mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG, S_IFDIR: return nil
        case S_IFIFO: return "a FIFO (named pipe)"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        default: return "a special file"
        }
    }

    /// Whether two paths name the same file: through symlinks and hard links alike.
    static func isSameFile(_ first: String, _ second: String) -> Bool {
        guard let a = identity(first) else { return false }
        return a == identity(second)
    }

    /// The device and inode a path names now (through symlinks); `nil` when it does not exist.
    /// Two equal identities are the same file.
    static func identity(_ path: String) -> [UInt64]? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return [UInt64(status.st_dev), UInt64(status.st_ino)]
    }

    /// What changes when a file is written: device, inode, size and modification time (to the
    /// nanosecond); `nil` when it does not exist.
    static func changeStamp(_ path: String) -> [Int64]? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return [Int64(status.st_dev), Int64(status.st_ino), Int64(status.st_size),
                Int64(status.st_mtim.tv_sec), Int64(status.st_mtim.tv_nsec)]
    }

    /// The directory holding a path ("." for a bare file name).
    static func directory(of path: String) -> String {
        // Not NSString.deletingLastPathComponent: swift-corelibs-foundation traps on a
        // one-character name such as "d".
        var rest = Substring(path)
        while rest.count > 1, rest.hasSuffix("/") { rest.removeLast() }
        guard let slash = rest.lastIndex(of: "/") else { return "." }
        var parent = rest[..<slash]
        while parent.count > 1, parent.hasSuffix("/") { parent.removeLast() }
        return parent.isEmpty ? "/" : String(parent)
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

    /// Whether this process may write the file and create its journal beside it.
    static func isWritableDatabase(_ path: String) -> Bool {
        access(path, W_OK) == 0 && isWritableDirectory(directory(of: path))
    }

    /// The file a path names, with every symbolic link resolved; `nil` when it does not exist.
    static func resolvingLinks(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// How many names (hard links) the file has; 0 when it cannot be read.
    static func linkCount(_ path: String) -> Int {
        var status = stat()
        return stat(path, &status) == 0 ? Int(status.st_nlink) : 0
    }

    /// The other names of a file in its own directory (hard links elsewhere are not searched).
    static func otherNamesInDirectory(of path: String) -> [String] {
        var target = stat()
        let directory = directory(of: path)
        guard stat(path, &target) == 0,
              let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        let name = (path as NSString).lastPathComponent
        return entries.filter { entry in
            var status = stat()
            return entry != name && lstat(directory + "/" + entry, &status) == 0
                && status.st_dev == target.st_dev && status.st_ino == target.st_ino
        }.sorted().map { directory + "/" + $0 }
    }

    /// The current directory, for making a relative path absolute.
    static func currentDirectory() -> String {
        FileManager.default.currentDirectoryPath
    }

    /// An error naming the failed call, the path and the system's reason.
    /// Refuses, before anything is written, an in-place conversion whose result could not keep
    /// the file's owner and group: a file replaced by another user's would lock its owner out.
    static func checkOwnerCanBeKept(_ path: String) throws {
        var status = stat()
        guard stat(path, &status) == 0 else { throw ioError("read the owner of", path) }
        let user = geteuid()
        guard user != 0 else { return }
        var groups = [gid_t](repeating: 0, count: Int(getgroups(0, nil)))
        let count = getgroups(Int32(groups.count), &groups)
        let inGroup = status.st_gid == getegid() || groups.prefix(Int(max(count, 0))).contains(status.st_gid)
        if status.st_uid == user && inGroup { return }
        throw DatabaseFileError.ownerCannotBeKept(path: path, owner: status.st_uid, group: status.st_gid)
    }

    /// Gives `path` the owner, group and permission bits of `original`, so an in-place result
    /// stays usable by whoever used the original.
    static func copyOwnerAndMode(from original: String, to path: String) throws {
        var status = stat()
        guard stat(original, &status) == 0 else { throw ioError("read the owner of", original) }
        var current = stat()
        guard stat(path, &current) == 0 else { throw ioError("read the owner of", path) }
        if current.st_uid != status.st_uid || current.st_gid != status.st_gid {
            guard chown(path, status.st_uid, status.st_gid) == 0 else { throw ioError("give the original's owner to", path) }
        }
        guard chmod(path, status.st_mode & 0o777) == 0 else { throw ioError("give the original's permissions to", path) }
    }

    static func ioError(_ operation: String, _ path: String) -> DatabaseFileError {
        DatabaseFileError.io(operation: operation, path: path, reason: String(cString: strerror(errno)))
    }
}
