import Dispatch
import Synchronization

/// A database in WAL mode with one writing connection and several reading ones, so that reads
/// run in parallel with each other and with the writer.
///
/// ```swift
/// let pool = try DatabasePool(path: "app.db", key: .passphrase("s3cret passphrase"))
/// try pool.write { db in
///     try db.execute(sql: "INSERT INTO note(body) VALUES (?)", arguments: ["hi"])
/// }
/// let count = try await pool.read { db in try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM note") }
/// ```
///
/// - `write` runs on the one writing connection, in an immediate transaction; writes are
///   serialized. `writeWithoutTransaction(_:)` runs there without a transaction.
/// - `read` runs on one of up to ``maximumReaderCount`` reading connections, opened when
///   first needed, in a read-only transaction: the block sees one snapshot of the database
///   (all of a concurrent write's transaction or none of it), a write inside it fails with
///   ``CipherStoreError/writeInsideRead(sql:)``, and it never waits for the writer.
/// - `barrierWrite(_:)` waits for the running reads, keeps new ones out, and runs
///   without a transaction: for `VACUUM` and other work that must be alone.
///
/// The `async` forms never block the caller's thread and honour Task cancellation before and
/// while the block runs (its statement is interrupted), as on a ``DatabaseQueue``;
/// ``interrupt()`` stops what runs on every connection. Calling the pool from inside one of
/// its own blocks throws ``CipherStoreError/reentrantQueueAccess``.
///
/// **One key derivation per pool.** With a passphrase, the pool runs PBKDF2 once (with the
/// file's salt and the configured or default settings) and keys every connection with the
/// derived key, so opening 1 writer and 5 readers costs about one derivation, not six. A new
/// file gets its first page, and with it its salt, from the writer before any reader opens.
///
/// ``close()`` waits for the running blocks, then closes every connection; later use throws
/// ``CipherStoreError/connectionClosed``.
public final class DatabasePool: DatabaseWriter {
    /// Where the database lives.
    public let location: DatabaseLocation
    /// The most reading connections the pool opens.
    public let maximumReaderCount: Int
    /// How long a reading connection may stay idle before the pool closes it.
    public let readerIdleTimeout: Duration

    let identity = AccessIdentity()
    let writer: SerialConnection
    let observations: ObservationCenter
    private let corruption: CorruptionWatch
    /// Keeps the encrypted schema copy beside the file, from the writer.
    let schemaCopy: SchemaCopyKeeper?
    /// One permit per reading connection; a barrier or `close()` takes them all.
    private let readerPermits: ReaderPermits
    /// Lets one barrier (or close) at a time collect the permits, so two never split them.
    private let barrierGate = DispatchSemaphore(value: 1)
    let state: Locked<State>
    /// Key derivations run for this pool (PBKDF2 here, or SQLCipher keying with a passphrase).
    let keyDerivationCount = Atomic<Int>(0)

    struct State: ~Copyable {
        /// What readers open with: the derived key (or the key given) and the settings.
        var readerKey: DatabaseKey?
        var readerConfiguration: Configuration
        /// Idle readers, each with the moment it was given back.
        var idleReaders: [(reader: SerialConnection, since: ContinuousClock.Instant)] = []
        /// Readers running a block now, for ``interrupt()``.
        var busyReaders: [ObjectIdentifier: SerialConnection] = [:]
        var readerCount = 0
        var isSweepScheduled = false
        var isClosed = false
    }

    /// The most reading connections a pool may have: each is a file descriptor and a page
    /// cache, and a barrier or `close()` collects one permit per possible reader.
    public static let readerCountLimit = 64

    /// Where `async` reads run once they hold a reader permit, and `async` barriers wait for
    /// every permit, off the caller's thread.
    private static let waitingQueue = DispatchQueue(label: "CipherStore.DatabasePool.waiting", attributes: .concurrent)

