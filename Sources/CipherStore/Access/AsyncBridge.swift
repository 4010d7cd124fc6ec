import Dispatch
import Synchronization

/// Runs blocking work on a dispatch queue and suspends the calling task until it is done, so
/// an `async` caller's thread is never blocked.
///
/// Task cancellation is honoured until the work starts its block: the work receives the
/// cancellation flag and calls ``CancellationFlag/check()`` right before it runs the caller's
/// block (after any wait for a connection), so a task cancelled while it waits gets
/// `CancellationError` and its block never runs. A block that has started runs to its end.
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

/// Set by a task's cancellation handler, read by the work about to run its block.
final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    var isSet: Bool { flag.load(ordering: .acquiring) }

    func set() { flag.store(true, ordering: .releasing) }

    /// Throws `CancellationError` when the task was cancelled.
    func check() throws {
        if isSet { throw CancellationError() }
    }
}
