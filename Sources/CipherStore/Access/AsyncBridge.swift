import Dispatch

/// Runs blocking work on a dispatch queue and suspends the calling task until it is done, so
/// an `async` caller's thread is never blocked.
///
/// Task cancellation is honoured before and during the caller's block: the work receives the
/// cancellation flag and calls ``CancellationFlag/check()`` right before it runs the block
/// (after any wait for a connection), so a task cancelled while it waits gets
/// `CancellationError` and its block never runs; a task cancelled while its block runs
/// interrupts the block's statements (``Connection/interruptibly(_:)``).
enum AsyncBridge {
    ///
    /// The work always runs (a task already cancelled sets the flag at once), so whatever it
    /// was handed — a reader permit, say — is always given back by it.
    static func run<T: Sendable>(on queue: DispatchQueue,
                                 _ work: @escaping @Sendable (CancellationFlag) throws -> T) async throws -> T {
        let flag = CancellationFlag()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                queue.async {
                    continuation.resume(with: Result { try work(flag) })
                }
            }
        } onCancel: {
            flag.set()
        }
    }
}

/// Set by a task's cancellation handler, read by the work about to run its block, and acted
/// on by the block while it runs.
final class CancellationFlag: Sendable {
    private struct State {
        var isSet = false
        /// What a cancellation does while a block runs (interrupt its connection).
        var onCancel: (@Sendable () -> Void)?
    }

    private let state = Locked(State())

    var isSet: Bool { state.withLock { $0.isSet } }

    func set() {
        // Called under the lock: once `whileRunning` has returned, no `onCancel` can still run.
        state.withLock { state in
            state.isSet = true
            state.onCancel?()
        }
    }

    /// Throws `CancellationError` when the task was cancelled.
    func check() throws {
        if isSet { throw CancellationError() }
    }

    /// Runs `body`; a cancellation before or during it calls `onCancel` (once, on whichever
    /// thread cancels), and none after it returns.
    func whileRunning<T>(onCancel: @escaping @Sendable () -> Void, _ body: () throws -> T) rethrows -> T {
        state.withLock { state in
            state.onCancel = onCancel
            if state.isSet { onCancel() }
        }
        defer { state.withLock { $0.onCancel = nil } }
        return try body()
    }
}
