import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the pages of an encrypted database file one at a time, each checked against its
/// HMAC and decrypted on its own, keeping track of which pages could not be read.
final class EncryptedPageReader {
    let path: String
    let cipher: PageCipher
    /// Whole pages in the file.
    let pageCount: Int
    /// Pages whose HMAC did not match (or that the file is too short to hold).
    private(set) var lostPages = Set<UInt32>()
    /// Pages read intact at least once.
    private(set) var readPages = Set<UInt32>()
    private let descriptor: Int32
    private var buffer: [UInt8]

    init(path: String, cipher: PageCipher) throws {
        self.path = path
        self.cipher = cipher
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileSystem.ioError("open", path) }
        pageCount = Int(FileSystem.size(path) / Int64(cipher.pageSize))
        buffer = [UInt8](repeating: 0, count: cipher.pageSize)
    }

    deinit {
        close(descriptor)
    }

    /// The decrypted page (its usable part), or `nil` when it is lost or beyond the file.
    func page(_ number: UInt32) throws -> [UInt8]? {
        guard number >= 1, Int(number) <= pageCount else {
            if number >= 1 { lostPages.insert(number) }
            return nil
        }
        let size = cipher.pageSize
        let read = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, size, off_t(Int(number - 1) * size)) }
        guard read == size else { throw FileSystem.ioError("read", path) }
        guard let page = try cipher.decrypt(buffer[...], number: number) else {
            lostPages.insert(number)
            return nil
        }
        readPages.insert(number)
        return page
    }
}
