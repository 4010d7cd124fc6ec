import Dispatch
import Foundation

/// Work started on another thread and collected later. A conversion overlaps independent
/// steps on a second core: counting the source's rows while the export runs, syncing the
/// result while a fresh connection checks it; a key-slot change derives the new key while the
/// old one is checked.
///
/// Always collect the value (or let ``wait()`` run in a `defer`), so no work outlives the
/// conversion that started it.
final class BackgroundWork<Value: Sendable>: @unchecked Sendable {
    // Written once by the worker before `done` is signalled, read only after waiting on it.
    private var outcome: Result<Value, any Error>?
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()

    init(_ work: @escaping @Sendable () throws -> Value) {
        DispatchQueue.global(qos: .userInitiated).async {
            let result = Result { try work() }
            self.lock.withLock { self.outcome = result }
            self.done.signal()
        }
    }

    /// Waits for the work; returns its value or throws its error. Callable more than once.
    func value() throws -> Value {
        wait()
        return try lock.withLock { outcome! }.get()
    }

    /// Waits for the work, ignoring its outcome.
    func wait() {
        done.wait()
        done.signal()
    }
}
