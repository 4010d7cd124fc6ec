import Foundation

/// The committed frames of a WAL file, read without trusting it: where the latest committed
/// copy of each page is, and how many pages the database has after the last commit.
///
/// The layout is SQLite's: a 32-byte header (magic, version, page size, checkpoint sequence,
/// two salts, a checksum), then frames of a 24-byte header (page number, the database size for
/// the last frame of a commit, the salts, a cumulative checksum) and the page as stored — for
/// SQLCipher, encrypted and authenticated like a page of the database file. Frames count until
/// the first one whose salts or checksum do not match (a torn write, or a frame of an older
/// log); of those, only frames up to the last commit are used.
struct WALIndex {
    /// The file offset of the latest committed copy of each page.
    let frames: [UInt32: Int64]
    /// The database's page count after the last commit.
    let pageCount: Int
    /// Committed frames read.
    let frameCount: Int

    /// - Returns: `nil` when there is no usable log (missing, empty, another page size, or no
    ///   committed frame).
    init?(path: String, pageSize: Int) {
        guard FileSystem.size(path) >= 32 + 24 + pageSize, let source = ByteSource(path: path) else { return nil }
        self.init(source, pageSize: pageSize)
    }

    /// The same, for a log in memory (offsets are into `bytes`).
    init?(bytes: [UInt8], pageSize: Int) {
        self.init(ByteSource(bytes: bytes), pageSize: pageSize)
    }

    /// Reads the log one frame at a time: memory holds one frame and the page map.
    private init?(_ source: ByteSource, pageSize: Int) {
        guard pageSize >= 512, source.count >= 32 + 24 + pageSize, let header = source.bytes(at: 0, count: 32) else { return nil }
        let magic = BTreePage.uint32(header, at: 0)
        guard magic == 0x377f0682 || magic == 0x377f0683, Int(BTreePage.uint32(header, at: 8)) == pageSize else { return nil }
        let bigEndian = magic & 1 == 1
        var checksum = Self.checksum(header[0..<24], bigEndian: bigEndian, from: (0, 0))
        guard checksum == (BTreePage.uint32(header, at: 24), BTreePage.uint32(header, at: 28)) else { return nil }
        let salts = (BTreePage.uint32(header, at: 16), BTreePage.uint32(header, at: 20))
        var pending: [UInt32: Int64] = [:]
        var committed: [UInt32: Int64] = [:]
        var pageCount = 0
        var frames = 0
        var offset = 32
        while offset + 24 + pageSize <= source.count, let frame = source.bytes(at: offset, count: 24 + pageSize) {
            guard BTreePage.uint32(frame, at: 8) == salts.0, BTreePage.uint32(frame, at: 12) == salts.1 else { break }
            checksum = Self.checksum(frame[0..<8], bigEndian: bigEndian, from: checksum)
            checksum = Self.checksum(frame[24...], bigEndian: bigEndian, from: checksum)
            guard checksum == (BTreePage.uint32(frame, at: 16), BTreePage.uint32(frame, at: 20)) else { break }
            let page = BTreePage.uint32(frame, at: 0)
            pending[page] = Int64(offset + 24)
            let sizeAfterCommit = Int(BTreePage.uint32(frame, at: 4))
            if sizeAfterCommit > 0 {
                committed.merge(pending) { $1 }
                pending.removeAll()
                pageCount = sizeAfterCommit
                frames = (offset - 32) / (24 + pageSize) + 1
            }
            offset += 24 + pageSize
        }
        guard pageCount > 0 else { return nil }
        self.frames = committed.filter { Int($0.key) <= pageCount }
        self.pageCount = pageCount
        self.frameCount = frames
    }

    /// SQLite's WAL checksum: 32-bit words in the log's byte order, two running sums.
    static func checksum(_ bytes: ArraySlice<UInt8>, bigEndian: Bool, from start: (UInt32, UInt32)) -> (UInt32, UInt32) {
        var (s1, s2) = start
        var index = bytes.startIndex
        while index + 8 <= bytes.endIndex {
            func word(_ at: Int) -> UInt32 {
                bigEndian ? UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
                          : UInt32(bytes[at + 3]) << 24 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at])
            }
            s1 = s1 &+ word(index) &+ s2
            s2 = s2 &+ word(index + 4) &+ s1
            index += 8
        }
        return (s1, s2)
    }
}
