/// SQLite's journal modes (`PRAGMA journal_mode`). All of them encrypt journal and WAL pages
/// in SQLCipher; `off` and `memory` lose crash safety.
public enum JournalMode: String, Sendable, Hashable {
    case delete, truncate, persist, memory, wal, off
}
