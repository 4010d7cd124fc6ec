import Foundation

/// The shared entry point to a database: one connection, every access serialized, in the
/// manner of FMDB's `FMDatabaseQueue`. For reads that run in parallel, see ``DatabasePool``.
///
/// ```swift
/// let queue = try DatabaseQueue(path: "app.db", key: .passphrase("s3cret passphrase"))
/// try await queue.inTransaction { db in
///     try db.execute(sql: "INSERT INTO note(body) VALUES (?)", arguments: ["hi"])
///     return .commit
/// }
/// let count = try await queue.read { db in try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM note") }
/// ```
///
/// - `read` runs its block in a read-only transaction: one snapshot, and a write inside fails
///   with ``CipherStoreError/writeInsideRead(sql:)``.
/// - `write` runs its block in an immediate transaction, committed when the block returns.
/// - `inTransaction` runs its block in a transaction that the block ends: committed when it
///   returns `.commit`, rolled back when it returns `.rollback` or throws.
/// - `inDatabase` (and `writeWithoutTransaction(_:)`) runs its block with no
///   transaction at all, for blocks that manage their own.
///
/// Each comes in two forms with the same rules: the synchronous ones block the calling thread
/// until the block has run and return its value; the `async` ones (and
/// ``transaction(_:_:)``) suspend instead, so they never block the caller's thread, and honour
/// Task cancellation: a task cancelled before its block runs (also while it waits for the
/// queue) gets `CancellationError` and its block never runs; a task cancelled while its block
/// runs interrupts the statement running and refuses those the block starts afterwards, and
/// gets `CancellationError` (a write is rolled back). The queue's own statements around the
/// block (`BEGIN`, `COMMIT`, `ROLLBACK`) are never interrupted, and a cancellation that comes
/// after the block ended reaches no other block. To stop whatever runs, from any thread, call
/// ``interrupt()``. Calling the queue again from inside one of its own
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
/// Inside an `async` function, `try await queue.read { … }` is the `async` form; the blocking
/// forms are unavailable from `async` code. Top-level code (`main.swift`) is not an `async`
/// context when Swift picks an overload, so there `try await queue.read { … }` picks the
/// blocking form and fails to compile, with a message that says to move the code into an
/// `async` function.
///
/// After ``close()``, blocks still run, and the connection they receive throws
/// ``CipherStoreError/connectionClosed`` from every method that reaches the database.
public final class DatabaseQueue: DatabaseWriter {
    private let serial: SerialConnection
    let observations: ObservationCenter
    private let corruption: CorruptionWatch
    private let schemaCopy: SchemaCopyKeeper?

    /// Where the database lives.
    public let location: DatabaseLocation

    /// Opens a database and wraps its connection in a queue.
    ///
    /// - Parameters:
    ///   - location: a file path, in-memory or temporary.
    ///   - key: the key, or `nil` for a plaintext database.
    ///   - configuration: cipher settings, read-only mode, busy timeout…
    /// - Throws: the errors of ``Connection/init(location:key:configuration:)``.
    public init(location: DatabaseLocation, key: DatabaseKey?, configuration: Configuration = Configuration()) throws {
        let connection = try Connection(location: location, key: key, configuration: configuration)
        corruption = CorruptionWatch(path: location.displayName)
        connection.handle.hooks.corruptionWatch = corruption
        self.location = location
        let schemaCopy = SchemaCopyKeeper(location: location, key: key, configuration: configuration)
        self.schemaCopy = schemaCopy
        serial = SerialConnection(connection, label: "CipherStore.DatabaseQueue", identity: AccessIdentity(),
                                  afterBlock: schemaCopy?.afterBlockHandler)
        observations = ObservationCenter(writer: serial, path: location.filePath)
    }

    /// Opens a database file. See ``init(location:key:configuration:)``.
    public convenience init(path: String, key: DatabaseKey?, configuration: Configuration = Configuration()) throws {
        try self.init(location: .file(path), key: key, configuration: configuration)
    }

    /// Sets the handler called once when SQLite reports the database damaged while it is in
    /// use. See ``DatabaseReader/onCorruption(_:)``.
    public func onCorruption(_ handler: @escaping @Sendable (DatabaseCorruption) -> Void) {
        corruption.setHandler(handler)
    }