    /// Opens a database file as a pool, in WAL mode.
    ///
    /// - Parameters:
    ///   - path: the database file; created when missing.
    ///   - key: the key, or `nil` for a plaintext database.
    ///   - configuration: cipher settings, busy timeout…; `journalMode` is always WAL and
    ///     `readOnly` is refused (open a ``DatabaseQueue`` read-only instead).
    ///   - maximumReaderCount: the most reading connections (5 by default, at most ``readerCountLimit``).
    ///   - readerIdleTimeout: how long a reading connection may stay unused before the pool
    ///     closes it (one minute by default); the next read opens one again.
    /// - Throws: ``CipherStoreError/invalidConfiguration(reason:)``, and the errors of
    ///   ``Connection/init(location:key:configuration:)``.
    public init(path: String, key: DatabaseKey?, configuration: Configuration = Configuration(),
                maximumReaderCount: Int = 5, readerIdleTimeout: Duration = .seconds(60)) throws {
        guard (1...Self.readerCountLimit).contains(maximumReaderCount) else {
            throw CipherStoreError.invalidConfiguration(reason: "maximumReaderCount is \(maximumReaderCount). Give from 1 to \(Self.readerCountLimit) reading connections.")
        }
        guard !configuration.readOnly else {
            throw CipherStoreError.invalidConfiguration(reason: "a DatabasePool needs to write its WAL files and cannot be read-only. Open a read-only DatabaseQueue instead.")
        }
        let location = DatabaseLocation.file(path)
        let (connection, readerKey, derivations) = try Self.openWriter(path: path, key: key, configuration: configuration)
        var readerConfiguration = configuration
        readerConfiguration.journalMode = nil
        self.location = location
        self.maximumReaderCount = maximumReaderCount
        self.readerIdleTimeout = readerIdleTimeout
        self.state = Locked(State(readerKey: readerKey, readerConfiguration: readerConfiguration))
        self.readerPermits = ReaderPermits(count: maximumReaderCount)
        corruption = CorruptionWatch(path: location.displayName)
        connection.handle.hooks.corruptionWatch = corruption
        let schemaCopy = SchemaCopyKeeper(location: location, key: readerKey, configuration: configuration)
        self.schemaCopy = schemaCopy
        self.writer = SerialConnection(connection, label: "CipherStore.DatabasePool.writer", identity: identity,
                                       afterBlock: schemaCopy?.afterBlockHandler)
        self.observations = ObservationCenter(writer: writer, path: path)
        keyDerivationCount.store(derivations, ordering: .relaxed)
    }

    /// Opens the writing connection in WAL mode, stretching a passphrase once for the pool.
    /// - Returns: the connection, the key readers open with, and the key derivations run.
    static func openWriter(path: String, key: DatabaseKey?, configuration: Configuration)
        throws -> (connection: Connection, readerKey: DatabaseKey?, derivations: Int) {
        let location = DatabaseLocation.file(path)
        var writerConfiguration = configuration
        writerConfiguration.journalMode = .wal
        var derivations = 0
        var sharedKey: DatabaseKey? = nil
        if let key, key.kind == .passphrase {
            sharedKey = try SharedKeyDerivation.rawKeyWithSalt(for: key, path: path, cipher: configuration.cipher)
            if sharedKey != nil { derivations += 1 }
        }
        let connection: Connection
        do {
            connection = try Connection(location: location, key: sharedKey ?? key, configuration: writerConfiguration)
            if sharedKey == nil, key?.kind == .passphrase { derivations += 1 }
        } catch CipherStoreError.wrongKey where sharedKey != nil {
            // Settings this derivation does not know (changed library defaults, say): the
            // passphrase itself tells a really wrong key, and keys every connection from now on.
            sharedKey = nil
            connection = try Connection(location: location, key: key, configuration: writerConfiguration)
            derivations += 1
        }
        return (connection, sharedKey ?? key, derivations)
    }

    // MARK: Reading

    /// Runs `block` on a reading connection, in a read-only transaction, and returns its
    /// result. Blocks the calling thread, also while all readers are busy.
    ///
    /// Reads run in parallel with each other and with the writer; each sees one snapshot.
    /// - Throws: the block's error, ``CipherStoreError/writeInsideRead(sql:)``,
    ///   ``CipherStoreError/reentrantQueueAccess`` from inside a block of this pool, or
    ///   ``CipherStoreError/connectionClosed`` after ``close()``.
    @available(*, noasync, message: "this form blocks the thread: in async code, `try await` the async form; in top-level code, where Swift picks this form even after await, move the code into an async function")
    public func read<T>(_ block: (Connection) throws -> T) throws -> T {
        try withReader(beforeBlock: {}) { db in try db.inReadOnlyTransaction(block) }
    }

    /// ``read(_:)-(_)`` without blocking the caller's thread.
    /// - Throws: `CancellationError` when the task is cancelled before the block starts (also
    ///   while it waits for a reader; the block does not run then) or while it runs (its
    ///   statement is interrupted), and the errors of
    ///   ``read(_:)-(_)``.
    public func read<T: Sendable>(_ block: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try checkOpen()
        // The wait for a permit suspends the task; only the read itself takes a thread.
        await readerPermits.acquire()
        return try await AsyncBridge.run(on: Self.waitingQueue) { cancelled in
            try self.withReader(permitHeld: true, beforeBlock: cancelled.check) { db in
                try db.withTaskCancellation(cancelled) { try db.inReadOnlyTransaction(block) }
            }
        }
    }

