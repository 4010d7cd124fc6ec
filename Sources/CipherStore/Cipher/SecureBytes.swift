/// One heap buffer for secret bytes, wiped before it is freed.
///
/// Key material lives here and nowhere else inside CipherStore: it is never turned into a
/// `String`, so no copy escapes the wipe.
final class SecureBytes: @unchecked Sendable {
    // Sendable: the buffer is written once in `init` and only read afterwards; it is wiped
    // and freed in `deinit`, when no other reference can exist.
    private let buffer: UnsafeMutableRawBufferPointer

    /// Allocates `count` bytes and lets `fill` write them. `fill` must write every byte.
    init(count: Int, fill: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        buffer = .allocate(byteCount: max(count, 1), alignment: 16)
        do {
            try fill(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]))
        } catch {
            SecureMemory.wipe(buffer)
            buffer.deallocate()
            throw error
        }
        self.count = count
    }

    let count: Int

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
    }

    deinit {
        SecureMemory.wipe(buffer)
        buffer.deallocate()
    }
}
