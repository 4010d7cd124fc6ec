import Synchronization

/// Runs one observation: fetches the value, remembers which tables the fetch read, and
/// fetches again after each commit that changed one of them.
///
/// Fetches of one observation never overlap and their values are yielded in order. A commit
/// that arrives while a fetch runs marks the observation stale, and one more fetch follows;
/// so commits that come faster than fetches share a value, and the last value always shows
/// the last commit (the fetch that follows a commit starts its snapshot after it).
final class ValueObserver<Value: Sendable>: CommitObserver {
    /// Runs `body` on a connection of the queue or pool (outside any transaction), later and
    /// off the caller's thread; calls `failure` instead when no connection can be had.
    typealias Scheduler = @Sendable (_ body: @escaping @Sendable (Connection) -> Void,
                                     _ failure: @escaping @Sendable (any Error) -> Void) -> Void

    private let fetch: @Sendable (Connection) throws -> Value
    private let schedule: Scheduler
    private let continuation: AsyncThrowingStream<Value, any Error>.Continuation
    private let center: ObservationCenter
    private let state = Locked(State())

    private struct State {
        /// The tables the last fetch read; `nil` (every table) until a fetch tells.
        var region: Set<String>?
        var isFetching = false
        var isStale = false
        var isFinished = false
        /// A fetch found a transaction open on the queue's connection: it runs again when that
        /// transaction ends, so that no value shows uncommitted rows.
        var waitsForTransactionEnd = false
    }

    init(fetch: @escaping @Sendable (Connection) throws -> Value, schedule: @escaping Scheduler,
         continuation: AsyncThrowingStream<Value, any Error>.Continuation, center: ObservationCenter) {
        self.fetch = fetch
        self.schedule = schedule
        self.continuation = continuation
        self.center = center
    }

    /// Registers with the center and fetches the first value.
    func start() {
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.state.withLock { $0.isFinished = true }
            self.center.remove(self)
        }
        center.add(self) { [weak self] in self?.fetchSoon() }
    }

    func transactionDidEnd(_ end: TransactionEnd, in db: Connection) {
        let (region, isFetching, waited) = state.withLock { state -> (Set<String>?, Bool, Bool) in
            defer { state.waitsForTransactionEnd = false }
            return (state.region, state.isFetching, state.waitsForTransactionEnd)
        }
        if waited { return fetchSoon() }
        if case .committedElsewhere = end { return fetchSoon() }
        guard case .committed(let tables, let unseenChanges) = end else { return }
        // A fetch running now may read tables the last one did not (what it reads can depend
        // on the data), from a snapshot taken before this commit: it is stale whatever it reads.
        if !isFetching, !unseenChanges, let region, region.isDisjoint(with: tables) { return }
        fetchSoon()
    }

    func finish() {
        state.withLock { $0.isFinished = true }
        continuation.finish()
    }

    /// Schedules a fetch, or marks the running one stale so that another follows it.
    private func fetchSoon() {
        let startNow = state.withLock { state -> Bool in
            guard !state.isFinished else { return false }
            if state.isFetching {
                state.isStale = true
                return false
            }
            state.isFetching = true
            return true
        }
        if startNow { scheduleFetch() }
    }

    private func scheduleFetch() {
        schedule({ [weak self] db in self?.fetchNow(db) }, { [weak self] error in self?.fail(error) })
    }

    private func fetchNow(_ db: Connection) {
        // Before the snapshot starts: a commit after this point makes one more fetch.
        state.withLock { $0.isStale = false }
        if db.isInTransaction {
            // A queue's block left a transaction open: fetch when it commits or rolls back.
            state.withLock { state in
                state.waitsForTransactionEnd = true
                state.isFetching = false
            }
            return
        }
        let value: Value
        let region: Set<String>?
        do {
            (value, region) = try db.inReadOnlyTransaction { db in
                let (fetched, statements) = try db.recordingStatements { try fetch(db) }
                return (fetched, ObservedRegion.tablesRead(by: statements, in: db))
            }
        } catch {
            fail(error)
            return
        }
        // The state is settled before the value goes out: a commit its consumer makes next is
        // judged by this fetch's tables.
        let again = state.withLock { state -> Bool in
            state.region = region
            if state.isStale && !state.isFinished {
                state.isStale = false
                return true
            }
            state.isFetching = false
            return false
        }
        continuation.yield(value)
        if again { scheduleFetch() }
    }

    /// Ends the sequence with `error`, or quietly when the queue or pool was closed.
    private func fail(_ error: any Error) {
        state.withLock { $0.isFinished = true }
        if center.closed, case CipherStoreError.connectionClosed = error {
            continuation.finish()
        } else {
            continuation.finish(throwing: error)
        }
        center.remove(self)
    }
}
