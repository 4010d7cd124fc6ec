/// Where a database lives.
public enum DatabaseLocation: Sendable, Hashable {
    /// A file. A new file is created with permissions 0600 (owner only); SQLite gives its
    /// journal and WAL files the same permissions.
    case file(String)
    /// A private in-memory database, gone when the connection closes.
    case inMemory
    /// A private temporary file, deleted when the connection closes.
    case temporary

    /// The name SQLite opens.
    var sqlitePath: String {
        switch self {
        case .file(let path): return path
        case .inMemory: return ":memory:"
        case .temporary: return ""
        }
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
