import Foundation
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

    /// What ``clear(beside:keepingLogs:)`` did with each side file.
    struct Cleared {
        /// Side files removed: log indexes (`-shm`, rebuilt from the log), and logs when they
        /// were not kept.
        var removed: [String] = []
        /// Logs and journals kept under a new name, each as (old path, new path).
        var movedAside: [(from: String, to: String)] = []
    }

    /// Renames aside each `-journal` and `-wal` beside `path` that is not SQLite's (see
    /// ``SideFileHeader``), before anything opens the database: SQLite would delete it.
    /// Files of SQLite's own are left for SQLite to roll back or checkpoint.
    /// - Returns: each file moved, as (old path, new path).
    /// - Throws: ``DatabaseFileError/databaseInUse(path:detail:)`` when another process has it
    ///   open (nothing changed).
    static func setAsideForeign(beside path: String) throws -> [(from: String, to: String)] {
        let foreign = ["-journal", "-wal"].map { path + $0 }.filter { FileSystem.exists($0) && SideFileHeader.isForeign($0) }
        guard !foreign.isEmpty else { return [] }
        let holders = OpenFileHolders.processes(holding: foreign)
        guard holders.isEmpty else {
            throw DatabaseFileError.databaseInUse(
                path: path, detail: holders.map(\.description).joined(separator: "; ")
                    + "; it is named like a journal or log of the database but is not one")
        }
        return try foreign.map { file in
            let aside = asideName(file)
            guard rename(file, aside) == 0 else { throw FileSystem.ioError("rename", file) }
            return (file, aside)
        }
    }

    /// Removes the log index (`-shm`) beside `path` when no connection has the database, its
    /// log or the index open (this process's included): SQLite rebuilds an index from the log,
    /// so only a file this process made, and that nobody uses, goes.
    static func removeIndexIfUnused(beside path: String) {
        let files = [path, path + "-wal", path + "-shm"]
        guard FileSystem.exists(path + "-shm"), OpenFileHolders.processes(holding: files, includingThisProcess: true).isEmpty else { return }
        unlink(path + "-shm")
    }

    /// `NAME-wal.stale-SECONDS-PID`: beside the original, never taken by SQLite.
    static func asideName(_ file: String) -> String {
        file + ".stale-\(Int(Date().timeIntervalSince1970))-\(getpid())"
    }

    /// Clears the journal, log and index beside `path`, just before a new file takes the name.
    ///
    /// With `keepingLogs`, a `-wal` or `-journal` is renamed aside (`NAME-wal.stale-SECONDS`),
    /// not removed: it may be the only copy of another database's last commits (one moved away
    /// without its log). Without, it is removed: an in-place conversion's own journal, which
    /// may hold the old plaintext pages. They are cleared only when no other process has the
    /// database or any of them open: a process that does would go on using them (and write
    /// into a log the new file would then replay). This process's own connections are the
    /// caller's to have closed or locked.
    /// - Throws: ``DatabaseFileError/databaseInUse(path:detail:)`` when another process has
    ///   them open (nothing changed).
    static func clear(beside path: String, keepingLogs: Bool) throws -> Cleared {
        let sideFiles = present(beside: path)
        guard !sideFiles.isEmpty else { return Cleared() }
        let holders = OpenFileHolders.processes(holding: [path] + sideFiles)
        guard holders.isEmpty else {
            throw DatabaseFileError.databaseInUse(
                path: path, detail: holders.map(\.description).joined(separator: "; ")
                    + "; the journal or log beside it would be applied to the new file")
        }
        var cleared = Cleared()
        for file in sideFiles {
            if keepingLogs && !file.hasSuffix("-shm") {
                let aside = asideName(file)
                guard rename(file, aside) == 0 else { throw FileSystem.ioError("rename", file) }
                cleared.movedAside.append((file, aside))
            } else if unlink(file) == 0 {
                cleared.removed.append(file)
            } else if errno != ENOENT {
                throw FileSystem.ioError("remove", file)
            }
        }
        return cleared
    }
}