    /// Runs `block` with the connection, serialized with every other block of this queue,
    /// without a transaction, and returns its result. Blocks the calling thread.
    /// - Throws: the block's error, or ``CipherStoreError/reentrantQueueAccess`` when the
    ///   calling thread is already inside a block of this queue, directly or through others.
    @available(*, noasync, message: "this form blocks the thread: in async code, `try await` the async form; in top-level code, where Swift picks this form even after await, move the code into an async function")
    public func inDatabase<T>(_ block: (Connection) throws -> T) throws -> T {
        try serial.sync(block)
    }

    /// Runs `block` in a transaction: committed when it returns `.commit`, rolled back when it
    /// returns `.rollback` or throws. Blocks the calling thread. See
    /// ``Connection/inTransaction(_:_:)``.
    /// - Throws: the block's error (after the rollback), ``DatabaseError`` when `BEGIN` or the
    ///   commit fails, or ``CipherStoreError/reentrantQueueAccess`` from inside a block of this
    ///   queue.
    @available(*, noasync, message: "this form blocks the thread: in async code, `try await` the async form; in top-level code, where Swift picks this form even after await, move the code into an async function")
    public func inTransaction(_ kind: TransactionKind = .deferred, _ block: (Connection) throws -> TransactionCompletion) throws {
        try inDatabase { db in
            try db.inTransaction(kind) { try block(db) }
        }
    }

    /// Runs `block` with the connection, with no transaction, without blocking the caller's
    /// thread, and returns its result.
    ///
    /// ```swift
    /// try await queue.inDatabase { db in try db.execute(sql: "VACUUM") }
    /// ```
    /// - Throws: `CancellationError` when the task is cancelled before the block starts (the
    ///   block does not run then) or while it runs (its statement is interrupted), or the block's error.
    public func inDatabase<T: Sendable>(_ block: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await serial.async { db in try db.interruptibly(block) }
    }

    /// Runs `block` in a transaction without blocking the caller's thread: committed when it
    /// returns `.commit`, rolled back when it returns `.rollback` or throws. The same as
    /// ``transaction(_:_:)``.
    ///
    /// ```swift
    /// try await queue.inTransaction { db in
    ///     try db.execute(sql: "INSERT INTO note(body) VALUES (?)", arguments: ["hi"])
    ///     return .commit
    /// }
    /// ```
    /// - Throws: `CancellationError` when the task is cancelled before the block starts (the
    ///   block does not run then) or while it runs (its statement is interrupted), the block's error (after the rollback), or ``DatabaseError``
    ///   when `BEGIN` or the commit fails.
    public func inTransaction(_ kind: TransactionKind = .deferred,
                              _ block: @escaping @Sendable (Connection) throws -> TransactionCompletion) async throws {
        try await transaction(kind, block)
    }

    /// Runs `block` in a read-only transaction and returns its result. Blocks the calling
    /// thread.
    ///
    /// The block sees one snapshot of the database; a statement in it that would write fails
    /// with ``CipherStoreError/writeInsideRead(sql:)`` and changes nothing. To run a block
    /// without a transaction, use ``inDatabase(_:)-56rhb``.
    /// - Throws: the block's error, ``CipherStoreError/writeInsideRead(sql:)``, or
    ///   ``CipherStoreError/reentrantQueueAccess`` from inside a block of this queue.
    @available(*, noasync, message: "this form blocks the thread: in async code, `try await` the async form; in top-level code, where Swift picks this form even after await, move the code into an async function")
    public func read<T>(_ block: (Connection) throws -> T) throws -> T {
        try inDatabase { db in try db.inReadOnlyTransaction(block) }
    }

    /// Runs `block` in an immediate transaction and returns its result: committed when the
    /// block returns, rolled back when it throws. Blocks the calling thread.
    /// - Throws: the block's error (after the rollback), ``DatabaseError`` when the commit
    ///   fails, or ``CipherStoreError/reentrantQueueAccess`` from inside a block of this queue.
    @available(*, noasync, message: "this form blocks the thread: in async code, `try await` the async form; in top-level code, where Swift picks this form even after await, move the code into an async function")
    public func write<T>(_ block: (Connection) throws -> T) throws -> T {
        try inDatabase { db in try db.inImmediateTransaction(block) }
    }

