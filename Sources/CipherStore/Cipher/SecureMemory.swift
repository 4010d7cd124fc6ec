#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Zeroing of memory that held key material, in a way the optimizer may not remove:
/// `explicit_bzero` on Linux, `memset_s` on Apple platforms. The one wipe, for the library and
/// the `cipherstore` tool.
@_spi(Tools)
public enum SecureMemory {
    /// Zeroes `buffer`.
    public static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        #if canImport(Glibc)
        explicit_bzero(base, buffer.count)
        #else
        _ = memset_s(base, buffer.count, 0, buffer.count)
        #endif
    }

    /// Zeroes the bytes of an array that held a secret.
    public static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { wipe($0) }
    }
}
