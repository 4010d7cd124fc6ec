import CipherStore

/// What the commands that replace a database say about other processes that have it open
/// (found through ``OpenFileHolders``; on Linux only).
enum OtherProcesses {
    /// Where the guide's safe order for moving an app over is.
    static let guide = "the README's \"Opening the files from other programs\" (the safe order for moving an app over)"

    /// Refuses to replace `path` in place while another process has it (or its journal, log or
    /// index) open: that process would go on with the old file, fail at its next statement
    /// ("file is not a database") or lose its writes. Nothing is checked with `force`.
    static func refuseReplacing(_ path: String, force: Bool) throws {
        guard !force else { return }
        let holders = OpenFileHolders.processes(holdingDatabase: path)
        guard !holders.isEmpty else {
            if let unchecked = uncheckedNotice(path) { warn(unchecked) }
            return
        }
        let (program, its) = holders.count == 1 ? ("that program", "its") : ("those programs", "their")
        throw CLIError(exitCode: 64, message: """
            \(holders.map(\.description).joined(separator: "; ")). Replacing '\(path)' now would \
            leave \(program) on the old file: \(its) next statement fails \
            ("file is not a database") or \(its) writes are lost. Nothing was changed. Stop \
            \(program) (or close \(its) connections), then retry; --force replaces the file anyway. \
            See \(guide).
            """, kind: "databaseInUse")
    }

    /// Said when no process was found to have `path` open but some could not be looked into
    /// (another user's, without root): the check is not a proof then.
    static func uncheckedNotice(_ path: String) -> String? {
        let count = OpenFileHolders.uncheckedProcessCount()
        guard count > 0 else { return nil }
        return "\(count) process\(count == 1 ? "" : "es") of other users could not be checked for '\(path)' (only root may see which files they have open): if one of them is a program using the database, stop it first, or run this command as root to check."
    }

    /// Before `encrypt --output` reads a source another process has open: that program's
    /// writes wait for the whole copy (the copy keeps writers out so that it reads one state),
    /// so a writer with a short busy timeout fails meanwhile.
    static func writersWaitNotice(source: String) -> String? {
        let holders = OpenFileHolders.processes(holdingDatabase: source)
        guard !holders.isEmpty else { return nil }
        let (program, its) = holders.count == 1 ? ("that program", "its") : ("those programs", "their")
        return "\(holders.map(\.description).joined(separator: "; ")): \(its) writes to '\(source)' wait until the copy ends (the progress bar's time left says how long; at the end the run says how long it was). A writer whose busy timeout is shorter fails with \"database is locked\" (Python's sqlite3 waits 5 s by default). Stop \(program) first to avoid that; see \(guide)."
    }

    /// After `encrypt --output`: the copy is a snapshot of the source, and writers waited for
    /// it. Said when another process has the source open, and always where that cannot be told.
    static func snapshotWarning(source: String, heldFor elapsed: Duration) -> String? {
        let holders = OpenFileHolders.processes(holdingDatabase: source)
        let opening: String
        if !holders.isEmpty {
            opening = holders.map(\.description).joined(separator: "; ") + ": rows"
        } else if !OpenFileHolders.isSupported {
            opening = "this system does not tell whether another program has '\(source)' open. If one does, rows"
        } else if OpenFileHolders.uncheckedProcessCount() > 0 {
            opening = "processes of other users could not be checked for '\(source)' (only root may see their open files). If one of them has it open, rows"
        } else {
            return nil
        }
        return "\(opening) written to the plaintext '\(source)' after the copy started are not in the encrypted copy, which is a snapshot of the file at that moment; writers to it waited while it was read, up to \(Summary.milliseconds(elapsed)). Stop the writers before encrypting (or encrypt with --in-place while the app is closed), then point the app at the encrypted file; see \(guide)."
    }
}
