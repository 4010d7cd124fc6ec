import CSQLCipher
import Synchronization

/// Stops a connection's running statements from any thread (`sqlite3_interrupt`), without
/// racing the connection's close.
///
/// SQLite allows `sqlite3_interrupt` from any thread, but not on a connection that is closed
/// or closing. The `sqlite3*` is therefore reachable here only under a lock that the close
/// takes too, and is forgotten once closed: an interrupt then does nothing. Queues and pools
/// keep this object, never the connection, to interrupt from other threads.
///
/// It also carries the cancellation of an `async` block (see
/// ``Connection/interruptibly(_:)``): once cancelled, statements that start are refused with
/// `SQLITE_INTERRUPT` until the block ends, so a block that goes on after an interrupted
/// statement, or that was between statements, stops at its next one.
final class ConnectionInterrupter: Sendable {
    private let pointer: Locked<OpaquePointer?>
    private let cancelled = Atomic<Bool>(false)

    init(_ pointer: OpaquePointer) {
        self.pointer = Locked(pointer)
    }

    /// Interrupts the statements running now; does nothing once the connection is closed.
    func interrupt() {
        pointer.withLock { pointer in
            if let pointer { sqlite3_interrupt(pointer) }
        }
    }

    /// Interrupts the running statement and refuses the next ones until ``endCancellation()``.
    func cancel() {
        cancelStatements()
        interrupt()
    }

    /// Refuses the statements that start from now on, until ``endCancellation()``.
    func cancelStatements() {
        cancelled.store(true, ordering: .releasing)
    }

    /// Lets statements start again, and tells whether they were refused.
    func takeCancellation() -> Bool {
        cancelled.exchange(false, ordering: .acquiringAndReleasing)
    }

    /// Whether statements are refused: the `async` block running was cancelled.
    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Lets statements start again, once the cancelled block has ended.
    func endCancellation() {
        cancelled.store(false, ordering: .releasing)
    }

    /// Runs `close` on the `sqlite3*` while no interrupt can run, and forgets the pointer
    /// when it returns `SQLITE_OK`.
    func closing(_ close: (OpaquePointer) -> Int32) -> Int32 {
        pointer.withLock { pointer in
            guard let open = pointer else { return SQLITE_OK }
            let code = close(open)
            if code == SQLITE_OK { pointer = nil }
            return code
        }
    }
}
