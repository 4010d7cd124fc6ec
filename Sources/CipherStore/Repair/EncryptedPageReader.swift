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
    /// The committed frames of the database's WAL file, read before the file's own pages.
    let wal: WALIndex?
    private let walDescriptor: Int32

    init(path: String, cipher: PageCipher) throws {
        self.path = path
        self.cipher = cipher
        pageSize = cipher.pageSize
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileSystem.ioError("open", path) }
        wal = WALIndex(path: path + "-wal", pageSize: cipher.pageSize)
        walDescriptor = wal == nil ? -1 : open(path + "-wal", O_RDONLY | O_CLOEXEC)
        // After a commit in the log, the database has the size the commit gave it.
        pageCount = wal?.pageCount ?? Int(FileSystem.size(path) / Int64(cipher.pageSize))
        buffer = [UInt8](repeating: 0, count: cipher.pageSize)
        image = nil
    }

    /// Pages held in memory: encrypted with `cipher`, or with none, decrypted already.
    init(image: [UInt8], pageSize: Int, cipher: PageCipher?) {
        path = ":image:"
        self.cipher = cipher
        self.pageSize = pageSize
        descriptor = -1
        pageCount = image.count / pageSize
        buffer = []
        self.image = image
        wal = nil
        walDescriptor = -1
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if walDescriptor >= 0 { close(walDescriptor) }
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
            stored = image[start..<(start + size)]
        } else if let frame = wal?.frames[number], walDescriptor >= 0 {
            let read = buffer.withUnsafeMutableBytes { pread(walDescriptor, $0.baseAddress, size, off_t(frame)) }
            guard read == size else { throw FileSystem.ioError("read", path + "-wal") }
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
    /// page of the chain is lost or the chain loops. Each overflow page read is passed to `visit`.
    func payload(of cell: BTreePage.Cell, visit: (UInt32) -> Void) throws -> [UInt8]? {
        guard cell.local.count < cell.payloadSize else { return Array(cell.local) }
        var payload = Array(cell.local)
        payload.reserveCapacity(cell.payloadSize)
        var next = cell.firstOverflowPage
        var seen = Set<UInt32>()
        while payload.count < cell.payloadSize {
            guard next != 0, seen.insert(next).inserted, let page = try page(next), page.count > 4 else { return nil }
            visit(next)
            let wanted = min(cell.payloadSize - payload.count, page.count - 4)
            payload += page[4..<(4 + wanted)]
            next = BTreePage.uint32(page, at: 0)
        }
        return payload
    }
}
