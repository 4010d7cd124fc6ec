import CSQLCipher
import Foundation

/// The one owner of a connection's update, commit and rollback hooks: it hears every change
/// and transaction end from SQLite and tells every ``TransactionObserver`` added to the
/// connection — the app's, and the one that drives request observation (``ObservationCenter``).
///
/// The hooks are installed while at least one observer is added (they cost a little on every
/// write) and removed with the last one. Like the connection, the broker is used on one thread
/// at a time; it lives in the connection's ``ConnectionHooks``, as long as the `sqlite3*`.
///
/// - Changes: the update hook reports each row. Which observers hear of it is asked once per
///   statement for each kind of change and table (``TransactionObserver/observes(eventsOfKind:)``),
///   with the updated columns the authorizer saw when the statement was prepared
///   (``StatementEffects``). Inside a savepoint, changes wait in a buffer: a released savepoint
///   (back to none) delivers them, a rolled-back one drops its own.
/// - Commit: the commit hook delivers what waits, then asks every observer
///   (``TransactionObserver/databaseWillCommit()``); an error makes the hook refuse the commit,
///   SQLite rolls back, and the statement that was committing throws that error (see
///   ``takeCommitRefusal()``).
/// - End: the commit hook runs before the commit can still fail, so the outcome is told once
///   the statement that ended the transaction is done and the connection is back in autocommit
///   mode (``statementDidFinish(db:)``). Then observers that were released, or added for
///   the next transaction only, go. SQLite runs no commit hook for a transaction that wrote
///   nothing: a statement that started inside a transaction and leaves the connection in
///   autocommit mode with no hook run ended an empty one, told as a commit (or a rollback for
///   `ROLLBACK`), as GRDB tells it (``statementDidRun(_:db:)``).
/// - Undetected changes: ``notifyChanges(ofKinds:db:)`` calls
///   ``TransactionObserver/databaseDidChange()`` of the observers that accept one of the kinds.
/// - An observer may stop hearing of changes until the transaction ends
///   (``TransactionObserver/stopObservingDatabaseChangesUntilNextTransaction()``), from its
///   change callbacks, during which the broker is this thread's ``notifying``.
final class TransactionObservationBroker {
    private var observations: [TransactionObservation] = []
    /// The connection observers receive in their commit and rollback callbacks.
    private weak var connection: Connection?

    /// How the transaction whose commit or rollback hook ran ended; told once the statement
    /// that ended it is done.
    private(set) var endingTransaction: Ending?
    /// The error of the observer that refused the last commit, for the statement to throw.
    private var commitRefusal: (any Error)?

    /// Changes made inside savepoints, with who hears of them, until the savepoints end.
    private var heldChanges: [(event: DatabaseEvent, recipients: [TransactionObservation])] = []
    /// Open savepoints (lowercased names), and how many held changes came before each.
    private var savepoints: [(name: String, heldCount: Int)] = []

    /// The observers that accepted each kind of change during the running statement.
    private var recipientsByKind: [ChangeKey: [TransactionObservation]] = [:]
    /// The columns the running statement updates, per lowercased table.
    private var updatedColumns: [String: Set<String>] = [:]

    /// Whether the open transaction may have changed the schema, which no update hook
    /// reports: the authorizer saw a CREATE, DROP or ALTER prepared.
    var transactionMayHaveChangedSchema = false
    /// Set while one of the connection's own read-only transactions runs (a queue's `read`
    /// block, an observation's fetch): its end is nobody's business.
    var isInReadOnlyAccess = false
    /// Whether the running statement started inside a transaction: if it ends in autocommit
    /// mode with no hook run, it ended an empty transaction.
    private var statementStartedInTransaction = false

    enum Ending { case committed, rolledBack }

    private struct ChangeKey: Hashable {
        let kind: DatabaseEvent.Kind
        let table: String
    }

    /// Whether any observer is added: the hooks are installed, and the authorizer turns off
    /// the truncate optimization.
    var isObserving: Bool { !observations.isEmpty }

    // MARK: Observers

    func add(_ observer: some TransactionObserver, extent: Connection.TransactionObservationExtent,
             connection: Connection, db: OpaquePointer) {
        self.connection = connection
        recipientsByKind = [:]
        if let index = observations.firstIndex(where: { $0.wraps(observer) }) {
            // Already added: only its extent changes.
            observations[index] = TransactionObservation(observer, extent: extent)
            return
        }
        if observations.isEmpty {
            // What was prepared or held before nobody listened says nothing about what comes.
            transactionMayHaveChangedSchema = false
            heldChanges = []
            savepoints = []
            statementStartedInTransaction = false
            installHooks(db)
        }
        observations.append(TransactionObservation(observer, extent: extent))
    }

