import Foundation

/// Runs a whole-file operation (a conversion, a backup, a key-slot change) for an `async`
/// caller on a thread of its own, so that minutes of file work never hold one of the few
/// threads of Swift's cooperative pool, and turns Task cancellation into the operation's own
/// ``DatabaseFileCancellation``.
///
/// - A task already cancelled when the call is made gets `CancellationError`; nothing runs.
/// - A task cancelled while the operation runs cancels it at its next check: the operation
///   throws what it throws when cancelled (``DatabaseFileError/cancelled``, with nothing changed),
///   or, when it has no cancellation point, runs to its end.
enum ConversionThread {
    /// Runs `body` on a new thread with `options` whose cancellation the task's cancellation
    /// sets (a new one when `options` has none; one given is set too).
    static func run<T: Sendable>(options: DatabaseFileOptions = DatabaseFileOptions(),
                                 _ body: @escaping @Sendable (DatabaseFileOptions) throws -> T) async throws -> T {
        try Task.checkCancellation()
        return try await cancellingWithTask(options) { options in
            try await withCheckedThrowingContinuation { continuation in
                Thread {
                    continuation.resume(with: Result { try body(options) })
                }.start()
            }
        }
    }

    /// Runs `body` with `options` whose cancellation the calling task's cancellation sets (a
    /// new one when `options` has none; one given is set too).
    static func cancellingWithTask<T>(_ options: DatabaseFileOptions,
                                      _ body: (DatabaseFileOptions) async throws -> T) async throws -> T {
        var options = options
        let cancellation = options.cancellation ?? DatabaseFileCancellation()
        options.cancellation = cancellation
        return try await withTaskCancellationHandler {
            try await body(options)
        } onCancel: {
            cancellation.cancel()
        }
    }
}
