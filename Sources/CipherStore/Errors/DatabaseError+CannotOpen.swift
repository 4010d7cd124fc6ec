#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension DatabaseError {
    /// `SQLITE_CANTOPEN` says only "unable to open database file", and SQLite 3.15.2 keeps no
    /// `errno` to tell why. What this user may not do is read from the file system: a file it
    /// may not read, or — for a database in WAL mode, whose readers need the `-shm` index beside
    /// it — a folder where that file cannot be created or opened. The error then names the file.
    /// Any other error is returned unchanged.
    static func explainingCannotOpen(_ error: Error, location: DatabaseLocation) -> Error {
        // Newer SQLite (3.22+) reports a WAL index it cannot create as SQLITE_READONLY_CANTINIT (1544).
        guard let error = error as? DatabaseError, error.resultCode.primaryResultCode == .SQLITE_CANTOPEN || error.resultCode.rawValue == 1544,
              case .file(let path) = location, FileSystem.exists(path) else { return error }
        let folder = FileSystem.directory(of: path)
        let problem: String
        if access(path, R_OK) != 0 {
            problem = "permission denied: this user may not read '\(path)'"
        } else if access(folder, W_OK) != 0, !FileSystem.exists(path + "-shm") {
            problem = "'\(path)-shm' cannot be created: the folder '\(folder)' is not writable by this user, and a database in WAL mode is read through its -shm index beside it"
        } else if FileSystem.exists(path + "-shm"), access(path + "-shm", R_OK | W_OK) != 0 {
            problem = "permission denied: this user may not read and write '\(path)-shm', the WAL index beside the database"
        } else if FileSystem.exists(path + "-wal"), access(path + "-wal", R_OK) != 0 {
            problem = "permission denied: this user may not read '\(path)-wal', the write-ahead log beside the database"
        } else {
            return error
        }
        return DatabaseError(resultCode: error.resultCode, message: problem + Self.permissionAdvice, sql: error.sql)
    }

    /// Ends a `SQLITE_CANTOPEN` message that names the file this user may not use.
    static let permissionAdvice = ". Give this user access to it (see `ls -l` and `ls -ld` on its folder), run as a user who has it, or copy the database with its -wal file to a folder this user can write"
}
