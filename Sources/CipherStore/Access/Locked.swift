import Foundation

/// A value behind a lock that ThreadSanitizer can follow, for state many threads contend for
/// (a pool's readers, observations).
///
/// `Synchronization.Mutex` on Linux hands a contended lock over in the kernel (a
/// priority-inheriting futex): ThreadSanitizer sees no synchronization there and reports races
/// that cannot happen, which would hide real ones in `make check-sanitizers`. `NSLock` is a
/// pthread mutex, which it follows.
final class Locked<Value: ~Copyable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is read and written only inside `withLock`, under `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: consuming Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
