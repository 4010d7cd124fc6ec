import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the pages of an encrypted database file one at a time, each checked against its
/// HMAC and decrypted on its own, keeping track of which pages could not be read.
///
/// For the fuzzer, it also reads an image in memory, encrypted or already decrypted (no
/// cipher: each page is taken as it is, so the b-tree and record parsers meet every byte).
final class EncryptedPageReader {
    let path: String
    let cipher: PageCipher?
    let pageSize: Int
    /// Whole pages in the file.
    let pageCount: Int
    /// Pages whose HMAC did not match (or that the file is too short to hold).
    private(set) var lostPages = Set<UInt32>()
    /// Pages read intact at least once.
    private(set) var readPages = Set<UInt32>()
    private let descriptor: Int32
    private var buffer: [UInt8]
    private let image: [UInt8]?
    /// The WAL file of an image in memory.
    private var logImage: [UInt8]?
    /// The committed frames of the database's WAL file, read before the file's own pages.
    let wal: WALIndex?
    private let walDescriptor: Int32
    /// The original images of pages an unfinished transaction changed, read instead of the
    /// file's (the transaction rolled back).
    let journal: RollbackJournal?
    private let journalDescriptor: Int32
    /// The cell that first reached each overflow page (see ``BTreePage/Cell/slot``).
    private var overflowOwners: [UInt32: UInt64] = [:]
    /// Overflow pages read by ``payload(of:visit:)``, in all.
    private(set) var overflowPagesRead = 0
    /// Whether the last ``payload(of:visit:)`` that failed ran into a page lost to damage.
    private(set) var lastPayloadLostAPage = false
    /// Why the WAL file or the journal beside the database was not read, when one was not.
    private(set) var refusals: [String] = []