    func remove(_ observer: some TransactionObserver, db: OpaquePointer) {
        observations.removeAll { $0.wraps(observer) }
        recipientsByKind = [:]
        if observations.isEmpty { uninstallHooks(db) }
    }

    /// The observers as they are, to add to another connection (a pool's writer reopened).
    var addedObservers: [(observer: any TransactionObserver, extent: Connection.TransactionObservationExtent)] {
        observations.compactMap { observation in observation.observer.map { ($0, observation.extent) } }
    }

    /// Forgets every observer (the connection closed).
    func removeAll() {
        observations = []
        heldChanges = []
        recipientsByKind = [:]
    }

    // MARK: Statements

    /// A statement starts: its changes are asked about afresh, with the columns it updates.
    func statementWillStart(_ effects: StatementEffects, db: OpaquePointer) {
        recipientsByKind = [:]
        updatedColumns = effects.updatedColumns
        statementStartedInTransaction = sqlite3_get_autocommit(db) == 0
    }

    /// A statement ran to its end: the savepoint it ran, and the transaction it ended, told.
    /// - Throws: the error of an observer that refused the commit of an empty transaction (then
    ///   told as a rollback).
    func statementDidRun(_ effects: StatementEffects, db: OpaquePointer) throws {
        if let savepoint = effects.savepoint { savepointDidRun(savepoint, db: db) }
        defer { statementStartedInTransaction = false }
        if endingTransaction == nil, statementStartedInTransaction, sqlite3_get_autocommit(db) != 0 {
            // An empty transaction ended: SQLite ran neither hook.
            if effects.rollsBack || !transactionWillCommit() { endingTransaction = .rolledBack }
        }
        guard endingTransaction != nil else { return }
        let refusal = commitRefusal
        statementDidFinish(db: db)
        if let refusal { throw refusal }
    }

    /// Changes SQLite does not report (another process's, the schema's, a C function's) are
    /// told to the observers that accept one of `kinds`
    /// (``TransactionObserver/databaseDidChange()``). Outside a transaction they are on disk
    /// already: the observers are told at once of a commit, as of an empty transaction's.
    /// - Throws: the error of an observer that refused that commit (then told as a rollback).
    func notifyChanges(ofKinds kinds: [DatabaseEventKind], db: OpaquePointer) throws {
        guard !isInReadOnlyAccess else { return }
        let recipients = observations.filter { observation in kinds.contains { observation.observes(eventsOfKind: $0) } }
        whileNotifying {
            for observation in recipients where observation.isEnabled { observation.databaseDidChange(ofKinds: kinds) }
        }
        guard sqlite3_get_autocommit(db) != 0 else { return }
        if !transactionWillCommit() { endingTransaction = .rolledBack }
        let refusal = commitRefusal
        statementDidFinish(db: db)
        if let refusal { throw refusal }
    }

    /// The broker calling an observer's change callbacks on this thread, if any.
    static var notifying: TransactionObservationBroker? {
        pthread_getspecific(notifyingKey).map { Unmanaged<TransactionObservationBroker>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Runs `body` with this broker as this thread's ``notifying`` (the one before it again
    /// after: an observer may write to another connection from its callback).
    private func whileNotifying(_ body: () -> Void) {
        let previous = pthread_getspecific(Self.notifyingKey)
        pthread_setspecific(Self.notifyingKey, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(Self.notifyingKey, previous) }
        body()
    }

    private static let notifyingKey: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "no thread-specific key is left for transaction observers")
        return key
    }()

    /// `observer` hears of no more changes until the transaction ends; its commit and
    /// rollback callbacks still come.
    func disableUntilNextTransaction(_ observer: some TransactionObserver) {
        for observation in observations where observation.wraps(observer) { observation.isEnabled = false }
    }

    /// A statement that begins, releases or rolls back a savepoint ran to its end.
    func savepointDidRun(_ savepoint: StatementEffects.Savepoint, db: OpaquePointer) {
        let name = savepoint.name.lowercased()
        switch savepoint.operation {
        case .begin:
            savepoints.append((name, heldChanges.count))
        case .release:
            guard let index = savepoints.lastIndex(where: { $0.name == name }) else { return }
            savepoints.removeSubrange(index...)
            if savepoints.isEmpty { deliverHeldChanges() }
        case .rollback:
            // ROLLBACK TO keeps the savepoint open, and undoes what came after it.
            guard let index = savepoints.lastIndex(where: { $0.name == name }) else { return }
            heldChanges.removeSubrange(savepoints[index].heldCount...)
            savepoints.removeSubrange((index + 1)...)
        }
        if sqlite3_get_autocommit(db) != 0 { savepoints = [] }
    }

