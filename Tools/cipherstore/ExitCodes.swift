import ArgumentParser

/// The exit codes of `cipherstore`, one per kind of failure a script may want to tell apart.
enum ExitCodes {
    /// The key does not open the database.
    static let wrongKey: Int32 = 65
    /// The file is not a database, or not in the expected state (plaintext vs encrypted).
    static let wrongFileKind: Int32 = 66
    /// The result failed verification, or the database is damaged; the original was left as it was.
    static let verificationFailed: Int32 = 67
    /// Reading or writing a file failed (missing, permissions, disk full, busy).
    static let ioFailure: Int32 = 74
    /// Cancelled by Ctrl-C (SIGINT); the original was left as it was and nothing partial remains.
    /// SIGTERM and SIGHUP cancel alike, with 128 + their number: 143 and 129.
    static let cancelled: Int32 = 130

    static let summary = "\(wrongKey) wrong key, \(wrongFileKind) not a database / not encrypted / already encrypted, \(verificationFailed) damaged or verification failed, \(ioFailure) I/O failure, \(cancelled) cancelled by Ctrl-C (143 by SIGTERM, 129 by SIGHUP)"
}