    /// Takes a reader permit (unless `permitHeld`), an idle reader or a new one, runs `block`
    /// on it, and gives both back.
    private func withReader<T>(permitHeld: Bool = false, beforeBlock: () throws -> Void,
                               _ block: (Connection) throws -> T) throws -> T {
        var holdsPermit = permitHeld
        defer { if holdsPermit { readerPermits.release() } }
        let chain = try QueueChain.enter(ObjectIdentifier(identity))
        try checkOpen()
        if !holdsPermit {
            readerPermits.acquire()
            holdsPermit = true
        }
        // Closed while this read waited for a reader.
        try checkOpen()
        let reader = try takeReader()
        defer { giveBack(reader) }
        try beforeBlock()
        return try reader.syncChecked(chain: chain, block)
    }

    /// An idle reader, or a new one. The caller holds a permit, so fewer than
    /// ``maximumReaderCount`` readers are busy and either one is idle or one more may open.
    private func takeReader() throws -> SerialConnection {
        let (idle, readerKey, readerConfiguration) = state.withLock { state -> (SerialConnection?, DatabaseKey?, Configuration) in
            if let idle = state.idleReaders.popLast() {
                state.busyReaders[ObjectIdentifier(idle.reader)] = idle.reader
                return (idle.reader, state.readerKey, state.readerConfiguration)
            }
            state.readerCount += 1
            return (nil, state.readerKey, state.readerConfiguration)
        }
        if let idle { return idle }
        do {
            let connection: Connection
            do {
                connection = try Connection(location: location, key: readerKey, configuration: readerConfiguration)
            } catch let error as DatabaseError {
                // A reader opens at run time: damage found then is the app's to hear of too.
                corruption.report(error)
                throw error
            }
            connection.handle.hooks.corruptionWatch = corruption
            if readerKey?.kind == .passphrase { keyDerivationCount.add(1, ordering: .relaxed) }
            let reader = SerialConnection(connection, label: "CipherStore.DatabasePool.reader", identity: identity)
            state.withLock { $0.busyReaders[ObjectIdentifier(reader)] = reader }
            return reader
        } catch {
            state.withLock { $0.readerCount -= 1 }
            throw error
        }
    }

    /// Puts a reader back among the idle ones, and makes sure a sweep will close it if it
    /// stays unused.
    private func giveBack(_ reader: SerialConnection) {
        let scheduleSweep = state.withLock { state -> Bool in
            state.busyReaders[ObjectIdentifier(reader)] = nil
            state.idleReaders.append((reader, .now))
            defer { state.isSweepScheduled = true }
            return !state.isSweepScheduled
        }
        if scheduleSweep { scheduleIdleSweep(after: readerIdleTimeout) }
    }

    /// Closes, after `delay`, the readers unused for ``readerIdleTimeout``; repeats while idle
    /// readers remain.
    private func scheduleIdleSweep(after delay: Duration) {
        let nanoseconds = Int(min(delay, .seconds(86_400)).components.seconds) * 1_000_000_000
            + Int(delay.components.attoseconds / 1_000_000_000)
        Self.waitingQueue.asyncAfter(deadline: .now() + .nanoseconds(max(nanoseconds, 1_000_000))) { [weak self] in
            self?.closeIdleReaders()
        }
    }

    private func closeIdleReaders() {
        let now = ContinuousClock.now
        let (stale, nextSweep) = state.withLock { state -> ([SerialConnection], Duration?) in
            let stale = state.idleReaders.filter { now - $0.since >= readerIdleTimeout }.map(\.reader)
            state.idleReaders.removeAll { now - $0.since >= readerIdleTimeout }
            state.readerCount -= stale.count
            guard let oldest = state.idleReaders.map(\.since).min() else {
                state.isSweepScheduled = false
                return (stale, nil)
            }
            return (stale, readerIdleTimeout - (now - oldest))
        }
        for reader in stale {
            // A statement still alive keeps its connection open until it is released.
            try? reader.syncChecked(chain: []) { try $0.close() }
        }
        if let nextSweep { scheduleIdleSweep(after: nextSweep) }
    }

    /// How many reading connections are open now (for tests).
    var readerCount: Int { state.withLock { $0.readerCount } }

    // MARK: Writing