    /// The same as ``inDatabase(_:)-56rhb``: the block runs with no transaction.
    @available(*, noasync, message: "this form blocks the thread: in async code, `try await` the async form; in top-level code, where Swift picks this form even after await, move the code into an async function")
    public func writeWithoutTransaction<T>(_ block: (Connection) throws -> T) throws -> T {
        try inDatabase(block)
    }

    /// Runs `block` in a read-only transaction without blocking the caller's thread. See
    /// ``read(_:)-(_)``.
    /// - Throws: `CancellationError` when the task is cancelled before the block starts (the
    ///   block does not run then) or while it runs (its statement is interrupted), the block's error, or
    ///   ``CipherStoreError/writeInsideRead(sql:)``.
    public func read<T: Sendable>(_ block: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await serial.async { db in try db.inReadOnlyTransaction(block) }
    }

    /// Runs `block` in an immediate transaction without blocking the caller's thread: committed
    /// when the block returns, rolled back when it throws.
    /// - Throws: `CancellationError` when the task is cancelled before the block starts (the
    ///   block does not run then) or while it runs (its statement is interrupted), the block's error, or ``DatabaseError`` when the commit fails.
    public func write<T: Sendable>(_ block: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await serial.async { db in try db.inImmediateTransaction(block) }
    }

    /// Runs `block` with no transaction without blocking the caller's thread.
    /// - Throws: `CancellationError` when the task is cancelled before the block starts (the
    ///   block does not run then) or while it runs (its statement is interrupted), or the block's error.
    public func writeWithoutTransaction<T: Sendable>(_ block: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await serial.async { db in try db.interruptibly(block) }
    }

    /// Runs `block` in a transaction without blocking the caller's thread. See
    /// ``inTransaction(_:_:)-6371p``.
    ///
    /// ```swift
    /// try await queue.transaction(.immediate) { db in
    ///     try db.execute(sql: "DELETE FROM note")
    ///     return .commit
    /// }
    /// ```
    /// - Throws: `CancellationError` when the task is cancelled before the block starts (the
    ///   block does not run then) or while it runs (its statement is interrupted), or the errors of ``inTransaction(_:_:)-6371p``.
    public func transaction(_ kind: TransactionKind = .deferred,
                            _ block: @escaping @Sendable (Connection) throws -> TransactionCompletion) async throws {
        try await serial.async { db in
            try db.inTransaction(kind) { try block(db) }
        }
    }

    /// Stops the statement running on the queue's connection now, from any thread: it fails
    /// with a ``DatabaseError`` of code `SQLITE_INTERRUPT`. See ``DatabaseReader/interrupt()``.
    public func interrupt() {
        serial.interrupt()
    }

    /// Closes the connection, after bringing the database's schema copy up to date (see
    /// ``Configuration/schemaCopy``). Later use of the connection throws
    /// ``CipherStoreError/connectionClosed``; closing again does nothing.
    /// - Throws: ``CipherStoreError/statementsStillAlive`` while statements or cursors made
    ///   from the connection are still alive.
    public func close() throws {
        try inDatabase { db in
            observations.finishAll()
            schemaCopy?.beforeClose(db)
            try db.close()
        }
    }

    /// Observes the value of `fetch`: the current value first, then a fresh one after each
    /// committed transaction that changed a table `fetch` read.
    ///
    /// ```swift
    /// for try await notes in queue.observe({ db in try db.fetchAll(Note.self, sql: "SELECT * FROM note") }) {
    ///     show(notes)
    /// }
    /// ```
    ///
    /// Fetches run on the queue's connection in a read-only transaction, after the blocks
    /// already queued. See ``DatabaseObservation`` for what counts as a change and when the
    /// observation ends.
    public func observe<Value: Sendable>(_ fetch: @escaping @Sendable (Connection) throws -> Value) -> DatabaseObservation<Value> {
        observations.observation(of: fetch) { [serial] body, _ in
            serial.enqueue(body)
        }
    }
}
