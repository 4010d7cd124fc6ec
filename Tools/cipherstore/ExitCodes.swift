import ArgumentParser

/// The exit codes of `cipherstore`, one per kind of failure a script may want to tell apart.
enum ExitCodes {
    /// The key does not open the database: no slot opens with the passphrase, or a recovery
    /// key was mistyped (its checksum does not match).
    static let wrongKey: Int32 = 65
    /// The file is not a database, or not in the expected state (plaintext vs encrypted); or
    /// the slot file is not one, is of an unknown format version, or belongs to another database.
    static let wrongFileKind: Int32 = 66
    /// The result failed verification, or the database is damaged, or the slot file is
    /// (truncated, a bit changed, absurd KDF parameters); the original was left as it was.
    static let verificationFailed: Int32 = 67
    /// `repair` wrote the new database, but not everything could be read or put back: the
    /// report says which pages were lost and how many rows per table were recovered.
    static let dataLost: Int32 = 68
    /// Reading or writing a file failed (missing — the slot file too, with the path where it
    /// was expected —, permissions, disk full, busy).
    static let ioFailure: Int32 = 74
    /// The change was made, but syncing it to disk failed (an I/O error after the rename): the
    /// message says what is in place now and what a power cut could bring back. Nothing was
    /// rolled back; check the disk, then `sync` (or retry, as the message says).
    static let notDurable: Int32 = 75
    /// Cancelled by Ctrl-C (SIGINT); the original was left as it was and nothing partial remains.
    /// SIGTERM, SIGHUP and SIGQUIT cancel alike, with 128 + their number: 143, 129 and 131.
    static let cancelled: Int32 = 130

    /// The failures every command may end with, for each command's `--help`.
    static let summary = describe([wrongKey, wrongFileKind, verificationFailed, ioFailure, notDurable, cancelled])

    /// Every exit code the tool uses, for the top-level `--help`: the summary's, and those only
    /// one command has (`query`'s 1, `repair`'s 68).
    static let everyCode = "0 success, \(statementFailed) the SQL statement failed (query: invalid SQL, a constraint, a write without --write), 64 usage error, "
        + describe([wrongKey, wrongFileKind, verificationFailed, dataLost, ioFailure, notDurable, cancelled])

    /// `query`: the statement failed (invalid SQL, a constraint, a write without `--write`).
    static let statementFailed: Int32 = 1

    private static func describe(_ codes: [Int32]) -> String {
        codes.map { code in
            switch code {
            case wrongKey: return "\(code) wrong key"
            case wrongFileKind: return "\(code) not a database / not encrypted / already encrypted / not this database's slot file"
            case verificationFailed: return "\(code) damaged (database or slot file) or verification failed"
            case dataLost: return "\(code) repaired, but not everything could be read or put back (repair: the report says what)"
            case ioFailure: return "\(code) I/O failure (a missing slot file too)"
            case notDurable: return "\(code) done but not confirmed on disk (an I/O error after the swap: the message says what is in place)"
            case cancelled: return "\(code) cancelled by Ctrl-C (143 by SIGTERM, 129 by SIGHUP, 131 by SIGQUIT)"
            default: return "\(code)"
            }
        }.joined(separator: ", ")
    }
}
