import Foundation

/// The page images a rollback journal holds: what a transaction that never committed
/// overwrote, read without trusting the journal.
///
/// A writer that dies in the middle of a transaction leaves a hot `-journal` beside the
/// database: the original image of every page the transaction changed (it may already have
/// written the changed pages into the file), and the database's size before it began. SQLite
/// rolls it back at its next open; a repair reads those images in place of the file's pages,
/// and nothing past the original size, so the rows it returns are the committed ones.
///
/// The layout is SQLite's: segments, each a header sector (magic, record count, checksum
/// seed, the original page count, sector size, page size) followed by records of a page
/// number, the page as stored (for SQLCipher, encrypted like the file's page) and a checksum.
/// Reading stops at the first record whose checksum or page number does not hold (a torn
/// write); of pages journaled twice, the first image is the original. A journal whose first
/// header is not valid (zeroed by a commit in PERSIST mode, empty, another page size) holds
/// nothing to roll back.
struct RollbackJournal {
    /// Where in the journal the original image of each page is.
    let images: [UInt32: Int64]
    /// The database's page count before the transaction began.
    let originalPageCount: Int

    private static let magic: [UInt8] = [0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]

    /// - Returns: `nil` when there is nothing to roll back.
    init?(path: String, pageSize: Int) {
        guard FileSystem.size(path) >= 28, let source = ByteSource(path: path) else { return nil }
        self.init(source, pageSize: pageSize)
    }

    /// The same, for a journal in memory (offsets are into `bytes`).
    init?(bytes: [UInt8], pageSize: Int) {
        self.init(ByteSource(bytes: bytes), pageSize: pageSize)
    }

    /// Reads the journal one record at a time: memory holds one record and the page map.
    private init?(_ source: ByteSource, pageSize: Int) {
        var images: [UInt32: Int64] = [:]
        var originalPageCount: Int?
        var offset = 0
        segments: while let header = source.bytes(at: offset, count: 28), Array(header[0..<8]) == Self.magic {
            let declared = BTreePage.uint32(header, at: 8)
            let seed = BTreePage.uint32(header, at: 12)
            let pageCount = Int(BTreePage.uint32(header, at: 16))
            let sectorSize = Int(BTreePage.uint32(header, at: 20))
            guard Int(BTreePage.uint32(header, at: 24)) == pageSize,
                  sectorSize >= 32, sectorSize <= 65536, sectorSize & (sectorSize - 1) == 0 else { break }
            if originalPageCount == nil { originalPageCount = pageCount }
            let recordSize = pageSize + 8
            var record = offset + sectorSize
            // 0xFFFFFFFF, or 0 in a journal never synced: as many records as the file holds.
            // Never more than it holds, whatever the header says.
            let fits = max(0, (source.count - record) / recordSize)
            let count = declared == 0 || declared == 0xFFFF_FFFF ? fits : min(Int(declared), fits)
            for _ in 0..<count {
                guard let bytes = source.bytes(at: record, count: recordSize) else { break segments }
                let page = BTreePage.uint32(bytes, at: 0)
                guard page > 0, Self.checksum(bytes, image: 4, pageSize: pageSize, seed: seed) == BTreePage.uint32(bytes, at: 4 + pageSize) else {
                    break segments
                }
                if images[page] == nil { images[page] = Int64(record + 4) }
                record += recordSize
            }
            // The next segment starts at the next sector boundary.
            offset = (record + sectorSize - 1) / sectorSize * sectorSize
            if declared == 0 || declared == 0xFFFF_FFFF { break }
        }
        guard let originalPageCount, !images.isEmpty || originalPageCount > 0 else { return nil }
        self.images = images
        self.originalPageCount = originalPageCount
    }

    /// SQLite's journal checksum: the seed plus every 200th byte of the page, from its end.
    private static func checksum(_ bytes: [UInt8], image: Int, pageSize: Int, seed: UInt32) -> UInt32 {
        var sum = seed
        var index = pageSize - 200
        while index > 0 {
            sum = sum &+ UInt32(bytes[image + index])
            index -= 200
        }
        return sum
    }
}
