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
///   `DETACH` where asked (``refusesAttach``); while transaction observers are added, it turns
///   off SQLite's truncate optimization (`DELETE FROM t` without `WHERE` then deletes row by
///   row, so the update hook sees it); and it notes what a statement being prepared updates and
///   which savepoint it touches (``StatementEffects``), and schema changes, which no update hook
///   reports.
/// - Tracing: ``Connection/trace(_:)``.
/// - The update, commit and rollback hooks belong to the ``broker``, which tells every
///   transaction observer (request observation is one of them).
/// - Read recording, for change observation: the SQL of every statement a block prepares or
///   takes from the cache (see ``recordedSQL``).
/// - SQL functions and collations written in Swift, and stand-ins for missing collations
///   (see ``Connection/add(function:)`` and ``Connection/placeholderCollations``).
final class ConnectionHooks {
    var trace: ((String) -> Void)?

    /// Told of every error that reports damage, for the corruption handler of the queue or
    /// pool the connection belongs to.
    var corruptionWatch: CorruptionWatch?

    /// The dispatcher of the update, commit and rollback hooks to transaction observers.
    let broker = TransactionObservationBroker()
    /// While a statement is prepared by ``Connection``, what the authorizer sees it do.
    var preparing: StatementEffects?

    /// Set when a statement that may change the main schema is prepared; cleared by whoever
    /// keeps the schema copy (see ``SchemaCopyKeeper``).
    var schemaMayHaveChanged = false

    /// How many statements that may change the schema were prepared: the statement cache
    /// starts afresh when it moves (a cached `SELECT *` keeps the columns it was prepared with).
    private(set) var schemaChangeCount: UInt64 = 0

    /// Records that the file's schema was replaced under the connection (a migration
    /// snapshot put back), so that cached statements are prepared again.
    func noteSchemaReplaced() {
        schemaMayHaveChanged = true
        schemaChangeCount &+= 1
    }

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
                hooks.broker.transactionMayHaveChangedSchema = true
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
            case SQLITE_UPDATE:
                if hooks.preparing != nil, let name, let detail {
                    hooks.preparing?.updatedColumns[String(cString: name).lowercased(), default: []].insert(String(cString: detail))
                }
                return SQLITE_OK
            case SQLITE_TRANSACTION:
                if hooks.preparing != nil, let name { hooks.preparing?.rollsBack = sqlite3_stricmp(name, "ROLLBACK") == 0 }
                return SQLITE_OK
            case SQLITE_SAVEPOINT:
                if hooks.preparing != nil, let name, let detail, let operation = StatementEffects.Savepoint.Operation(name) {
                    hooks.preparing?.savepoint = .init(operation: operation, name: String(cString: detail))
                }
                return SQLITE_OK
            case SQLITE_DELETE:
                // SQLITE_IGNORE on a DELETE statement only turns off the truncate optimization,
                // which would empty a table without telling the update hook: needed while
                // transaction observers are added, and only then (statements prepared before
                // expire when the first is added). A DROP asks for DELETE on
                // what it drops right after its own action: there, SQLITE_IGNORE would silently
                // skip the drop. SQLite's own tables are left alone.
                guard hooks.broker.isObserving, let name, sqlite3_strnicmp(name, "sqlite_", 7) != 0,
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