    init(path: String, cipher: PageCipher) throws {
        self.path = path
        self.cipher = cipher
        pageSize = cipher.pageSize
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileSystem.ioError("open", path) }
        let filePages = Int(FileSystem.size(path) / Int64(cipher.pageSize))
        var wal = WALIndex(path: path + "-wal", pageSize: cipher.pageSize)
        if let log = wal, !Self.isPlausible(log, filePages: filePages) {
            refusals.append("'\(path)-wal' says the database has \(log.pageCount) pages after its last commit, more than the file and the log hold together: it was not read")
            wal = nil
        } else if let log = wal, !Self.anyDecrypts(log.frames, in: path + "-wal", cipher: cipher) {
            refusals.append("'\(path)-wal' holds \(log.frameCount) committed frames, none of which decrypts with this key: it is not this database's log and was not read")
            wal = nil
        }
        self.wal = wal
        walDescriptor = wal == nil ? -1 : open(path + "-wal", O_RDONLY | O_CLOEXEC)
        // A database in WAL mode has no journal to roll back.
        var journal = wal == nil ? RollbackJournal(path: path + "-journal", pageSize: cipher.pageSize) : nil
        if let found = journal, !found.images.isEmpty, !Self.anyDecrypts(found.images, in: path + "-journal", cipher: cipher) {
            refusals.append("'\(path)-journal' holds \(found.images.count) page images, none of which decrypts with this key: it is not this database's journal and was not rolled back")
            journal = nil
        }
        self.journal = journal
        journalDescriptor = journal == nil ? -1 : open(path + "-journal", O_RDONLY | O_CLOEXEC)
        // After a commit in the log, the database has the size the commit gave it; rolled
        // back, the size it had before the transaction (never more than the file and the
        // journal hold together).
        pageCount = wal?.pageCount ?? journal.map { min($0.originalPageCount, max(filePages, Int($0.images.keys.max() ?? 0))) } ?? filePages
        buffer = [UInt8](repeating: 0, count: cipher.pageSize)
        image = nil
    }

    /// A commit grows the database only by pages it wrote into the log: every page between
    /// the file's end and the size the log claims must have a frame.
    private static func isPlausible(_ log: WALIndex, filePages: Int) -> Bool {
        log.pageCount <= filePages || log.frames.keys.count { Int($0) > filePages } >= log.pageCount - filePages
    }

    /// Whether any of the first pages stored at `offsets` in the file at `path` decrypts.
    /// Checksums need no key: a log or journal of another database, or of this one under
    /// another key, passes them, but its pages do not decrypt with this key.
    private static func anyDecrypts(_ offsets: [UInt32: Int64], in path: String, cipher: PageCipher) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        // A few are enough: one that decrypts shows the key is the file's.
        for (page, offset) in offsets.sorted(by: { $0.key < $1.key }).prefix(16) {
            guard (try? handle.seek(toOffset: UInt64(offset))) != nil,
                  let data = try? handle.read(upToCount: cipher.pageSize), data.count == cipher.pageSize else { continue }
            if (try? cipher.decrypt(ArraySlice(data), number: page)) ?? nil != nil { return true }
        }
        return false
    }

    /// Pages held in memory: encrypted with `cipher`, or with none, decrypted already; with
    /// `log`, a WAL file in memory whose committed frames are read first (when plausible).
    init(image: [UInt8], log: [UInt8]? = nil, pageSize: Int, cipher: PageCipher?) {
        path = ":image:"
        self.cipher = cipher
        self.pageSize = pageSize
        descriptor = -1
        let filePages = image.count / pageSize
        wal = log.flatMap { WALIndex(bytes: $0, pageSize: pageSize) }.flatMap { Self.isPlausible($0, filePages: filePages) ? $0 : nil }
        logImage = wal == nil ? nil : log
        pageCount = wal?.pageCount ?? filePages
        buffer = []
        self.image = image
        walDescriptor = -1
        journal = nil
        journalDescriptor = -1
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if walDescriptor >= 0 { close(walDescriptor) }
        if journalDescriptor >= 0 { close(journalDescriptor) }
    }

    /// Whether any of the file's first `count` pages decrypts with the cipher (the log and the
    /// journal aside); nothing is recorded as read or lost.
    func anyOfFirstPagesDecrypts(_ count: Int) -> Bool {
        guard let cipher, descriptor >= 0 else { return false }
        var bytes = [UInt8](repeating: 0, count: pageSize)
        for number in 1...max(1, min(count, pageCount)) {
            let read = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, pageSize, off_t((number - 1) * pageSize)) }
            if read == pageSize, (try? cipher.decrypt(bytes[...], number: UInt32(number))) ?? nil != nil { return true }
        }
        return false
    }

    /// Page 1 as the file stores it (encrypted), or `nil` when the file is shorter.
    func storedFirstPage() -> [UInt8]? {
        if let image { return image.count >= pageSize ? Array(image.prefix(pageSize)) : nil }
        var bytes = [UInt8](repeating: 0, count: pageSize)
        let read = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, pageSize, 0) }
        return read == pageSize ? bytes : nil
    }

    /// The decrypted page (its usable part), or `nil` when it is lost or beyond the file.
    func page(_ number: UInt32) throws -> [UInt8]? {
        guard number >= 1, Int(number) <= pageCount else {
            if number >= 1 { lostPages.insert(number) }
            return nil
        }
        let size = pageSize
        let start = Int(number - 1) * size
        let stored: ArraySlice<UInt8>
        if let image {
            if let frame = wal?.frames[number].map(Int.init), let logImage {
                stored = logImage[frame..<(frame + size)]
            } else if start + size <= image.count {
                stored = image[start..<(start + size)]
            } else {
                lostPages.insert(number)
                return nil
            }
        } else if let frame = wal?.frames[number], walDescriptor >= 0 {
            let read = buffer.withUnsafeMutableBytes { pread(walDescriptor, $0.baseAddress, size, off_t(frame)) }
            guard read == size else { throw FileSystem.ioError("read", path + "-wal") }
            stored = buffer[...]
        } else if let original = journal?.images[number], journalDescriptor >= 0 {
            let read = buffer.withUnsafeMutableBytes { pread(journalDescriptor, $0.baseAddress, size, off_t(original)) }
            guard read == size else { throw FileSystem.ioError("read", path + "-journal") }
            stored = buffer[...]
        } else {
            let read = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, size, off_t(start)) }
            // A page the log says the database has, beyond the end of the file, is lost.
            guard read == size else {
                if read >= 0 && Int64(start) >= FileSystem.size(path) {
                    lostPages.insert(number)
                    return nil
                }
                throw FileSystem.ioError("read", path)
            }
            stored = buffer[...]
        }
        guard let cipher else {
            readPages.insert(number)
            return Array(stored)
        }
        guard let page = try cipher.decrypt(stored, number: number) else {
            lostPages.insert(number)
            return nil
        }
        readPages.insert(number)
        return page
    }

    /// The whole payload of a cell: its local part and its overflow chain, or `nil` when a
    /// page of the chain is lost (then ``lastPayloadLostAPage`` is true), the chain loops,
    /// runs into another cell's chain, or is longer than the file. Each overflow page read is
    /// passed to `visit`.
    ///
    /// An overflow page belongs to one cell: the first cell whose chain reaches it keeps it,
    /// and any other cell's chain that reaches it is damage. So every chain is walked once,
    /// however many cells of a hostile file point into it.
    func payload(of cell: BTreePage.Cell, visit: (UInt32) -> Void) throws -> [UInt8]? {
        lastPayloadLostAPage = false
        guard cell.local.count < cell.payloadSize else { return Array(cell.local) }
        // Each overflow page holds less than a page: a longer payload is not in this file.
        guard cell.payloadSize - cell.local.count <= pageCount * pageSize else { return nil }
        var payload = Array(cell.local)
        payload.reserveCapacity(min(cell.payloadSize, 1 << 20))
        var next = cell.firstOverflowPage
        var seen = Set<UInt32>()
        while payload.count < cell.payloadSize {
            guard next != 0, seen.insert(next).inserted else { return nil }
            if let owner = overflowOwners[next], owner != cell.slot { return nil }
            overflowOwners[next] = cell.slot
            guard let page = try page(next) else {
                lastPayloadLostAPage = lostPages.contains(next)
                return nil
            }
            guard page.count > 4 else { return nil }
            overflowPagesRead += 1
            visit(next)
            let wanted = min(cell.payloadSize - payload.count, page.count - 4)
            payload += page[4..<(4 + wanted)]
            next = BTreePage.uint32(page, at: 0)
        }
        return payload
    }
}
