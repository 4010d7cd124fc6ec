import Dispatch

/// One connection whose every use is serialized on a dispatch queue: what a
/// ``DatabaseQueue`` is made of, and each connection of a ``DatabasePool``.
///
/// Blocks run with the re-entrancy chain (``QueueChain``) of their caller plus `owner`, the
/// identity of the queue or pool the connection belongs to, so calling the same queue or pool
/// again from inside one of its blocks throws ``CipherStoreError/reentrantQueueAccess``
/// instead of deadlocking.
final class SerialConnection: @unchecked Sendable {
    // @unchecked Sendable: `connection` is read and replaced only by blocks running on the
    // serial `dispatchQueue`, so it is never used from two threads at once; `interrupter` is
    // behind a lock; the rest is immutable.
    private var connection: Connection
    /// The connection's interrupter, replaced with it: read from any thread.
    private let interrupter: Locked<ConnectionInterrupter>
    private let dispatchQueue: DispatchQueue
    /// The queue or pool this connection serves; kept alive so that its identifier in the
    /// re-entrancy chain is never reused while the connection exists.
    let identity: AccessIdentity
    var owner: ObjectIdentifier { ObjectIdentifier(identity) }
    /// Runs after each block of ``sync(_:)`` and ``async(_:)``, on the connection's queue,
    /// even when the block threw (the writer's schema copy, see ``SchemaCopyKeeper``).
    private let afterBlock: (@Sendable (Connection) -> Void)?

    init(_ connection: Connection, label: String, identity: AccessIdentity, afterBlock: (@Sendable (Connection) -> Void)? = nil) {
        self.connection = connection
        self.interrupter = Locked(connection.handle.interrupter)
        self.dispatchQueue = DispatchQueue(label: label)
        self.identity = identity
        self.afterBlock = afterBlock
    }

    /// Runs `block` with the connection and returns its result. Blocks the calling thread.
    /// - Throws: the block's error, or ``CipherStoreError/reentrantQueueAccess`` when the
    ///   calling thread is already inside a block of the owner.
    func sync<T>(_ block: (Connection) throws -> T) throws -> T {
        let chain = try QueueChain.enter(owner)
        return try dispatchQueue.sync {
            defer { afterBlock?(connection) }
            return try QueueChain.with(chain) { try block(connection) }
        }
    }

    /// Runs `block` with the connection without blocking the caller's thread.
    /// - Throws: `CancellationError` when the task is cancelled before the block starts (the
    ///   block does not run then) or while it runs (its statement is interrupted), or the block's error.
    ///
    /// The block runs with the task's cancellation in effect: the caller's block inside it
    /// passed to ``Connection/interruptibly(_:)`` (directly, or through a transaction helper)
    /// is interrupted when the task is cancelled.
    func async<T: Sendable>(_ block: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await AsyncBridge.run(on: dispatchQueue) { cancelled in
            try cancelled.check()
            defer { self.afterBlock?(self.connection) }
            // A block run later starts a chain of its own: nobody waits for it.
            return try QueueChain.with([self.owner]) {
                try self.connection.withTaskCancellation(cancelled) { try block(self.connection) }
            }
        }
    }

    /// Interrupts the statements running on the connection now, from any thread.
    func interrupt() {
        interrupter.withLock { $0 }.interrupt()
    }

    /// Runs `block` with the connection later, after every block already queued, without
    /// waiting for it (observation fetches, hook installation).
    func enqueue(_ block: @escaping @Sendable (Connection) -> Void) {
        dispatchQueue.async {
            QueueChain.with([self.owner]) { block(self.connection) }
        }
    }

    /// Replaces the connection with the one `body` returns (a pool reopening after a key
    /// change), on the connection's queue, when the caller already checked re-entrancy.
    func syncReplacing(chain: [ObjectIdentifier], _ body: (Connection) throws -> Connection) throws {
        try dispatchQueue.sync {
            try QueueChain.with(chain) {
                connection = try body(connection)
                let replacement = connection.handle.interrupter
                interrupter.withLock { $0 = replacement }
            }
        }
    }

    /// Runs `block` on the connection's queue, on the calling thread's behalf, when the caller
    /// already checked re-entrancy (the pool, which checks once for all its connections).
    func syncChecked<T>(chain: [ObjectIdentifier], _ block: (Connection) throws -> T) rethrows -> T {
        try dispatchQueue.sync {
            try QueueChain.with(chain) { try block(connection) }
        }
    }
}

/// The identity of one queue or pool in the re-entrancy chain (``QueueChain``), shared by all
/// its connections.
final class AccessIdentity: Sendable {}
