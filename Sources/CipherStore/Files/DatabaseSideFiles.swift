#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files SQLite keeps beside a database, named after it: the rollback journal, the
/// write-ahead log and the log's shared-memory index.
///
/// SQLite finds them by name alone. A `-wal` beside a file is replayed into it at the first
/// open, and a hot `-journal` is rolled back onto it, whichever file they were written for:
/// checksums need no key and nothing ties a log to one database file. So before a new file
/// takes a name, whatever lies beside that name must go — a log left by a killed writer of the
/// file the name held before, or of a file long deleted.
enum DatabaseSideFiles {
    static let suffixes = ["-journal", "-wal", "-shm"]

    /// The side files that exist beside `path`.
    static func present(beside path: String) -> [String] {
        suffixes.map { path + $0 }.filter { FileSystem.exists($0) }
    }

    /// Removes the journal, log and index beside `path`, just before a new file takes the name.
    ///
    /// They are removed only when no other process has the database or any of them open: a
    /// process that does would go on using them (and write into a log the new file would then
    /// replay). This process's own connections are the caller's to have closed or locked.
    /// - Returns: the files removed.
    /// - Throws: ``DatabaseFileError/databaseInUse(path:detail:)`` when another process has
    ///   them open (nothing removed).
    @discardableResult
    static func clear(beside path: String) throws -> [String] {
        let sideFiles = present(beside: path)
        guard !sideFiles.isEmpty else { return [] }
        let holders = OpenFileHolders.processes(holding: [path] + sideFiles)
        guard holders.isEmpty else {
            throw DatabaseFileError.databaseInUse(
                path: path, detail: holders.map(\.description).joined(separator: "; ")
                    + "; the journal or log beside it would be applied to the new file")
        }
        var removed: [String] = []
        for file in sideFiles {
            if unlink(file) == 0 {
                removed.append(file)
            } else if errno != ENOENT {
                throw FileSystem.ioError("remove", file)
            }
        }
        return removed
    }
}
