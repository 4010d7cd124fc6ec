/// Something that gives read access to a database: a ``DatabaseQueue`` or a ``DatabasePool``.
///
/// ```swift
/// func noteCount(in database: any DatabaseReader) throws -> Int {
///     try database.read { db in try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM note") ?? 0 }
/// }
/// ```
///
/// `read` is read-only and isolated: its block runs in a read transaction, so it sees one
/// snapshot of the database from start to end, and a statement inside it that would change the
/// database fails with ``CipherStoreError/writeInsideRead(sql:)``.
public protocol DatabaseReader: AnyObject, Sendable {
    /// Where the database lives.
    var location: DatabaseLocation { get }

    /// Runs `block` in a read-only transaction and returns its result. Blocks the calling
    /// thread.
    /// - Throws: the block's error, ``CipherStoreError/writeInsideRead(sql:)``,
    ///   ``CipherStoreError/reentrantQueueAccess`` from inside a block of the same queue or
    ///   pool, or ``CipherStoreError/connectionClosed`` after ``close()``.
    @available(*, noasync, message: "this form blocks the thread: in async code, `try await` the async form; in top-level code, where Swift picks this form even after await, move the code into an async function")
    func read<T>(_ block: (Connection) throws -> T) throws -> T

    /// Runs `block` in a read-only transaction without blocking the caller's thread.
    /// - Throws: `CancellationError` when the task is cancelled before the block starts (the
    ///   block does not run then) or while it runs (its statement is interrupted), and the errors of the synchronous `read`.
    func read<T: Sendable>(_ block: @escaping @Sendable (Connection) throws -> T) async throws -> T

    /// Observes the value of `fetch`: the current value first, then a fresh one after each
    /// committed transaction that changed a table `fetch` read. See ``DatabaseObservation``.
    func observe<Value: Sendable>(_ fetch: @escaping @Sendable (Connection) throws -> Value) -> DatabaseObservation<Value>

    /// Sets the handler called the first time SQLite reports the database damaged while the
    /// app uses it — `SQLITE_CORRUPT` ("database disk image is malformed") or `SQLITE_NOTADB`
    /// (for an encrypted file, a page whose HMAC does not match: changed on disk or torn) — by
    /// any statement, commit or newly opened reader, whether or not the app catches the error.
    /// Only the first report calls it: damage tends to show on every read after.
    ///
    /// The handler runs on the thread that met the error, inside the failing call: keep it
    /// short, and do not use the queue or pool from it (that throws
    /// ``CipherStoreError/reentrantQueueAccess``). What an app should do with it — stop
    /// writing, tell the user, then restore the last backup — is in the
    /// <doc:BackupsAndCorruption> article.
    ///
    /// ```swift
    /// pool.onCorruption { notice in
    ///     Task { @MainActor in appState.scheduleRestore(of: notice.path) }
    /// }
    /// ```
    func onCorruption(_ handler: @escaping @Sendable (DatabaseCorruption) -> Void)

    /// Stops the statements running now on the database's connections, from any thread: each
    /// fails with a ``DatabaseError`` of code `SQLITE_INTERRUPT`
    /// (``DatabaseError/isInterruptionError``), and the block that ran it gets that error.
    ///
    /// ```swift
    /// let search = Task { try await pool.read { db in try db.fetchAll(sql: slowQuery) } }
    /// // The user gave up:
    /// pool.interrupt()
    /// ```
    ///
    /// An interrupted `INSERT`, `UPDATE` or `DELETE` rolls back the whole transaction it runs
    /// in (SQLite does), so the `write` that ran it throws and nothing of it is kept. A
    /// statement that starts after the interrupted ones ended runs as usual, and so does a
    /// block that had not started a statement yet. To stop one `async` call rather than
    /// everything running, cancel its task: that interrupts its block, and its block only.
    ///
    /// See <https://www.sqlite.org/c3ref/interrupt.html>.
    func interrupt()

    /// Closes the database's connections; later use throws ``CipherStoreError/connectionClosed``.
    func close() throws
}
