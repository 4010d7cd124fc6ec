import CSQLCipher

/// Keeps SQLite's temporary storage in memory on every connection.
///
/// Sorts, indexes being built, temporary tables and large `IN` lists spill into temporary
/// files when SQLite keeps temporary storage on disk, and SQLCipher does not encrypt those
/// files: a sort of secrets would land on disk in plaintext (SQLite's default build keeps
/// temporary storage in files, and so do some SQLCipher builds). Every connection sets `PRAGMA temp_store = MEMORY` when it opens, and the authorizer
/// (the one in ``ConnectionHooks``) refuses SQL that would set it back to `FILE` or `DEFAULT`,
/// or name a temporary directory.
enum TempStoreGuard {
    /// The message of the `SQLITE_AUTH` error a refused pragma gets.
    static let refusal = "PRAGMA temp_store can only be MEMORY here (and temp_store_directory cannot be set): SQLCipher does not encrypt temporary files, so sorts, indexes being built and temporary tables stay in memory"

    /// Whether setting the pragma named by `name` to `value` is refused; reading it is not.
    static func refuses(pragma name: UnsafePointer<CChar>, value: UnsafePointer<CChar>?) -> Bool {
        let pragma = String(cString: name).lowercased()
        guard let value else { return false }
        switch pragma {
        case "temp_store":
            return !["2", "memory"].contains(String(cString: value).lowercased())
        case "temp_store_directory":
            return true
        default:
            return false
        }
    }
}
