import Synchronization

/// A flag to stop a running whole-file operation from another thread; the source stays
/// untouched and the partial output is removed.
///
/// ```swift
/// let cancellation = DatabaseFileCancellation()
/// // on another thread: cancellation.cancel()
/// ```
public final class DatabaseFileCancellation: Sendable {
    private let flag = Atomic<Bool>(false)

    /// A flag not yet set.
    public init() {}

    /// Asks the conversion to stop at its next check (within milliseconds).
    public func cancel() { flag.store(true, ordering: .relaxed) }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { flag.load(ordering: .relaxed) }
}
