import Foundation

/// What a file named like a journal or a write-ahead log beside a database holds, told from
/// its first bytes.
///
/// SQLite trusts the name: at the first open it deletes a `-journal` whose header is not a
/// journal's (after "rolling back" nothing), and a `-wal` whose header is not a log's (as an
/// empty log, at the last close). A file of someone else's that only has the name would be
/// lost without a word, so the tools look before SQLite does.
enum SideFileHeader {
    /// A rollback journal's header magic (SQLite's `aJournalMagic`).
    private static let journalMagic: [UInt8] = [0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]
    /// A write-ahead log's header magic, big-endian, for either checksum byte order.
    private static let walMagic: Set<[UInt8]> = [[0x37, 0x7f, 0x06, 0x82], [0x37, 0x7f, 0x06, 0x83]]

    /// Whether `path` (a `-journal` or `-wal`) is neither SQLite's nor empty: a journal whose
    /// first byte is zero is one SQLite has finished with (it leaves it), an empty file is
    /// SQLite's too; anything else must start with the magic of its kind.
    static func isForeign(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 8)) ?? Data())
        guard let first = head.first else { return false }
        if path.hasSuffix("-wal") { return !walMagic.contains(Array(head.prefix(4))) }
        return first != 0 && head != journalMagic
    }

    /// Whether `path` is a journal SQLite would roll back: it exists and is not empty, and its
    /// first byte is not zero.
    static func isHotJournal(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return ((try? handle.read(upToCount: 1)) ?? Data()).first.map { $0 != 0 } ?? false
    }
}
