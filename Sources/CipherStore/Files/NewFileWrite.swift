import Foundation

/// Writes a new file for `cipherstore` (an exported raw key) the way the library writes its
/// own small files (``DurableFile``): the bytes go to a temporary file beside the name (mode
/// 0600) and are synced, the file takes the name with `link(2)`, which never replaces a file,
/// and the directory is synced. A temporary file a killed run left beside the same name is
/// removed by the next run.
@_spi(Tools)
public enum NewFileWrite {
    /// What went wrong, with the system's reason.
    public enum Failure: Error, Sendable, Equatable {
        /// No file was created; nothing was written.
        case cannotCreate(reason: String)
        /// The bytes could not be written or synced; nothing was kept.
        case cannotWrite(reason: String)
        /// The file has its name, but syncing its directory failed: after a power cut the name
        /// could be gone.
        case unsynced(reason: String)
    }

    /// Writes `bytes` into a new file at `path`; never replaces one.
    /// - Throws: ``Failure``.
    public static func write(_ bytes: [UInt8], to path: String) throws {
        _ = TemporaryFiles.removeLeftovers(for: path)
        let temporary: String
        do {
            temporary = try DurableFile.writeTemporary(bytes, beside: path)
        } catch DatabaseFileError.io(let operation, _, let reason) where operation == "create" {
            throw Failure.cannotCreate(reason: reason)
        } catch DatabaseFileError.io(_, _, let reason) {
            throw Failure.cannotWrite(reason: reason)
        }
        defer { FileSystem.removeIfPresent(temporary) }
        do {
            guard try DurableReplacement.link(temporary, as: path) else {
                throw Failure.cannotCreate(reason: String(cString: strerror(EEXIST)))
            }
        } catch let error as DurableReplacement.Unsynced {
            throw Failure.unsynced(reason: error.failure)
        } catch DatabaseFileError.io(_, _, let reason) {
            throw Failure.cannotCreate(reason: reason)
        }
    }
}
