import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file a conversion in place replaces, held open through the rename so that, once no
/// name is left for it, it can be made unreadable as a database.
///
/// A connection that still has the old file open and was waiting for the conversion's write
/// lock gets it after the rename. In rollback-journal modes that create a journal file (DELETE,
/// TRUNCATE, PERSIST) SQLite notices that the file was moved and refuses to write
/// (`SQLITE_READONLY_DBMOVED`); in MEMORY and OFF modes it opens no journal and would commit
/// into the unreachable old file, silently lost. Overwriting the old file's first bytes makes
/// that write fail instead ("file is not a database": the header, or for an encrypted file
/// the first page's HMAC, no longer matches) — the same for every journal mode, in this process
/// or another.
///
/// Only a file with no name left is overwritten: a backup (`--keep-backup`) or another hard
/// link the caller chose to leave keeps the old content, and a late writer's commit lands there.
///
/// Closing the descriptor drops this process's POSIX locks on the file, including SQLite's:
/// ``retire()`` is called only after the rename, just before the conversion lets go of its
/// lock anyway.
final class ReplacedFile {
    private var descriptor: Int32

    /// Bytes written over the start of the old file: not zeros, which SQLCipher reads as an
    /// unwritten page, and never a valid SQLite header.
    private static let marker = Array(String(repeating: "CipherStore replaced this database file; it is no longer in use.\n", count: 9).utf8.prefix(512))

    /// Opens the file that is about to be replaced.
    init(path: String) throws {
        descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileSystem.ioError("open", path) }
    }

    /// After the rename: overwrites the start of the old file if no name is left for it, and
    /// closes it.
    /// - Returns: whether the old file was overwritten.
    @discardableResult
    func retire() -> Bool {
        guard descriptor >= 0 else { return false }
        defer { close() }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_nlink == 0 else { return false }
        let written = Self.marker.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        return written == Self.marker.count
    }

    /// Closes the file without touching it.
    func close() {
        guard descriptor >= 0 else { return }
        _ = Foundation.close(descriptor)
        descriptor = -1
    }

    deinit { close() }
}