    /// Runs `block` on the writing connection, in an immediate transaction, and returns its
    /// result: committed when the block returns, rolled back when it throws. Blocks the
    /// calling thread. Reads go on meanwhile, on the snapshot they started with.
    /// - Throws: the block's error (after the rollback), ``DatabaseError`` when the commit
    ///   fails, ``CipherStoreError/reentrantQueueAccess``, or ``CipherStoreError/connectionClosed``.
    @available(*, noasync, message: "this form blocks the thread: in async code, `try await` the async form; in top-level code, where Swift picks this form even after await, move the code into an async function")
    public func write<T>(_ block: (Connection) throws -> T) throws -> T {
        try writeWithoutTransaction { db in try db.inImmediateTransaction(block) }
    }

    /// Runs `block` on the writing connection without a transaction. Blocks the calling thread.
    /// - Throws: the block's error, ``CipherStoreError/reentrantQueueAccess``, or
    ///   ``CipherStoreError/connectionClosed``.
    @available(*, noasync, message: "this form blocks the thread: in async code, `try await` the async form; in top-level code, where Swift picks this form even after await, move the code into an async function")
    public func writeWithoutTransaction<T>(_ block: (Connection) throws -> T) throws -> T {
        try checkOpen()
        return try writer.sync(block)
    }

    /// Runs `block` on the writing connection in a transaction: committed when it returns
    /// `.commit`, rolled back when it returns `.rollback` or throws. Blocks the calling thread.
    /// - Throws: the block's error (after the rollback), ``DatabaseError`` when `BEGIN` or the
    ///   commit fails, ``CipherStoreError/reentrantQueueAccess``, or
    ///   ``CipherStoreError/connectionClosed``.
    @available(*, noasync, message: "this form blocks the thread: in async code, `try await` the async form; in top-level code, where Swift picks this form even after await, move the code into an async function")
    public func inTransaction(_ kind: TransactionKind = .deferred, _ block: (Connection) throws -> TransactionCompletion) throws {
        try writeWithoutTransaction { db in try db.inTransaction(kind) { try block(db) } }
    }

    /// ``write(_:)-(_)`` without blocking the caller's thread.
    /// - Throws: `CancellationError` when the task is cancelled before the block starts (the
    ///   block does not run then) or while it runs (its statement is interrupted), and the errors of ``write(_:)-(_)``.
    public func write<T: Sendable>(_ block: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try checkOpen()
        return try await writer.async { db in try db.inImmediateTransaction(block) }
    }

    /// `writeWithoutTransaction(_:)` without blocking the caller's thread.
    /// - Throws: `CancellationError` when the task is cancelled before the block starts (the
    ///   block does not run then) or while it runs (its statement is interrupted), and the errors of the synchronous form.
    public func writeWithoutTransaction<T: Sendable>(_ block: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try checkOpen()
        return try await writer.async { db in try db.interruptibly(block) }
    }

    /// ``inTransaction(_:_:)-4f87z`` without blocking the caller's thread.
    /// - Throws: `CancellationError` when the task is cancelled before the block starts (the
    ///   block does not run then) or while it runs (its statement is interrupted), and the errors of ``inTransaction(_:_:)-4f87z``.
    public func transaction(_ kind: TransactionKind = .deferred,
                            _ block: @escaping @Sendable (Connection) throws -> TransactionCompletion) async throws {
        try checkOpen()
        try await writer.async { db in try db.inTransaction(kind) { try block(db) } }
    }

    /// Runs `block` on the writing connection in a transaction without blocking the caller's
    /// thread: committed when it returns `.commit`, rolled back when it returns `.rollback` or
    /// throws. The same as ``transaction(_:_:)``.
    /// - Throws: `CancellationError` when the task is cancelled before the block starts (the
    ///   block does not run then) or while it runs (its statement is interrupted), the block's error (after the rollback), ``DatabaseError``
    ///   when `BEGIN` or the commit fails, or ``CipherStoreError/connectionClosed``.
    public func inTransaction(_ kind: TransactionKind = .deferred,
                              _ block: @escaping @Sendable (Connection) throws -> TransactionCompletion) async throws {
        try await transaction(kind, block)
    }

    /// Runs `block` on the writing connection, without a transaction, once every running read
    /// has ended, and keeps new reads waiting until it returns. Blocks the calling thread.
    ///
    /// For work that must be alone on the database, such as `VACUUM`:
    ///
    /// ```swift
    /// try pool.barrierWrite { db in try db.execute(sql: "VACUUM") }
    /// ```
    /// - Throws: the block's error, ``CipherStoreError/reentrantQueueAccess``, or
    ///   ``CipherStoreError/connectionClosed``.
    @available(*, noasync, message: "this form blocks the thread: in async code, `try await` the async form; in top-level code, where Swift picks this form even after await, move the code into an async function")
    public func barrierWrite<T>(_ block: (Connection) throws -> T) throws -> T {
        try barrier(beforeBlock: {}, block)
    }

