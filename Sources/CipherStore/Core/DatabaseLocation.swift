/// Where a database lives.
public enum DatabaseLocation: Sendable, Hashable {
    /// A file. A new file is created with permissions 0600 (owner only); SQLite gives its
    /// journal and WAL files the same permissions.
    ///
    /// The path always names a file, whatever its spelling: `":memory:"` and `"file:…"` are
    /// files of those names, not an in-memory database or a URI. An empty path is refused
    /// (use ``temporary`` for a private temporary database).
    case file(String)
    /// A private in-memory database, gone when the connection closes.
    case inMemory
    /// A private temporary file, deleted when the connection closes.
    case temporary

    /// The name SQLite opens.
    /// - Throws: ``CipherStoreError/invalidConfiguration(reason:)`` for an empty file path.
    func sqlitePath() throws -> String {
        switch self {
        case .file(let path): return try Self.sqliteFilePath(path)
        case .inMemory: return ":memory:"
        case .temporary: return ""
        }
    }

    /// How to spell a file path for `sqlite3_open_v2` or `ATTACH DATABASE ?` so that SQLite
    /// opens that very file: SQLite reads `":memory:"` as an in-memory database, `""` as a
    /// temporary one and (with URIs enabled) `"file:…"` as a URI. A relative path gets `./`
    /// in front, which names the same file and none of those.
    /// - Throws: ``CipherStoreError/invalidConfiguration(reason:)`` for an empty path.
    static func sqliteFilePath(_ path: String) throws -> String {
        guard !path.isEmpty else {
            throw CipherStoreError.invalidConfiguration(reason: "the database path is empty. Give the path of a file, or use DatabaseLocation.temporary for a private temporary database.")
        }
        return path.hasPrefix("/") ? path : "./" + path
    }

    /// The file's path, for a file.
    var filePath: String? {
        if case .file(let path) = self { return path }
        return nil
    }

    /// A name for messages.
    var displayName: String {
        switch self {
        case .file(let path): return path
        case .inMemory: return ":memory:"
        case .temporary: return "(temporary database)"
        }
    }
}
