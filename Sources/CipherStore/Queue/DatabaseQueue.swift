import Dispatch
import Foundation
import Synchronization

/// The shared entry point to a database: one connection, every access serialized, in the
/// manner of FMDB's `FMDatabaseQueue`.
///
/// ```swift
/// let queue = try DatabaseQueue(path: "app.db", key: .passphrase("s3cret passphrase"))
/// try queue.inTransaction { db in
///     try db.execute(sql: "INSERT INTO note(body) VALUES (?)", arguments: ["hi"])
///     return .commit
/// }
/// let count = try await queue.read { db in try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM note") }
/// ```
///
/// `read` and `write` come in two forms with the same rules: the synchronous ones block the
/// calling thread until the block has run and return its value; the `async` ones (and
/// ``asyncTransaction(_:_:)``) suspend instead, so they never block the caller's thread, and
/// honour Task cancellation until the block starts: a task cancelled before its block runs
/// (also while it waits for the queue) gets `CancellationError` and its block never runs; a
/// block that has started runs to its end. Calling the queue again from inside one of its own
/// blocks throws ``CipherStoreError/reentrantQueueAccess`` instead of deadlocking, also
/// through other queues (`a.inDatabase { b.inDatabase { a.inDatabase { … } } }`).
///
/// ```swift
/// let id = try queue.write { db in                      // synchronous, in a transaction
///     try db.execute(sql: "INSERT INTO note(body) VALUES (?)", arguments: ["hi"])
///     return db.lastInsertedRowID
/// }
/// let body = try queue.read { db in try db.fetchScalar(String.self, sql: "SELECT body FROM note") }
/// ```
///
/// Inside an `async` function, `try await queue.read { … }` is the `async` form. Top-level
/// code (`main.swift`) is not an `async` context when Swift picks an overload, so there it is
/// the synchronous form, and Swift warns that the `await` does nothing.
///
/// After ``close()``, blocks still run, and the connection they receive throws
/// ``CipherStoreError/connectionClosed`` from every method that reaches the database.
public final class DatabaseQueue: @unchecked Sendable {
    // @unchecked Sendable: `connection` is touched only by blocks running on the serial
    // `dispatchQueue`, so it is never used from two threads at once; the other properties
    // are immutable.
    private let connection: Connection
    private let dispatchQueue: DispatchQueue

    /// Opens a database and wraps its connection in a queue.
    ///
    /// - Parameters:
    ///   - location: a file path, in-memory or temporary.
    ///   - key: the key, or `nil` for a plaintext database.
    ///   - configuration: cipher settings, read-only mode, busy timeout…
    /// - Throws: the errors of ``Connection/init(location:key:configuration:)``.
    public init(location: DatabaseLocation, key: DatabaseKey?, configuration: Configuration = Configuration()) throws {
        connection = try Connection(location: location, key: key, configuration: configuration)
        dispatchQueue = DispatchQueue(label: "CipherStore.DatabaseQueue")
    }

    /// Opens a database file. See ``init(location:key:configuration:)``.
    public convenience init(path: String, key: DatabaseKey?, configuration: Configuration = Configuration()) throws {
        try self.init(location: .file(path), key: key, configuration: configuration)
    }

    /// Where the database lives.
    public var location: DatabaseLocation { connection.location }

    /// Runs `block` with the connection, serialized with every other block of this queue,
    /// and returns its result. Blocks the calling thread.
    /// - Throws: the block's error, or ``CipherStoreError/reentrantQueueAccess`` when the
    ///   calling thread is already inside a block of this queue, directly or through others.
    public func inDatabase<T>(_ block: (Connection) throws -> T) throws -> T {
        let chain = QueueChain.current
        let identifier = ObjectIdentifier(self)
        guard !chain.contains(identifier) else {
            throw CipherStoreError.reentrantQueueAccess
        }
        return try dispatchQueue.sync {
            try QueueChain.with(chain + [identifier]) { try block(connection) }
        }
    }

