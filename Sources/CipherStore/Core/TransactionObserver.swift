/// An object told about the changes and transactions of one connection: each row inserted,
/// updated or deleted, each commit about to happen (which it may refuse), each commit done
/// and each rollback.
///
/// Add one to the writing connection with ``Connection/add(transactionObserver:extent:)``:
///
/// ```swift
/// final class NoteCounter: TransactionObserver {
///     var pending = 0
///     var committed = 0
///     func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
///         if case .insert(let table) = eventKind { return table == "note" }
///         return false
///     }
///     func databaseDidChange(with event: DatabaseEvent) { pending += 1 }
///     func databaseDidCommit(_ db: Database) { committed += pending; pending = 0 }
///     func databaseDidRollback(_ db: Database) { pending = 0 }
/// }
///
/// let counter = NoteCounter()
/// try queue.writeWithoutTransaction { db in db.add(transactionObserver: counter) }
/// ```
///
/// Every method runs on the connection's thread, while the statement that caused it runs:
///
/// - ``databaseDidChange(with:)`` is called for each row a statement changes, when the
///   observer accepts that kind of change. Changes made inside a savepoint are held until the
///   savepoint is released (then delivered) or rolled back (then dropped), so an observer only
///   hears of changes that can still be committed.
/// - ``databaseWillCommit()`` is called before SQLite commits. Throwing from it turns the
///   commit into a rollback, and the statement that was committing — `COMMIT`, the end of
///   ``Connection/inTransaction(_:_:)``, a `write` block, or a lone statement outside a
///   transaction — throws that error.
/// - ``databaseDidCommit(_:)`` and ``databaseDidRollback(_:)`` are called once the transaction
///   has ended. They may use the connection.
///
/// What SQLite does not report, no observer hears: changes to `WITHOUT ROWID` tables (the
/// update hook does not fire for them), schema changes, and changes made by other connections
/// or processes. A transaction that wrote nothing commits without calling
/// ``databaseWillCommit()`` or ``databaseDidCommit(_:)`` (SQLite runs no commit hook for
/// it); the read-only transactions of a queue's `read` blocks call nothing either. While any
/// observer is added, `DELETE FROM t` deletes row by row (SQLite's truncate optimization
/// would empty the table without reporting the rows).
///
/// The protocol does not ask for `Sendable`: an observer is called on the thread of the
/// connection it was added to, one call at a time.
public protocol TransactionObserver: AnyObject {
    /// Whether the observer wants to hear of changes of this kind, in
    /// ``databaseDidChange(with:)``.
    ///
    /// Asked once per statement for each kind of change the statement makes to each table,
    /// when it makes the first one: a statement that inserts many rows asks once.
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool

    /// A row was inserted, updated or deleted, in a transaction that has not ended yet.
    /// - Important: Do not use the connection here: the statement that changed the row is
    ///   still running.
    func databaseDidChange(with event: DatabaseEvent)

    /// The transaction is about to commit. Throw to roll it back instead: the error reaches
    /// whoever was committing. The default does nothing.
    /// - Important: Do not use the connection here: the commit is under way.
    func databaseWillCommit() throws

    /// The transaction committed.
    func databaseDidCommit(_ db: Database)

    /// The transaction was rolled back (also when an observer refused the commit).
    func databaseDidRollback(_ db: Database)
}

extension TransactionObserver {
    /// Lets every commit happen.
    public func databaseWillCommit() throws {}
}

extension Connection {
    /// How long a ``TransactionObserver`` stays added to a connection.
    public enum TransactionObservationExtent: Sendable {
        /// Until the observer is released: the connection holds it weakly.
        case observerLifetime
        /// Until the next transaction ends (committed or rolled back): the connection holds it
        /// until then.
        case nextTransaction
        /// Until the connection closes: the connection holds it.
        case databaseLifetime
    }

    /// Adds a transaction observer to this connection.
    ///
    /// ```swift
    /// try queue.writeWithoutTransaction { db in
    ///     db.add(transactionObserver: observer, extent: .databaseLifetime)
    /// }
    /// ```
    ///
    /// Add observers to the connection that writes: a queue's, or a pool's writer
    /// (`writeWithoutTransaction`). On a connection opened read-only, or closed, nothing
    /// happens. Adding an observer that is already added changes its extent.
    /// - Parameters:
    ///   - transactionObserver: the observer.
    ///   - extent: how long it stays; by default, as long as something else holds it.
    public func add(transactionObserver: some TransactionObserver,
                    extent: TransactionObservationExtent = .observerLifetime) {
        guard !isReadOnly, let db = try? handle.pointer else { return }
        let broker = handle.hooks.broker
        let wasObserving = broker.isObserving
        broker.add(transactionObserver, extent: extent, connection: self, db: db)
        // DELETE statements prepared before, with SQLite's truncate optimization, would empty
        // a table unseen. Setting a flag pragma expires every statement of the connection,
        // cached or held by the app: each is prepared again at its next step, through the
        // authorizer, and deletes row by row.
        if !wasObserving, let queryOnly = try? fetchScalar(Bool.self, sql: "PRAGMA query_only") {
            try? execute(sql: "PRAGMA query_only = \(queryOnly ? "ON" : "OFF")")
        }
    }

    /// Removes a transaction observer from this connection; it hears nothing more.
    ///
    /// ```swift
    /// try queue.writeWithoutTransaction { db in db.remove(transactionObserver: observer) }
    /// ```
    public func remove(transactionObserver: some TransactionObserver) {
        guard let db = try? handle.pointer else { return }
        handle.hooks.broker.remove(transactionObserver, db: db)
    }
}
