import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small files written whole — a slot file, a schema copy, an exported raw key — the one
/// durable way: the bytes go to a new file beside the name (mode 0600) and are synced, and
/// only then does the file take the name (``DurableReplacement``: renamed or linked, then the
/// directory synced). A crash leaves the old file or the new one under the name, never a part
/// of either.
enum DurableFile {
    /// Writes `bytes` to a new temporary file beside `path` (mode 0600) and syncs it.
    ///
    /// - Returns: the temporary file, for the caller to check and give the name (or remove).
    /// - Throws: ``DatabaseFileError/io(operation:path:reason:)`` naming the failed call and the
    ///   system's reason (a full disk among them); nothing is left behind.
    static func writeTemporary(_ bytes: [UInt8], beside path: String) throws -> String {
        let temporary = TemporaryFiles.path(for: path)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw FileSystem.ioError("create", temporary) }
        defer { close(descriptor) }
        do {
            // write(2) until every byte is out: a short write is not a failure, a full disk is.
            var written = 0
            while written < bytes.count {
                let count = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress! + written, bytes.count - written) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { throw FileSystem.ioError("write", temporary) }
                written += count
            }
            guard fsync(descriptor) == 0 else { throw FileSystem.ioError("fsync", temporary) }
        } catch {
            FileSystem.removeIfPresent(temporary)
            throw error
        }
        return temporary
    }

    /// Puts `bytes` under `path`, replacing the file there if there is one.
    ///
    /// - Throws: the errors of ``writeTemporary(_:beside:)`` and ``rename(_:over:after:)``.
    static func replace(_ path: String, with bytes: [UInt8]) throws {
        try rename(try writeTemporary(bytes, beside: path), over: path)
    }

    /// Gives a temporary file written by ``writeTemporary(_:beside:)`` the name `path`,
    /// replacing the file there, once `prepare` has run.
    ///
    /// - Throws: ``DurableReplacement/Unsynced`` when the file took the name but the directory
    ///   sync failed; any other error (`prepare`'s among them) changed nothing, and the
    ///   temporary file is removed.
    static func rename(_ temporary: String, over path: String, after prepare: () throws -> Void = {}) throws {
        do {
            try prepare()
            try DurableReplacement.rename(temporary, over: path)
        } catch let error as DurableReplacement.Unsynced {
            throw error
        } catch {
            FileSystem.removeIfPresent(temporary)
            throw error
        }
    }
}