    /// Runs `block` in a transaction: committed when it returns `.commit`, rolled back when it
    /// returns `.rollback` or throws. See ``Connection/inTransaction(_:_:)``.
    public func inTransaction(_ kind: TransactionKind = .deferred, _ block: (Connection) throws -> TransactionCompletion) throws {
        try inDatabase { db in
            try db.inTransaction(kind) { try block(db) }
        }
    }

    /// Runs `block` with the connection and returns its result. Blocks the calling thread.
    ///
    /// No transaction is opened: use it for reads, or for writes that manage their own (as
    /// the `async` `read` does).
    /// - Throws: the block's error, or ``CipherStoreError/reentrantQueueAccess`` from inside
    ///   a block of this queue.
    public func read<T>(_ block: (Connection) throws -> T) throws -> T {
        try inDatabase(block)
    }

    /// Runs `block` in an immediate transaction and returns its result: committed when the
    /// block returns, rolled back when it throws. Blocks the calling thread.
    /// - Throws: the block's error (after the rollback), ``DatabaseError`` when the commit
    ///   fails, or ``CipherStoreError/reentrantQueueAccess`` from inside a block of this queue.
    public func write<T>(_ block: (Connection) throws -> T) throws -> T {
        try inDatabase { db in try Self.inImmediateTransaction(db, block) }
    }

    /// Runs `block` with the connection without blocking the caller's thread.
    ///
    /// No transaction is opened: use it for reads, or for writes that manage their own.
    /// - Throws: `CancellationError` when the task is cancelled before the block starts (the
    ///   block does not run then), or the block's error.
    public func read<T: Sendable>(_ block: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try Task.checkCancellation()
        let cancelled = CancellationFlag()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                dispatchQueue.async {
                    // Cancelled while waiting for the queue: the block never starts.
                    guard !cancelled.isSet else {
                        continuation.resume(throwing: CancellationError())
                        return
                    }
                    // A block run later starts a chain of its own: nobody waits for it.
                    let result = QueueChain.with([ObjectIdentifier(self)]) { Result { try block(self.connection) } }
                    continuation.resume(with: result)
                }
            }
        } onCancel: {
            cancelled.set()
        }
    }

    /// Runs `block` in an immediate transaction without blocking the caller's thread: committed
    /// when the block returns, rolled back when it throws.
    /// - Throws: `CancellationError` when the task is cancelled before the block starts (the
    ///   block does not run then), the block's error, or ``DatabaseError`` when the commit fails.
    public func write<T: Sendable>(_ block: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await read { db in try Self.inImmediateTransaction(db, block) }
    }

    /// Set by the task's cancellation handler, read by the block about to run on the queue.
    private final class CancellationFlag: Sendable {
        private let flag = Atomic<Bool>(false)
        var isSet: Bool { flag.load(ordering: .acquiring) }
        func set() { flag.store(true, ordering: .releasing) }
    }

    private static func inImmediateTransaction<T>(_ db: Connection, _ block: (Connection) throws -> T) throws -> T {
        var result: T?
        try db.inTransaction(.immediate) {
            result = try block(db)
            return .commit
        }
        return result!
    }

    /// Runs `block` in a transaction without blocking the caller's thread. See
    /// ``inTransaction(_:_:)``.
    /// - Throws: `CancellationError` when the task is cancelled before the block starts (the
    ///   block does not run then), or the errors of ``inTransaction(_:_:)``.
    public func asyncTransaction(_ kind: TransactionKind = .deferred,
                                 _ block: @escaping @Sendable (Connection) throws -> TransactionCompletion) async throws {
        try await read { db in
            try db.inTransaction(kind) { try block(db) }
        }
    }

    /// Closes the connection. Later use of the connection throws
    /// ``CipherStoreError/connectionClosed``; closing again does nothing.
    /// - Throws: ``DatabaseError`` (`SQLITE_BUSY`) while statements or cursors made from the
    ///   connection are still alive.
    public func close() throws {
        try inDatabase { try $0.close() }
    }
}
