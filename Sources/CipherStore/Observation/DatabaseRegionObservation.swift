import Synchronization

/// Tells, after each committed transaction that changed some tables, that they changed: for
/// work that must follow a commit (refresh a cache, sync to a server), rather than a value to
/// show (for that, `observe(_:)` of the queue or pool gives fresh values).
///
/// ```swift
/// let observation = DatabaseRegionObservation(tracking: Note.all(), DatabaseRegion(table: "tag"))
/// let cancellable = observation.start(in: queue) { error in
///     print("observation failed: \(error)")
/// } onChange: { db in
///     print("notes or tags changed")
/// }
/// ```
///
/// `onChange` is called once per committed transaction that inserted, updated or deleted a
/// row of a tracked table, on the writer's thread, right after the commit and before the
/// writer runs anything else; the connection it receives may read what was committed. A
/// rolled-back transaction calls nothing. Like every ``TransactionObserver``, it does not hear
/// of changes to `WITHOUT ROWID` tables or of schema changes.
///
/// A commit made by another process (or another queue or pool on the same file) is noticed
/// on Linux by watching the file (see "Changes made by other processes" in the Observation
/// article): SQLite does not say which tables it changed, so it calls `onChange` whatever
/// tables the observation tracks, on the writer's thread, shortly after that commit.
public struct DatabaseRegionObservation: Sendable {
    private let regions: [any DatabaseRegionConvertible]

    /// Tracks the tables of these regions and requests.
    public init(tracking regions: any DatabaseRegionConvertible...) {
        self.init(tracking: regions)
    }

    /// Tracks the tables of these regions and requests.
    public init(tracking regions: [any DatabaseRegionConvertible]) {
        self.regions = regions
    }

    /// Starts observing the writer's commits; the observation runs until the returned
    /// cancellable is cancelled or released.
    ///
    /// The regions are resolved (a request's tables found) on the writer before this returns, so
    /// every transaction committed afterwards is observed. This waits for the writer, like a
    /// blocking `write`: call it outside the writer's own blocks (from inside one, `onError`
    /// receives ``CipherStoreError/reentrantQueueAccess``).
    ///
    /// - Parameters:
    ///   - writer: a ``DatabaseQueue`` or ``DatabasePool``.
    ///   - onError: called, on the calling thread, when the observation cannot start: the
    ///     writer is closed, or a request does not compile.
    ///   - onChange: called on the writer's thread after each commit that changed a tracked
    ///     table, with the writing connection.
    /// - Returns: the cancellable that keeps the observation running.
    public func start(in writer: any DatabaseWriter,
                      onError: @escaping @Sendable (any Error) -> Void,
                      onChange: @escaping @Sendable (Database) -> Void) -> AnyDatabaseCancellable {
        let observer: RegionObserver
        // Other processes' commits come from the queue's or pool's observation center.
        let center = (writer as? any ObservationCenterOwner)?.observations
        do {
            observer = try writer.writeWithoutTransaction { db in
                var region = DatabaseRegion()
                for convertible in regions { region.formUnion(try convertible.databaseRegion(db)) }
                let observer = RegionObserver(region: region, onChange: onChange)
                // Held weakly by the connection: releasing the cancellable ends it.
                db.add(transactionObserver: observer, extent: .observerLifetime)
                center?.add(observer, on: db)
                return observer
            }
        } catch {
            onError(error)
            return AnyDatabaseCancellable {}
        }
        let held = Locked<RegionObserver?>(observer)
        return AnyDatabaseCancellable { [weak center] in
            let observer = held.withLock { observer in
                defer { observer = nil }
                observer?.isCancelled.store(true, ordering: .releasing)
                return observer
            }
            if let observer { center?.remove(observer) }
        }
    }
}

/// The transaction observer of a ``DatabaseRegionObservation``, and its observer of other
/// connections' commits.
private final class RegionObserver: TransactionObserver, CommitObserver, @unchecked Sendable {
    // @unchecked Sendable: `isChanged` is used only by the writing connection's callbacks,
    // which run on its serial queue; `isCancelled` is atomic; the rest is immutable.
    let region: DatabaseRegion
    let onChange: @Sendable (Database) -> Void
    let isCancelled = Atomic<Bool>(false)
    private var isChanged = false

    init(region: DatabaseRegion, onChange: @escaping @Sendable (Database) -> Void) {
        self.region = region
        self.onChange = onChange
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        region.isModified(byEventsOfKind: eventKind)
    }

    func databaseDidChange(with event: DatabaseEvent) {
        if region.isModified(by: event) { isChanged = true }
    }

    /// Told of changes SQLite does not report, in a tracked table (`notifyChanges(in:)`).
    func databaseDidChange() {
        isChanged = true
    }

    func databaseDidCommit(_ db: Database) {
        guard isChanged else { return }
        isChanged = false
        // Cancelled from another thread while the commit ran: nothing more.
        if !isCancelled.load(ordering: .acquiring) { onChange(db) }
    }

    func databaseDidRollback(_ db: Database) {
        isChanged = false
    }

    /// Another connection committed. This connection's own commits come through the
    /// transaction observer callbacks above.
    func transactionDidEnd(_ end: TransactionEnd, in db: Connection) {
        guard case .committedElsewhere = end, !region.isEmpty, !isCancelled.load(ordering: .acquiring) else { return }
        onChange(db)
    }

    /// The queue or pool closed: its connection calls nothing more.
    func finish() {}
}
