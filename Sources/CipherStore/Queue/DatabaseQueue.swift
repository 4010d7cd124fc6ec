import Dispatch
import Foundation

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
/// The synchronous methods block the calling thread until the block has run; the `async`
/// ones (``read(_:)``, ``write(_:)``, ``asyncTransaction(_:_:)``) suspend instead, so they
/// never block the caller's thread. Calling the queue again from inside one of its own blocks
/// throws ``CipherStoreError/reentrantQueueAccess`` instead of deadlocking, also through other
/// queues (`a.inDatabase { b.inDatabase { a.inDatabase { … } } }`).
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

    /// Runs `block` with the connection without blocking the caller's thread.
    ///
    /// No transaction is opened: use it for reads, or for writes that manage their own.
    public func read<T: Sendable>(_ block: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            dispatchQueue.async {
                // A block run later starts a chain of its own: nobody waits for it.
                let result = QueueChain.with([ObjectIdentifier(self)]) { Result { try block(self.connection) } }
                continuation.resume(with: result)
            }
        }
    }

    /// Runs `block` in an immediate transaction without blocking the caller's thread: committed
    /// when the block returns, rolled back when it throws.
    public func write<T: Sendable>(_ block: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await read { db in
            var result: T?
            try db.inTransaction(.immediate) {
                result = try block(db)
                return .commit
            }
            return result!
        }
    }

    /// Runs `block` in a transaction without blocking the caller's thread. See
    /// ``inTransaction(_:_:)``.
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
