/// Something that gives read and write access to a database: a ``DatabaseQueue`` or a
/// ``DatabasePool``. ``DatabaseMigrator`` and app services take one, so they work on either.
///
/// ```swift
/// func addNote(_ body: String, to database: any DatabaseWriter) throws -> Int64 {
///     try database.write { db in
///         try db.execute(sql: "INSERT INTO note(body) VALUES (?)", arguments: [body])
///         return db.lastInsertedRowID
///     }
/// }
/// ```
///
/// Writes are serialized: one block at a time, on one connection.
public protocol DatabaseWriter: DatabaseReader {
    /// Runs `block` in an immediate transaction and returns its result: committed when the
    /// block returns (rolled back when its result is ``TransactionCompletion/rollback``), rolled
    /// back when it throws. Blocks the calling thread.
    /// - Throws: the block's error (after the rollback), ``DatabaseError`` when the commit
    ///   fails, ``CipherStoreError/reentrantQueueAccess``, or ``CipherStoreError/connectionClosed``.
    @available(*, noasync, message: "this form blocks the thread: in async code, `try await` the async form; in top-level code, where Swift picks this form even after await, move the code into an async function")
    func write<T>(_ block: (Connection) throws -> T) throws -> T

    /// Runs `block` on the writing connection without opening a transaction (for work that
    /// manages its own, such as migrations, or that cannot run in one, such as `VACUUM`).
    /// Blocks the calling thread.
    /// - Throws: the block's error, ``CipherStoreError/reentrantQueueAccess``, or
    ///   ``CipherStoreError/connectionClosed``.
    @available(*, noasync, message: "this form blocks the thread: in async code, `try await` the async form; in top-level code, where Swift picks this form even after await, move the code into an async function")
    func writeWithoutTransaction<T>(_ block: (Connection) throws -> T) throws -> T

    /// Runs `block` in a transaction of the given kind: committed when it returns `.commit`,
    /// rolled back when it returns `.rollback` or throws. Blocks the calling thread.
    /// See ``Connection/inTransaction(_:_:)``.
    /// - Throws: the block's error (after the rollback), ``DatabaseError`` when `BEGIN` or the
    ///   commit fails, ``CipherStoreError/reentrantQueueAccess``, or
    ///   ``CipherStoreError/connectionClosed``.
    @available(*, noasync, message: "this form blocks the thread: in async code, `try await` the async form; in top-level code, where Swift picks this form even after await, move the code into an async function")
    func inTransaction(_ kind: TransactionKind, _ block: (Connection) throws -> TransactionCompletion) throws

    /// ``write(_:)-(_)`` without blocking the caller's thread.
    /// - Throws: `CancellationError` when the task is cancelled before the block starts (the
    ///   block does not run then) or while it runs (its statement is interrupted), and the errors of the synchronous form.
    func write<T: Sendable>(_ block: @escaping @Sendable (Connection) throws -> T) async throws -> T

    /// ``writeWithoutTransaction(_:)-(_)`` without blocking the caller's thread.
    /// - Throws: `CancellationError` when the task is cancelled before the block starts (the
    ///   block does not run then) or while it runs (its statement is interrupted), and the errors of the synchronous form.
    func writeWithoutTransaction<T: Sendable>(_ block: @escaping @Sendable (Connection) throws -> T) async throws -> T

    /// ``inTransaction(_:_:)-4z75m`` without blocking the caller's thread.
    /// - Throws: `CancellationError` when the task is cancelled before the block starts (the
    ///   block does not run then) or while it runs (its statement is interrupted), and the errors of ``inTransaction(_:_:)-4z75m``.
    func transaction(_ kind: TransactionKind,
                     _ block: @escaping @Sendable (Connection) throws -> TransactionCompletion) async throws

    /// ``inTransaction(_:_:)-4z75m`` without blocking the caller's thread; the same as
    /// ``transaction(_:_:)``.
    /// - Throws: `CancellationError` when the task is cancelled before the block starts (the
    ///   block does not run then) or while it runs (its statement is interrupted), and the errors of ``inTransaction(_:_:)-4z75m``.
    func inTransaction(_ kind: TransactionKind,
                       _ block: @escaping @Sendable (Connection) throws -> TransactionCompletion) async throws
}

extension DatabaseWriter {
    /// Runs `block` in a transaction without blocking the caller's thread, with
    /// ``transaction(_:_:)`` (the default, for a writer that does not implement this form).
    /// - Throws: the errors of ``transaction(_:_:)``.
    public func inTransaction(_ kind: TransactionKind,
                              _ block: @escaping @Sendable (Connection) throws -> TransactionCompletion) async throws {
        try await transaction(kind, block)
    }
}
