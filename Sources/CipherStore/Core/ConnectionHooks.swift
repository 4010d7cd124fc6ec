import CSQLCipher

/// Every callback a connection registers with SQLite, in one box that the C callbacks reach
/// through their context pointer.
///
/// The box belongs to the connection's ``ConnectionHandle`` and lives as long as the
/// `sqlite3*`, so a callback never sees a freed box. Like the connection, it is used on one
/// thread at a time.
///
/// - The authorizer is installed on every connection: it refuses key pragmas
///   (``KeyPragmaGuard``), temporary storage on disk (``TempStoreGuard``), `ATTACH` and
///   `DETACH` where asked (``refusesAttach``), and, while
///   commits are tracked for observers, turns off SQLite's truncate optimization (`DELETE FROM
///   t` without `WHERE` then deletes row by row, so the update hook sees it).
/// - Tracing: ``Connection/trace(_:)``.
/// - Commit tracking, for change observation: the update hook collects the tables a
///   transaction changes (the authorizer notes schema changes, which it does not report), the
///   commit hook sets them aside, the rollback hook drops them, and the statement whose step
///   or reset ended the transaction hands the outcome to ``commitHandler`` once the commit
///   really happened (the commit hook runs before the commit can still fail).
/// - Read recording, for change observation: the SQL of every statement a block prepares or
///   takes from the cache (see ``recordedSQL``).
/// - SQL functions and collations written in Swift, and stand-ins for missing collations
///   (see ``Connection/add(function:)`` and ``Connection/placeholderCollations``).
final class ConnectionHooks {
    var trace: ((String) -> Void)?

    /// Told of every error that reports damage, for the corruption handler of the queue or
    /// pool the connection belongs to.
    var corruptionWatch: CorruptionWatch?

    /// Called on the connection's thread after each committed write transaction, and after
    /// each rollback; `nil` when nobody observes.
    private(set) var commitHandler: (@Sendable (TransactionEnd) -> Void)?
    private var changedTables: Set<String> = []
    /// Whether the open transaction may have changed what the update hook does not report:
    /// the schema (the authorizer saw a CREATE, DROP or ALTER), or rows written before the
    /// hooks were installed.
    private var changedUnseen = false
    /// How the transaction whose commit or rollback hook ran ended; delivered once the
    /// statement that ended it is done (the commit hook runs before a commit can still fail).
    private(set) var endingTransaction: TransactionEnd?

    /// Set when a statement that may change the main schema is prepared; cleared by whoever
    /// keeps the schema copy (see ``SchemaCopyKeeper``).
    var schemaMayHaveChanged = false

    /// How many statements that may change the schema were prepared: the statement cache
    /// starts afresh when it moves (a cached `SELECT *` keeps the columns it was prepared with).
    private(set) var schemaChangeCount: UInt64 = 0

    /// The tables observed statements read, learned once per schema (see ``ObservedRegion``).
    let observedRegions = ObservedRegion.Cache()

    /// While not `nil`, collects the SQL of the statements the connection runs.
    var recordedSQL: Set<String>?

    /// The functions and collations added and not removed. SQLite holds its own reference to
    /// each, released when it is removed or the connection closes; these are for copying them
    /// to another connection.
    var functions: [DatabaseFunction.ID: DatabaseFunction] = [:]
    var collations: [DatabaseCollation.ID: DatabaseCollation] = [:]
    /// The collations replaced by stand-ins in binary order, in the order first needed.
    var placeholderCollations: [String] = []

    /// The authorizer's previous action while a statement is prepared.
    private var lastAuthorizedAction: Int32 = 0
    /// Whether `ATTACH` and `DETACH` are refused (connections that run a tool user's SQL).
    var refusesAttach = false
    /// Lets SQL put temporary storage on disk: only for the test that shows what the refusal
    /// prevents (``TempStoreGuard``).
    var allowsTemporaryFiles = false
    /// Why the authorizer last denied a statement: the message of its `SQLITE_AUTH` error.
    private(set) var denialReason: String?

    static let attachRefusal = "ATTACH and DETACH are refused here: an ATTACH would create a file beside the database, and ATTACH … KEY would put a key into SQL text. Query each database on its own"

