/// Something that stops an observation when cancelled.
public protocol DatabaseCancellable: Sendable {
    /// Stops the observation; cancelling again does nothing.
    func cancel()
}

/// Stops an observation when cancelled or released: keep it as long as the observation
/// should run.
///
/// ```swift
/// let cancellable = observation.start(in: queue, onError: { print($0) }, onChange: { _ in reload() })
/// // later
/// cancellable.cancel()
/// ```
public final class AnyDatabaseCancellable: DatabaseCancellable {
    private let onCancel = Locked<(@Sendable () -> Void)?>(nil)

    /// A cancellable that calls `cancel` once, when cancelled or released.
    public init(cancel: @escaping @Sendable () -> Void) {
        onCancel.withLock { $0 = cancel }
    }

    /// Calls the `cancel` closure of another cancellable.
    public convenience init(_ cancellable: some DatabaseCancellable) {
        self.init(cancel: cancellable.cancel)
    }

    deinit {
        cancel()
    }

    public func cancel() {
        let cancel = onCancel.withLock { onCancel in
            defer { onCancel = nil }
            return onCancel
        }
        cancel?()
    }
}
