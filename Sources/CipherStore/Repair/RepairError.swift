/// Why a repair wrote nothing.
public enum RepairError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No page of the file decrypts with the key: the key or the cipher settings are wrong,
    /// the file's first 16 bytes (the salt every page key depends on) are damaged, or every
    /// page is.
    case nothingReadable(path: String, pageCount: Int)
    /// The file is a plaintext SQLite database: a repair reads encrypted ones.
    case notEncrypted(path: String)

    public var description: String { message { $0.swiftSpelling } }

    /// The description, with each way out it offers (a ``Remedy``) spelled by `spelling`; a
    /// remedy spelled `nil` is not offered, and the message leaves it out.
    public func message(spelling: (Remedy) -> String?) -> String {
        switch self {
        case .nothingReadable(let path, let pageCount):
            return "None of the \(pageCount) pages of '\(path)' decrypts with this key and these settings. Nothing was written. Either the key or the cipher settings are wrong\(spelling(.findSettings).map { " (to find the settings while the first page is intact, \($0))" } ?? ""), or the salt in the file's first 16 bytes is damaged (\(spelling(.salt).map { "give the salt: \($0); " } ?? "")the database's schema copy keeps it and is read for it when it is there, and a key that carries its salt still reads the file: a slot database's data key, or a raw key with its salt), or every page is damaged: restore a backup."
        case .notEncrypted(let path):
            return "'\(path)' is a plaintext SQLite database: a repair reads encrypted databases only. Nothing was written. For a damaged plaintext database, use the `.recover` command of the sqlite3 shell."
        }
    }
}
