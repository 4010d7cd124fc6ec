import ArgumentParser
import CipherStore
#if canImport(Glibc)
import Glibc
#endif

/// A failure with a message for the user and the exit code scripts see.
struct CLIError: Error, CustomStringConvertible {
    let exitCode: Int32
    let message: String
    /// What went wrong, as `--json` names it in `error.kind`; when `nil`, the kind of failure
    /// the exit code stands for (see ``JSONOutput/kind(of:)``).
    var kind: String? = nil
    var description: String { message }
}

extension CLIError {
    /// A path that names no file the command can read (missing, a directory, a special file,
    /// or one this user may not read), said with what to check: the path, or its permissions.
    static func unusablePath(_ path: String, _ info: DatabaseFileInfo, nothingChanged: Bool = false) -> CLIError {
        let unchanged = nothingChanged ? " Nothing was changed." : ""
        if info.kind == .unreadable, access(path, R_OK) != 0, errno == EACCES || errno == EPERM {
            return CLIError(exitCode: ExitCodes.ioFailure, message: "Permission denied: this user may not read '\(path)'.\(unchanged) Give this user access to it (see `ls -l` on it and `ls -ld` on its folder), or run as a user who has it.", kind: "permissionDenied")
        }
        return CLIError(exitCode: ExitCodes.ioFailure, message: "'\(path)' is \(info.kindDescription): check the path.\(unchanged)")
    }
}
