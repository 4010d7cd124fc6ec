import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes read at offsets, from a file or from memory: the log and journal readers read one
/// frame or record at a time through it, so their memory does not grow with the file.
struct ByteSource {
    /// The number of bytes.
    let count: Int
    private let read: (_ offset: Int, _ count: Int) -> [UInt8]?

    /// The file at `path`, or `nil` when it cannot be opened. It stays open as long as the
    /// source is in use.
    init?(path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        let file = FileDescriptorBox(descriptor)
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        count = Int(status.st_size)
        read = { offset, count in
            var bytes = [UInt8](repeating: 0, count: count)
            let read = bytes.withUnsafeMutableBytes { pread(file.descriptor, $0.baseAddress, count, off_t(offset)) }
            return read == count ? bytes : nil
        }
    }

    /// Bytes in memory.
    init(bytes: [UInt8]) {
        count = bytes.count
        read = { offset, count in
            offset >= 0 && count >= 0 && offset + count <= bytes.count ? Array(bytes[offset..<(offset + count)]) : nil
        }
    }

    /// `count` bytes from `offset`, or `nil` past the end or on a read error.
    func bytes(at offset: Int, count: Int) -> [UInt8]? {
        read(offset, count)
    }

    /// Closes its descriptor when the last source using it is gone.
    private final class FileDescriptorBox {
        let descriptor: Int32
        init(_ descriptor: Int32) { self.descriptor = descriptor }
        deinit { close(descriptor) }
    }
}
