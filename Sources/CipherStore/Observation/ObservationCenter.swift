import Synchronization

/// The observations of one queue or pool, and the commit handler that wakes them.
///
/// Commits made through this queue or pool are heard from SQLite's hooks. Another connection
/// to the same file (another process, another queue) calls no hook here: an
/// ``ExternalCommitWatch`` notices its commits while observations run, on Linux.
///
/// A ``CommitTracker``, a transaction observer like any other, is added to the writing
/// connection while at least one observation runs (the hooks cost a little on every write),
/// and removed with the last one. It runs on the writer's thread right after each commit, so
/// it only marks observations stale; their fetches run elsewhere (``ValueObserver``).
final class ObservationCenter: Sendable {
    private let writer: SerialConnection
    private let observers = Locked<[ObjectIdentifier: any CommitObserver]>([:])
    private let isClosed = Atomic<Bool>(false)
    /// The transaction observer added to the writer; `nil` while no observation runs.
    private let tracker = Locked<CommitTracker?>(nil)
    /// The database file, watched for other connections' commits; `nil` for a database that
    /// is not a file.
    private let path: String?
    /// Made by the first observation on a file.
    private let externalCommitWatch = Locked<ExternalCommitWatch?>(nil)

    /// - Parameter path: the database file, watched for other processes' commits.
    init(writer: SerialConnection, path: String?) {
        self.writer = writer
        self.path = path
    }

    /// The watch of other connections' commits, made when first needed.
    private var externalCommits: ExternalCommitWatch? {
        guard let path else { return nil }
        return externalCommitWatch.withLock { watch in
            if watch == nil {
                watch = ExternalCommitWatch(writer: writer, path: path) { [weak self] db in
                    self?.transactionDidEnd(.committedElsewhere, in: db)
                }
            }
            return watch
        }
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

    /// Registers `observer` from a block already running on the writer's queue, with its
    /// connection: commits from now on reach it.
    func add(_ observer: any CommitObserver, on db: Connection) {
        observers.withLock { $0[ObjectIdentifier(observer)] = observer }
        trackCommits(on: db)
    }

    /// Tracks commits on `db`, the writer's new connection (a pool reopened after a key
    /// change), when observations run. Called on the writer's queue.
    func writerReopened(_ db: Connection) {
        guard !observers.withLock({ $0.isEmpty }) else { return }
        trackCommits(on: db)
        externalCommits?.writerReopened(db)
    }

    /// Adds the tracker to the writing connection (adding it again changes nothing), and
    /// watches the file for other connections' commits. On a closed connection it does nothing:
    /// the next fetch reports the closed connection and ends the observation.
    private func trackCommits(on db: Connection) {
        let tracker = tracker.withLock { tracker in
            // Added inside a transaction: its earlier writes were not seen.
            if tracker == nil { tracker = CommitTracker(center: self, unseenChanges: db.isInTransaction) }
            return tracker!
        }
        db.add(transactionObserver: tracker, extent: .databaseLifetime)
        if !closed { externalCommits?.start(on: db) }
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
            if let tracker = self.tracker.withLock({ tracker in defer { tracker = nil }; return tracker }) {
                db.remove(transactionObserver: tracker)
            }
            self.externalCommits?.stop()
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
        externalCommits?.stop()
    }

    /// Whether the file is watched for other connections' commits now (for tests).
    var watchesExternalCommits: Bool { externalCommitWatch.withLock { $0?.isWatching ?? false } }

    /// Whether the queue or pool was closed: a fetch failing then ends quietly.
    var closed: Bool { isClosed.load(ordering: .acquiring) }

    /// Tells every observation how a transaction ended; on the writer's queue, with its connection.
    fileprivate func transactionDidEnd(_ end: TransactionEnd, in db: Connection) {
        let all = observers.withLock { Array($0.values) }
        for observer in all { observer.transactionDidEnd(end, in: db) }
    }
}

/// A queue or pool, whose observation center a ``DatabaseRegionObservation`` joins.
protocol ObservationCenterOwner {
    var observations: ObservationCenter { get }
}

extension DatabaseQueue: ObservationCenterOwner {}
extension DatabasePool: ObservationCenterOwner {}

/// One observation as its ``ObservationCenter`` sees it.
protocol CommitObserver: AnyObject, Sendable {
    /// A write transaction committed or rolled back on the writing connection `db`, or another
    /// connection's commit was noticed; called on the writer's queue.
    func transactionDidEnd(_ end: TransactionEnd, in db: Connection)
    /// The queue or pool closed: end the sequence.
    func finish()
}

/// How a transaction ended, as change observation hears of it.
enum TransactionEnd: Sendable {
    /// Committed, changing these tables (lowercased names). `unseenChanges`: it may also have
    /// changed what no table name tells (the schema, or rows written before anyone listened).
    case committed(tables: Set<String>, unseenChanges: Bool)
    case rolledBack
    /// Another connection to the file (another process) committed: which tables it changed is
    /// unknown.
    case committedElsewhere
}

/// The transaction observer of an ``ObservationCenter`` on the writing connection: collects
/// the tables each transaction changes and tells the center how it ended.
final class CommitTracker: TableChangeObserver, @unchecked Sendable {
    // @unchecked Sendable: `tables` and `unseenChanges` are used only by the writing
    // connection's callbacks, which run on its serial queue; `center` is a weak reference to
    // a Sendable object.
    private weak var center: ObservationCenter?
    private var tables: Set<String> = []
    private var unseenChanges: Bool

    init(center: ObservationCenter, unseenChanges: Bool) {
        self.center = center
        self.unseenChanges = unseenChanges
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }

    func databaseDidChange(with event: DatabaseEvent) {
        tables.insert(event.tableName.lowercased())
    }

    /// Told of changes SQLite does not report (`notifyChanges(in:)`): the observations that
    /// read these tables fetch again after the commit, as after rows written there.
    func databaseDidChange(inTables tables: [String]) {
        self.tables.formUnion(tables.map { $0.lowercased() })
    }

    func databaseDidCommit(_ db: Database) {
        let end = TransactionEnd.committed(tables: tables, unseenChanges: unseenChanges || db.handle.hooks.broker.transactionMayHaveChangedSchema)
        tables = []
        unseenChanges = false
        center?.transactionDidEnd(end, in: db)
    }

    func databaseDidRollback(_ db: Database) {
        tables = []
        unseenChanges = false
        center?.transactionDidEnd(.rolledBack, in: db)
    }
}
