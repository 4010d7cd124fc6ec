import Synchronization

/// The observations of one queue or pool, and the commit handler that wakes them.
///
/// Only commits made through this queue or pool are seen: another connection to the same file
/// (another queue, another process) calls no hook here.
///
/// The handler is installed on the writing connection while at least one observation runs
/// (the update and commit hooks cost a little on every write), and removed with the last one.
/// It runs on the writer's thread right after each commit, so it only marks observations
/// stale; their fetches run elsewhere (``ValueObserver``).
final class ObservationCenter: Sendable {
    private let writer: SerialConnection
    private let observers = Locked<[ObjectIdentifier: any CommitObserver]>([:])
    private let isClosed = Atomic<Bool>(false)

    init(writer: SerialConnection) {
        self.writer = writer
    }

    /// Registers `observer` and, once the writer tracks commits (so that no commit after this
    /// point goes unseen), calls `start`.
    func add(_ observer: any CommitObserver, start: @escaping @Sendable () -> Void) {
        observers.withLock { $0[ObjectIdentifier(observer)] = observer }
        writer.enqueue { [weak self] db in
            self?.trackCommits(on: db)
            start()
        }
    }

    /// Tracks commits on `db`, the writer's new connection (a pool reopened after a key
    /// change), when observations run. Called on the writer's queue.
    func writerReopened(_ db: Connection) {
        guard !observers.withLock({ $0.isEmpty }) else { return }
        trackCommits(on: db)
    }

    /// Installs the commit handler on the writing connection. On a closed connection it does
    /// nothing: the next fetch reports the closed connection and ends the observation.
    private func trackCommits(on db: Connection) {
        try? db.setCommitHandler { [weak self] end in self?.transactionDidEnd(end) }
    }

    /// Unregisters `observer`; the writer stops tracking commits when none is left.
    func remove(_ observer: any CommitObserver) {
        let isEmpty = observers.withLock { observers in
            observers[ObjectIdentifier(observer)] = nil
            return observers.isEmpty
        }
        guard isEmpty else { return }
        writer.enqueue { [weak self] db in
            guard let self, self.observers.withLock({ $0.isEmpty }) else { return }
            try? db.setCommitHandler(nil)
        }
    }

    /// Ends every observation (the queue or pool is closing).
    func finishAll() {
        isClosed.store(true, ordering: .releasing)
        let all = observers.withLock { observers in
            defer { observers.removeAll() }
            return Array(observers.values)
        }
        for observer in all { observer.finish() }
    }

    /// Whether the queue or pool was closed: a fetch failing then ends quietly.
    var closed: Bool { isClosed.load(ordering: .acquiring) }

    private func transactionDidEnd(_ end: TransactionEnd) {
        let all = observers.withLock { Array($0.values) }
        for observer in all { observer.transactionDidEnd(end) }
    }
}

/// One observation as its ``ObservationCenter`` sees it.
protocol CommitObserver: AnyObject, Sendable {
    /// A write transaction committed or rolled back on the writing connection.
    func transactionDidEnd(_ end: TransactionEnd)
    /// The queue or pool closed: end the sequence.
    func finish()
}