    /// Installs the authorizer; called once, when the connection opens.
    func installAuthorizer(on db: OpaquePointer) {
        sqlite3_set_authorizer(db, { context, action, name, detail, _, _ in
            guard let context else { return SQLITE_OK }
            let hooks = Unmanaged<ConnectionHooks>.fromOpaque(context).takeUnretainedValue()
            let previous = hooks.lastAuthorizedAction
            hooks.lastAuthorizedAction = action
            if ConnectionHooks.schemaActions.contains(action) {
                hooks.changedUnseen = true
                hooks.schemaMayHaveChanged = true
                hooks.schemaChangeCount &+= 1
            }
            switch action {
            case SQLITE_PRAGMA:
                guard let name else { return SQLITE_OK }
                if KeyPragmaGuard.refuses(pragma: name) {
                    hooks.denialReason = KeyPragmaGuard.refusal
                    return SQLITE_DENY
                }
                if !hooks.allowsTemporaryFiles, TempStoreGuard.refuses(pragma: name, value: detail) {
                    hooks.denialReason = TempStoreGuard.refusal
                    return SQLITE_DENY
                }
                return SQLITE_OK
            case SQLITE_ATTACH, SQLITE_DETACH:
                guard hooks.refusesAttach else { return SQLITE_OK }
                hooks.denialReason = ConnectionHooks.attachRefusal
                return SQLITE_DENY
            case SQLITE_DELETE:
                // SQLITE_IGNORE on a DELETE statement only turns off the truncate optimization,
                // which would empty a table without telling the update hook: needed while
                // commits are tracked for observers, and only then (statements prepared before
                // are dropped from the cache when tracking starts). A DROP asks for DELETE on
                // what it drops right after its own action: there, SQLITE_IGNORE would silently
                // skip the drop. SQLite's own tables are left alone.
                guard hooks.commitHandler != nil, let name, sqlite3_strnicmp(name, "sqlite_", 7) != 0,
                      !ConnectionHooks.dropActions.contains(previous) else {
                    return SQLITE_OK
                }
                return SQLITE_IGNORE
            default:
                return SQLITE_OK
            }
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    private static let dropActions: Set<Int32> = [SQLITE_DROP_TABLE, SQLITE_DROP_TEMP_TABLE, SQLITE_DROP_VIEW,
                                                 SQLITE_DROP_TEMP_VIEW, SQLITE_DROP_VTABLE]

    /// Actions that change the schema, which no update hook reports. Seen when a statement is
    /// prepared (a statement re-prepares after the schema changed, so a cached one too).
    private static let schemaActions: Set<Int32> = [
        SQLITE_CREATE_INDEX, SQLITE_CREATE_TABLE, SQLITE_CREATE_TEMP_INDEX, SQLITE_CREATE_TEMP_TABLE,
        SQLITE_CREATE_TEMP_TRIGGER, SQLITE_CREATE_TEMP_VIEW, SQLITE_CREATE_TRIGGER, SQLITE_CREATE_VIEW,
        SQLITE_CREATE_VTABLE, SQLITE_DROP_INDEX, SQLITE_DROP_TABLE, SQLITE_DROP_TEMP_INDEX, SQLITE_DROP_TEMP_TABLE,
        SQLITE_DROP_TEMP_TRIGGER, SQLITE_DROP_TEMP_VIEW, SQLITE_DROP_TRIGGER, SQLITE_DROP_VIEW, SQLITE_DROP_VTABLE,
        SQLITE_ALTER_TABLE,
    ]

    /// Starts (or, with `nil`, stops) calling `handler` after each committed write transaction
    /// and each rollback.
    func setCommitHandler(_ handler: (@Sendable (TransactionEnd) -> Void)?, db: OpaquePointer) {
        changedTables = []
        endingTransaction = nil
        // Installed inside a transaction: its earlier writes were not seen.
        changedUnseen = sqlite3_get_autocommit(db) == 0
        commitHandler = handler
        guard handler != nil else {
            sqlite3_update_hook(db, nil, nil)
            sqlite3_commit_hook(db, nil, nil)
            sqlite3_rollback_hook(db, nil, nil)
            return
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_update_hook(db, { context, _, _, table, _ in
            guard let context, let table else { return }
            let hooks = Unmanaged<ConnectionHooks>.fromOpaque(context).takeUnretainedValue()
            hooks.changedTables.insert(String(cString: table).lowercased())
        }, context)
        sqlite3_commit_hook(db, { context in
            guard let context else { return 0 }
            let hooks = Unmanaged<ConnectionHooks>.fromOpaque(context).takeUnretainedValue()
            hooks.endingTransaction = .committed(tables: hooks.changedTables, unseenChanges: hooks.changedUnseen)
            hooks.changedTables = []
            hooks.changedUnseen = false
            return 0
        }, context)
        sqlite3_rollback_hook(db, { context in
            guard let context else { return }
            let hooks = Unmanaged<ConnectionHooks>.fromOpaque(context).takeUnretainedValue()
            hooks.changedTables = []
            hooks.changedUnseen = false
            hooks.endingTransaction = .rolledBack
        }, context)
    }

    /// Called when a statement has run to its end or was reset: if it ended a transaction
    /// (the commit or rollback hook ran and the connection is back in autocommit mode), tells
    /// the handler.
    func statementDidFinish(db: OpaquePointer) {
        guard let end = endingTransaction, sqlite3_get_autocommit(db) != 0 else { return }
        endingTransaction = nil
        commitHandler?(end)
    }
}

extension Connection {
    /// Calls `handler` with the SQL of each statement as it starts, or stops tracing with `nil`.
    ///
    /// The SQL is the text as prepared, with `?` placeholders: bound values (which may be
    /// secrets) are never expanded. Statements run by triggers are reported as comments.
    ///
    /// ```swift
    /// var statements: [String] = []
    /// try db.trace { statements.append($0) }
    /// ```
    ///
    /// - Throws: ``CipherStoreError/connectionClosed`` after ``close()``.
    public func trace(_ handler: ((String) -> Void)?) throws {
        let db = try handle.pointer
        let hooks = handle.hooks
        hooks.trace = handler
        guard handler != nil else {
            sqlite3_trace_v2(db, 0, nil, nil)
            return
        }
        sqlite3_trace_v2(db, UInt32(SQLITE_TRACE_STMT), { _, context, _, sqlText in
            guard let context, let sqlText else { return 0 }
            let hooks = Unmanaged<ConnectionHooks>.fromOpaque(context).takeUnretainedValue()
            hooks.trace?(String(cString: sqlText.assumingMemoryBound(to: CChar.self)))
            return 0
        }, Unmanaged.passUnretained(hooks).toOpaque())
    }

    /// Starts (or, with `nil`, stops) calling `handler` after each committed write
    /// transaction and each rollback of this connection.
    func setCommitHandler(_ handler: (@Sendable (TransactionEnd) -> Void)?) throws {
        let tracking = handle.hooks.commitHandler != nil
        handle.hooks.setCommitHandler(handler, db: try handle.pointer)
        // DELETE statements prepared before, with SQLite's truncate optimization, would empty a
        // table unseen. Setting a flag pragma expires every statement of the connection, cached
        // or held by the app: each is prepared again at its next step, through the authorizer,
        // and deletes row by row.
        if handler != nil && !tracking {
            let queryOnly = try fetchScalar(Bool.self, sql: "PRAGMA query_only") ?? false
            try execute(sql: "PRAGMA query_only = \(queryOnly ? "ON" : "OFF")")
        }
    }

    /// Runs `body` and returns its result with the SQL of every statement it ran.
    func recordingStatements<T>(_ body: () throws -> T) rethrows -> (T, Set<String>) {
        let hooks = handle.hooks
        let outer = hooks.recordedSQL
        hooks.recordedSQL = []
        defer { hooks.recordedSQL = outer }
        let result = try body()
        return (result, hooks.recordedSQL ?? [])
    }
}

/// How a transaction ended, as change observation hears of it.
enum TransactionEnd: Sendable {
    /// Committed, changing these tables (lowercased names). `unseenChanges`: it may also have
    /// changed what no table name tells (the schema, or rows written before anyone listened).
    case committed(tables: Set<String>, unseenChanges: Bool)
    case rolledBack
}
