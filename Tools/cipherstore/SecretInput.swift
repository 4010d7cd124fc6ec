@_spi(Tools) import CipherStore
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Reading and wiping the bytes of keys, so that no copy outlives its use.
enum SecretInput {
    /// The most a key source may hold: a key is short, and `--key-file /dev/zero` must not
    /// fill memory.
    static let limit = 64 * 1024

    /// Everything `descriptor` gives until end of file, at most ``limit`` bytes. The buffer
    /// grows by copying into a larger one and wiping the old one, so no unwiped copy is left
    /// in freed memory.
    /// - Returns: `nil` when a read fails (`errno` says why; `EFBIG` past the limit).
    static func readAll(_ descriptor: Int32) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var count = 0
        while true {
            if count == buffer.count {
                var larger = [UInt8](repeating: 0, count: buffer.count * 2)
                for index in 0..<count { larger[index] = buffer[index] }
                wipe(&buffer)
                buffer = larger
            }
            let read = buffer.withUnsafeMutableBytes { bytes in
                Self.read(descriptor, bytes.baseAddress! + count, bytes.count - count)
            }
            if read == 0 { break }
            if read < 0 {
                if errno == EINTR { continue }
                wipe(&buffer)
                return nil
            }
            count += read
            if count > limit {
                wipe(&buffer)
                errno = EFBIG
                return nil
            }
        }
        // Shrinking keeps the storage: the bytes past `count` are zeros.
        buffer.removeSubrange(count...)
        return buffer
    }

    static func wipe(_ bytes: inout [UInt8]) {
        SecureMemory.wipe(&bytes)
    }

    private static func read(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        #if canImport(Darwin)
        Darwin.read(descriptor, buffer, count)
        #else
        Glibc.read(descriptor, buffer, count)
        #endif
    }
}