    /// `barrierWrite(_:)` without blocking the caller's thread.
    /// - Throws: `CancellationError` when the task is cancelled before the block starts (also
    ///   while it waits for the reads to end) or while it runs (its statement is interrupted), and the errors of `barrierWrite(_:)`.
    public func barrierWrite<T: Sendable>(_ block: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await AsyncBridge.run(on: Self.waitingQueue) { cancelled in
            try self.barrier(beforeBlock: cancelled.check) { db in
                try db.withTaskCancellation(cancelled) { try db.interruptibly(block) }
            }
        }
    }

    private func barrier<T>(beforeBlock: () throws -> Void, _ block: (Connection) throws -> T) throws -> T {
        let chain = try QueueChain.enter(ObjectIdentifier(identity))
        try checkOpen()
        return try withAllReaderPermits {
            try checkOpen()
            try beforeBlock()
            return try writer.syncChecked(chain: chain, block)
        }
    }

    /// Runs `body` once no read runs, with new reads kept waiting.
    func withAllReaderPermits<T>(_ body: () throws -> T) rethrows -> T {
        barrierGate.wait()
        defer { barrierGate.signal() }
        for _ in 0..<maximumReaderCount { readerPermits.acquire() }
        defer { for _ in 0..<maximumReaderCount { readerPermits.release() } }
        return try body()
    }

    // MARK: Observing

    /// Observes the value of `fetch`: the current value first, then a fresh one after each
    /// committed transaction that changed a table `fetch` read.
    ///
    /// ```swift
    /// for try await count in pool.observe({ db in try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM note") ?? 0 }) {
    ///     print("notes:", count)
    /// }
    /// ```
    ///
    /// Fetches run on a reader in a read-only transaction started after the commit that
    /// called for them, so the writer never waits for an observation. See
    /// ``DatabaseObservation`` for what counts as a change and when the observation ends.
    public func observe<Value: Sendable>(_ fetch: @escaping @Sendable (Connection) throws -> Value) -> DatabaseObservation<Value> {
        observations.observation(of: fetch) { [weak self] body, failure in
            guard let self else { return failure(CipherStoreError.connectionClosed) }
            // Queued, not parked, while every reader is busy.
            self.readerPermits.acquire {
                Self.waitingQueue.async {
                    do {
                        try self.withReader(permitHeld: true, beforeBlock: {}) { db in body(db) }
                    } catch {
                        failure(error)
                    }
                }
            }
        }
    }

    /// Sets the handler called once when SQLite reports the database damaged while it is in
    /// use, on the writer or any reader. See ``DatabaseReader/onCorruption(_:)``.
    public func onCorruption(_ handler: @escaping @Sendable (DatabaseCorruption) -> Void) {
        corruption.setHandler(handler)
    }

    // MARK: Interrupting

    /// Stops the statements running now on the writer and on every reader, from any thread:
    /// each fails with a ``DatabaseError`` of code `SQLITE_INTERRUPT`. See
    /// ``DatabaseReader/interrupt()``.
    public func interrupt() {
        writer.interrupt()
        for reader in state.withLock({ Array($0.busyReaders.values) }) { reader.interrupt() }
    }

    // MARK: Closing

    /// Waits for the running blocks, then closes every connection. Later use throws
    /// ``CipherStoreError/connectionClosed``; closing again does nothing.
    /// - Throws: ``CipherStoreError/reentrantQueueAccess`` from inside a block of this pool, or
    ///   ``CipherStoreError/statementsStillAlive`` when statements or cursors made from one of its
    ///   connections are still alive (that connection stays open until the pool is released).
    public func close() throws {
        let chain = try QueueChain.enter(ObjectIdentifier(identity))
        let alreadyClosed = state.withLock { state in
            defer { state.isClosed = true }
            return state.isClosed
        }
        guard !alreadyClosed else { return }
        observations.finishAll()
        try withAllReaderPermits {
            let readers = state.withLock { state in
                defer { state.idleReaders.removeAll() }
                return state.idleReaders.map(\.reader)
            }
            var firstError: (any Error)?
            for reader in readers {
                do { try reader.syncChecked(chain: chain) { try $0.close() } } catch { firstError = firstError ?? error }
            }
            // Runs after every write queued before it.
            do {
                try writer.syncChecked(chain: chain) { db in
                    schemaCopy?.beforeClose(db)
                    try db.close()
                }
            } catch { firstError = firstError ?? error }
            if let firstError { throw firstError }
        }
    }

    func checkOpen() throws {
        if state.withLock({ $0.isClosed }) { throw CipherStoreError.connectionClosed }
    }
}
