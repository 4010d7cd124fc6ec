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
/// What SQLite does not report, no observer hears by itself: changes to `WITHOUT ROWID` tables
/// (the update hook does not fire for them), schema changes, and changes made by other
/// connections or processes. Tell them with ``Connection/notifyChanges(in:)``: observers that
/// accept a change of the region hear ``databaseDidChange()``. A transaction that wrote
/// nothing is told as a commit too (``databaseWillCommit()``, then ``databaseDidCommit(_:)``),
/// as in GRDB; the read-only transactions of a queue's `read` blocks call nothing. While any
/// observer is added, `DELETE FROM t` deletes row by row (SQLite's truncate optimization
/// would empty the table without reporting the rows).
///
/// An observer that has heard enough of a transaction calls
/// ``stopObservingDatabaseChangesUntilNextTransaction()`` from a change callback: it hears of
/// no more changes until the transaction ends, and still of its end.
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

    /// The database changed in a way SQLite does not report, in a table whose changes the
    /// observer accepts: ``Connection/notifyChanges(in:)`` said so. The default does nothing.
    /// - Important: Do not use the connection here.
    func databaseDidChange()

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

    /// Does nothing.
    public func databaseDidChange() {}

    /// Hears of no more changes until the transaction ends: ``databaseDidChange(with:)`` and
    /// ``databaseDidChange()`` are not called again before then, and the end of the transaction
    /// (``databaseWillCommit()``, ``databaseDidCommit(_:)`` or ``databaseDidRollback(_:)``) still
    /// is. For an observer that only needs to know that something changed:
    ///
    /// ```swift
    /// func databaseDidChange(with event: DatabaseEvent) {
    ///     noteChanged = true
    ///     stopObservingDatabaseChangesUntilNextTransaction()
    /// }
    /// ```
    ///
    /// Call it from ``databaseDidChange(with:)`` or ``databaseDidChange()``; elsewhere, where no
    /// change is being told on this thread, it does nothing (GRDB stops the app there).
    public func stopObservingDatabaseChangesUntilNextTransaction() {
        TransactionObservationBroker.notifying?.disableUntilNextTransaction(self)
    }
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

    /// Runs `onCommit` once the next transaction commits, or `onRollback` if it rolls back
    /// (the transaction running now, if there is one), on the connection's thread, with the
    /// connection:
    ///
    /// ```swift
    /// try queue.write { db in
    ///     try note.insert(db)
    ///     db.afterNextTransaction { _ in uploadQueue.schedule(note.id) }
    /// }
    /// ```
    ///
    /// On a connection opened read-only, or closed, neither is ever called. A queue's `read`
    /// block is not a transaction here: it waits for the next write transaction.
    public func afterNextTransaction(onCommit: @escaping @Sendable (Database) -> Void,
                                     onRollback: @escaping @Sendable (Database) -> Void = { _ in }) {
        add(transactionObserver: TransactionEndHandler(onCommit: onCommit, onRollback: onRollback), extent: .nextTransaction)
    }

    /// Tells the transaction observers of changes SQLite does not report: those of another
    /// process, of a `WITHOUT ROWID` table, of the schema, of a C function. Each observer that
    /// accepts a change of one of the region's tables (any insert, delete or update of any
    /// column: ``TransactionObserver/observes(eventsOfKind:)``) hears
    /// ``TransactionObserver/databaseDidChange()``, then the end of the transaction. Outside a
    /// transaction, the changes are on disk already: the observers hear of a commit at once.
    /// An observation of the queue or pool (`observe(_:)`, ``DatabaseRegionObservation``) that
    /// reads one of the region's tables then refreshes; the others do not. A region names
    /// tables: for changes seen through a view, name the tables the view reads.
    ///
    /// ```swift
    /// try queue.write { db in
    ///     try db.notifyChanges(in: Note.all())
    /// }
    /// ```
    ///
    /// On a connection opened read-only, inside a queue's `read` block, or with no observer
    /// added, it does nothing.
    /// - Throws: ``DatabaseError`` when a request of the region does not compile; outside a
    ///   transaction, the error of an observer that refused the commit
    ///   (``TransactionObserver/databaseWillCommit()``).
    public func notifyChanges(in region: some DatabaseRegionConvertible) throws {
        let broker = handle.hooks.broker
        guard !isReadOnly, broker.isObserving else { return }
        let db = try handle.pointer
        try broker.notifyChanges(ofKinds: try changeKinds(in: region.databaseRegion(self)), db: db)
    }

    /// Every kind of change to the tables of `region` (the schema's tables, main and
    /// temporary, for the full database), with the schema's spelling of each table's name.
    private func changeKinds(in region: DatabaseRegion) throws -> [DatabaseEventKind] {
        let tables = try String.fetchAll(self, sql: """
            SELECT name FROM sqlite_master WHERE type = 'table' UNION ALL SELECT name FROM sqlite_temp_master WHERE type = 'table'
            """)
        var kinds: [DatabaseEventKind] = []
        for table in tables where region.isModified(byEventsOfKind: .insert(tableName: table)) {
            kinds += [.insert(tableName: table), .delete(tableName: table),
                      .update(tableName: table, columnNames: Set(try columnNames(ofTable: table)))]
        }
        // A table the schema does not have (yet) is named as the region names it.
        for table in region.tableNames ?? [] where !tables.contains(where: { $0.lowercased() == table }) {
            kinds += [.insert(tableName: table), .delete(tableName: table), .update(tableName: table, columnNames: [])]
        }
        return kinds
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

/// The observer of ``Connection/afterNextTransaction(onCommit:onRollback:)``: it hears no
/// change, only how the transaction ends.
private final class TransactionEndHandler: TransactionObserver {
    let onCommit: @Sendable (Database) -> Void
    let onRollback: @Sendable (Database) -> Void

    init(onCommit: @escaping @Sendable (Database) -> Void, onRollback: @escaping @Sendable (Database) -> Void) {
        self.onCommit = onCommit
        self.onRollback = onRollback
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { onCommit(db) }
    func databaseDidRollback(_ db: Database) { onRollback(db) }
}
