/// One observer added to a connection, held as its extent says: weakly for
/// ``Connection/TransactionObservationExtent/observerLifetime``, strongly otherwise — and for
/// ``Connection/TransactionObservationExtent/nextTransaction``, only until that transaction
/// ends.
final class TransactionObservation {
    let extent: Connection.TransactionObservationExtent
    /// `false` once the observer stopped hearing of changes until the transaction ends.
    var isEnabled = true
    private weak var weakObserver: (any TransactionObserver)?
    private var strongObserver: (any TransactionObserver)?

    init(_ observer: any TransactionObserver, extent: Connection.TransactionObservationExtent) {
        self.extent = extent
        if extent == .observerLifetime {
            weakObserver = observer
        } else {
            strongObserver = observer
        }
    }

    var observer: (any TransactionObserver)? { strongObserver ?? weakObserver }

    /// Whether the observer is still there to tell.
    var isObserving: Bool { observer != nil }

    func wraps(_ other: any TransactionObserver) -> Bool { observer === other }

    func observes(eventsOfKind kind: DatabaseEventKind) -> Bool {
        observer?.observes(eventsOfKind: kind) ?? false
    }

    func databaseDidChange(with event: DatabaseEvent) {
        observer?.databaseDidChange(with: event)
    }

    /// ``Connection/notifyChanges(in:)`` told of changes of these kinds, some of which the
    /// observer accepts. One that keeps track of tables hears which.
    func databaseDidChange(ofKinds kinds: [DatabaseEventKind]) {
        guard let observer else { return }
        if let tableObserver = observer as? any TableChangeObserver {
            tableObserver.databaseDidChange(inTables: kinds.filter { observer.observes(eventsOfKind: $0) }.map(\.tableName))
        } else {
            observer.databaseDidChange()
        }
    }

    func databaseWillCommit() throws {
        try observer?.databaseWillCommit()
    }

    func databaseDidCommit(_ db: Connection) {
        endOfTransaction()?.databaseDidCommit(db)
    }

    func databaseDidRollback(_ db: Connection) {
        endOfTransaction()?.databaseDidRollback(db)
    }

    /// The observer to tell that the transaction ended. One added for the next transaction is
    /// let go first, so that nothing its callback does reaches it again.
    private func endOfTransaction() -> (any TransactionObserver)? {
        let observer = self.observer
        if extent == .nextTransaction { strongObserver = nil }
        return observer
    }
}

/// What the authorizer saw of a statement while it was prepared, for transaction observers.
struct StatementEffects {
    /// The columns its `UPDATE`s (its own and its triggers') set, per lowercased table.
    var updatedColumns: [String: Set<String>] = [:]
    /// The savepoint it begins, releases or rolls back to, if any.
    var savepoint: Savepoint?
    /// Whether it is a `ROLLBACK` (of the transaction, not to a savepoint).
    var rollsBack = false

    struct Savepoint {
        enum Operation {
            case begin, release, rollback

            /// The operation as the authorizer names it.
            init?(_ name: UnsafePointer<CChar>) {
                switch String(cString: name) {
                case "BEGIN": self = .begin
                case "RELEASE": self = .release
                case "ROLLBACK": self = .rollback
                default: return nil
                }
            }
        }
        let operation: Operation
        let name: String
    }

    static let none = StatementEffects()
}

/// A transaction observer of the library that hears, in place of ``TransactionObserver/databaseDidChange()``,
/// the tables ``Connection/notifyChanges(in:)`` named: an observation reading other tables
/// need not fetch again.
protocol TableChangeObserver: TransactionObserver {
    /// Changes SQLite does not report were made in these tables (as the schema spells them).
    func databaseDidChange(inTables tables: [String])
}