    /// The error an observer refused the commit with, once: the statement that was
    /// committing throws it instead of SQLite's `SQLITE_CONSTRAINT_COMMITHOOK`.
    func takeCommitRefusal() -> (any Error)? {
        defer { commitRefusal = nil }
        return commitRefusal
    }

    /// Called when a statement has run to its end or was reset: if it ended a transaction
    /// (the commit or rollback hook ran and the connection is back in autocommit mode), tells
    /// the observers.
    func statementDidFinish(db: OpaquePointer) {
        guard let ending = endingTransaction, sqlite3_get_autocommit(db) != 0 else { return }
        endingTransaction = nil
        commitRefusal = nil
        let notified = observations
        if !isInReadOnlyAccess, let connection {
            for observation in notified {
                switch ending {
                case .committed: observation.databaseDidCommit(connection)
                case .rolledBack: observation.databaseDidRollback(connection)
                }
            }
        }
        transactionMayHaveChangedSchema = false
        for observation in observations { observation.isEnabled = true }
        // Observers released meanwhile, and those added for one transaction, go.
        observations.removeAll { !$0.isObserving }
        recipientsByKind = [:]
        if observations.isEmpty { uninstallHooks(db) }
    }

    // MARK: SQLite's hooks

    private func databaseDidChange(_ event: DatabaseEvent) {
        let key = ChangeKey(kind: event.kind, table: event.tableName)
        let recipients: [TransactionObservation]
        if let known = recipientsByKind[key] {
            recipients = known
        } else {
            let kind: DatabaseEventKind
            switch event.kind {
            case .insert: kind = .insert(tableName: event.tableName)
            case .delete: kind = .delete(tableName: event.tableName)
            case .update:
                kind = .update(tableName: event.tableName, columnNames: updatedColumns[event.tableName.lowercased()] ?? [])
            }
            recipients = observations.filter { $0.observes(eventsOfKind: kind) }
            recipientsByKind[key] = recipients
        }
        guard !recipients.isEmpty else { return }
        if savepoints.isEmpty {
            whileNotifying {
                for observation in recipients where observation.isEnabled { observation.databaseDidChange(with: event) }
            }
        } else {
            heldChanges.append((event, recipients))
        }
    }

    private func deliverHeldChanges() {
        let held = heldChanges
        heldChanges = []
        whileNotifying {
            for (event, recipients) in held {
                for observation in recipients where observation.isEnabled { observation.databaseDidChange(with: event) }
            }
        }
    }

    /// The commit hook: `true` lets the commit happen.
    private func transactionWillCommit() -> Bool {
        savepoints = []
        deliverHeldChanges()
        do {
            if !isInReadOnlyAccess {
                for observation in observations { try observation.databaseWillCommit() }
            }
            endingTransaction = .committed
            return true
        } catch {
            // The rollback hook runs next, and the statement fails.
            commitRefusal = error
            return false
        }
    }

    private func transactionDidRollBack() {
        heldChanges = []
        savepoints = []
        endingTransaction = .rolledBack
    }

    private func installHooks(_ db: OpaquePointer) {
        endingTransaction = nil
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_update_hook(db, { context, operation, database, table, rowID in
            guard let context, let table, let kind = DatabaseEvent.Kind(rawValue: operation) else { return }
            let broker = Unmanaged<TransactionObservationBroker>.fromOpaque(context).takeUnretainedValue()
            // Nearly every change is to `main`: no string is built for its name.
            let databaseName = database.map { sqlite3_stricmp($0, "main") == 0 ? "main" : String(cString: $0) } ?? "main"
            broker.databaseDidChange(DatabaseEvent(kind: kind, databaseName: databaseName, tableName: String(cString: table), rowID: rowID))
        }, context)
        sqlite3_commit_hook(db, { context in
            guard let context else { return 0 }
            let broker = Unmanaged<TransactionObservationBroker>.fromOpaque(context).takeUnretainedValue()
            return broker.transactionWillCommit() ? 0 : 1
        }, context)
        sqlite3_rollback_hook(db, { context in
            guard let context else { return }
            Unmanaged<TransactionObservationBroker>.fromOpaque(context).takeUnretainedValue().transactionDidRollBack()
        }, context)
    }

    private func uninstallHooks(_ db: OpaquePointer) {
        sqlite3_update_hook(db, nil, nil)
        sqlite3_commit_hook(db, nil, nil)
        sqlite3_rollback_hook(db, nil, nil)
        endingTransaction = nil
        heldChanges = []
        savepoints = []
    }
}
