import CSQLCipher
import Foundation

/// A prepared statement.
///
/// Get one from ``Connection/makeStatement(sql:)`` or ``Connection/cachedStatement(sql:)``.
/// It is finalized when released.
///
/// ```swift
/// let insert = try db.makeStatement(sql: "INSERT INTO item(name) VALUES (?)")
/// for name in ["a", "b"] { try insert.execute(arguments: [name]) }
/// ```
///
/// Not `Sendable`: a statement belongs to its connection's thread or queue.
public final class Statement {
    let handle: ConnectionHandle
    @usableFromInline let pointer: OpaquePointer
    /// The statement's SQL, as written (bound values are never part of it).
    public let sql: String
    /// The number of result columns.
    public let columnCount: Int
    /// The number of parameters.
    public let parameterCount: Int
    /// The result column names, in order.
    public private(set) lazy var columnNames: [String] = (0..<columnCount).map {
        String(cString: sqlite3_column_name(pointer, Int32($0)))
    }
    /// Whether SQLite's result columns are still ``columnNames``: a schema change after the
    /// statement was prepared makes SQLite prepare it again at its first step, with the
    /// columns the tables have then (`SELECT *` after `ADD COLUMN`). Ask after a step.
    var hasPreparedColumns: Bool {
        Int(sqlite3_column_count(pointer)) == columnNames.count && columnNames.indices.allSatisfy { index in
            sqlite3_column_name(pointer, Int32(index)).map { String(cString: $0) } == columnNames[index]
        }
    }
    /// Shared layout for the rows this statement produces.
    private(set) lazy var rowLayout = RowLayout(columnNames: columnNames)
    /// What the authorizer saw the statement do when it was prepared, for transaction observers.
    let effects: StatementEffects
    /// Whether the statement ran since its last reset: binding then needs a reset first, and
    /// otherwise does not (a second `sqlite3_reset` per execution costs as much as a bind).
    private var hasRun = false

    init(handle: ConnectionHandle, pointer: OpaquePointer, sql: String, effects: StatementEffects = .none) {
        self.handle = handle
        self.pointer = pointer
        self.sql = sql
        self.effects = effects
        self.columnCount = Int(sqlite3_column_count(pointer))
        self.parameterCount = Int(sqlite3_bind_parameter_count(pointer))
    }

    deinit {
        sqlite3_finalize(pointer)
    }

    /// Whether the statement is in the middle of producing rows.
    var isBusy: Bool { sqlite3_stmt_busy(pointer) != 0 }

    /// Whether a cursor reads this statement's rows: from the cursor's making, its arguments
    /// bound, until it is exhausted or released. SQLite calls a statement busy only from its
    /// first step, so a cursor made and not yet read would otherwise lose its statement to the
    /// next use of the same SQL (its arguments bound anew, its rows shared with another
    /// cursor); ``Connection/cachedStatement(sql:)`` hands out neither.
    var isHeldByCursor = false

    /// Resets the statement and gives it back to its connection's cache: its cursor is done.
    func releaseFromCursor() {
        reset()
        isHeldByCursor = false
    }

    /// Whether the statement leaves the database unchanged.
    public var isReadOnly: Bool { sqlite3_stmt_readonly(pointer) != 0 }

    /// Runs the statement to completion with the given arguments, discarding any rows.
    /// - Throws: ``DatabaseError`` or ``CipherStoreError/invalidArguments(reason:sql:)``.
    public func execute(arguments: StatementArguments = .none) throws {
        try bind(arguments)
        defer { reset() }
        while try step() {}
    }

    /// Runs the statement to completion with one value per parameter, in order, each bound
    /// as it is: no ``StatementArguments`` and no array are built.
    ///
    /// The same binding as `execute(arguments: [a, b, c])`, for a statement run many times in
    /// a loop: an array literal of arguments costs about as much to build as the statement
    /// costs to run (BENCHMARKS.md, "insert, positional").
    ///
    /// ```swift
    /// let insert = try db.makeStatement(sql: "INSERT INTO point(x, y, label) VALUES (?, ?, ?)")
    /// for point in points { try insert.execute(values: point.x, point.y, point.label) }
    /// ```
    ///
    /// A `nil` needs its type (`String?.none`, or an optional variable): each value's type is
    /// the pack's.
    /// - Throws: ``CipherStoreError/invalidArguments(reason:sql:)`` when the number of values
    ///   is not the statement's parameter count (nothing runs), or ``DatabaseError``.
    @inlinable
    public func execute<each Value: DatabaseValueConvertible>(values: repeat each Value) throws {
        var count = 0
        for _ in repeat (each Value).self { count += 1 }
        try prepareToBind(count: count)
        var index: Int32 = 1
        for value in repeat each values {
            try bind(value.databaseValue, at: index)
            index += 1
        }
        defer { reset() }
        while try step() {}
    }

    /// Resets the statement if it ran (a refused count too lets go of its read), then checks a
    /// count of positional values against the parameters: every parameter then gets a value,
    /// so old bindings need no clearing.
    @usableFromInline
    func prepareToBind(count: Int) throws {
        if hasRun { reset() }
        guard count == parameterCount else {
            throw CipherStoreError.invalidArguments(
                reason: "the statement has \(parameterCount) parameter(s) but \(count) value(s) were given; pass one value per parameter", sql: sql)
        }
    }

    /// Runs the statement to completion with an encoded record's values, one per parameter in
    /// order: the positional arguments without an array of their own.
    func execute(columns: [(name: String, value: DatabaseValue)]) throws {
        try prepareToBind(count: columns.count)
        for index in columns.indices { try bind(columns[index].value, at: Int32(index + 1)) }
        defer { reset() }
        while try step() {}
    }

    /// Runs the statement to completion with one value per parameter, in order, from an array
    /// that is not a ``StatementArguments``: an encoded record's values.
    func execute(orderedValues values: [DatabaseValue]) throws {
        try prepareToBind(count: values.count)
        for index in values.indices { try bind(values[index], at: Int32(index + 1)) }
        defer { reset() }
        while try step() {}
    }

    /// Resets the statement and binds new arguments.
    /// - Throws: ``CipherStoreError/invalidArguments(reason:sql:)`` when they do not fit.
    public func bind(_ arguments: StatementArguments) throws {
        switch arguments.values {
        case .positional(let values):
            try prepareToBind(count: values.count)
            for index in 0..<values.count {
                try bind(values[index], at: Int32(index + 1))
            }
        case .named(let values):
            if hasRun { reset() }
            try bind(named: values)
        }
    }

    /// Binds named values: each must name a parameter, and every parameter must get one value.
    private func bind(named values: [(name: String, value: DatabaseValue)]) throws {
        let indexes = parameterIndexes
        var bound = BoundParameters(count: parameterCount)
        for (name, value) in values {
            guard let index = parameterIndex(named: name, indexes) else {
                throw CipherStoreError.invalidArguments(reason: "the statement has no parameter named '\(name)'", sql: sql)
            }
            guard bound.insert(index) else {
                throw CipherStoreError.invalidArguments(reason: "the parameter '\(Self.unprefixed(name) ?? name)' was given more than one value; give each parameter once", sql: sql)
            }
            try bind(value, at: index)
        }
        guard bound.count == indexes.count else {
            let missing = indexes.filter { !bound.contains($0.value) }.map(\.key).sorted()
            throw CipherStoreError.invalidArguments(reason: "no value for parameter(s) \(missing.joined(separator: ", ")); pass one value per parameter", sql: sql)
        }
    }

    /// Parameter names without their `:`, `@` or `$`, and their indexes; built once.
    /// Anonymous (`?`) parameters have no name, so a statement with them cannot be bound by name.
    /// Two parameters that differ only by prefix (`:p` and `@p`, distinct for SQLite) keep
    /// their prefixed names, so each is named with its prefix and neither binds as `p` alone.
    private lazy var parameterIndexes: [String: Int32] = {
        var indexes: [String: Int32] = [:]
        var prefixed: [String: [(name: String, index: Int32)]] = [:]
        for index in 0..<Int32(parameterCount) {
            let name = sqlite3_bind_parameter_name(pointer, index + 1).map { String(cString: $0) } ?? "?\(index + 1)"
            let bare = Self.unprefixed(name) ?? name
            prefixed[bare, default: []].append((name, index + 1))
        }
        for (bare, parameters) in prefixed {
            if parameters.count == 1 {
                indexes[bare] = parameters[0].index
            } else {
                for parameter in parameters { indexes[parameter.name] = parameter.index }
            }
        }
        return indexes
    }()

    /// The parameter names' ``StringBits`` to their indexes.
    private lazy var parameterByBits = StringBitsIndex(parameterIndexes.compactMap { name, index in
        StringBits(name).map { (bits: $0, position: Int(index)) }
    })

    /// A named argument's parameter: the name as the statement spells it is found by its two
    /// words, as rows find columns, before any hashing of its characters.
    @inline(__always)
    private func parameterIndex(named name: String, _ indexes: [String: Int32]) -> Int32? {
        if let bits = StringBits(name), let index = parameterByBits.position(of: bits) { return Int32(index) }
        return indexes[name] ?? Self.unprefixed(name).flatMap { indexes[$0] }
    }

    static func unprefixed(_ name: String) -> String? {
        guard let first = name.first, ":@$".contains(first) else { return nil }
        return String(name.dropFirst())
    }

    /// Binds one value at a 1-based parameter index.
    @usableFromInline
    func bind(_ value: DatabaseValue, at index: Int32) throws {
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(pointer, index)
        case .integer(let int):
            code = sqlite3_bind_int64(pointer, index, int)
        case .real(let double):
            code = sqlite3_bind_double(pointer, index, double)
        case .text(let text):
            // The explicit byte count keeps text with embedded NUL characters whole.
            code = sqlite3_bind_text(pointer, index, text, Int32(text.utf8.count), SQLITE_TRANSIENT)
        case .blob(let data):
            code = data.withUnsafeBytes { bytes in
                sqlite3_bind_blob(pointer, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), SQLITE_TRANSIENT)
            }
        }
        try handle.check(code, sql: sql)
    }

    /// Advances to the next row: `true` when a row is ready, `false` when done.
    /// - Throws: ``DatabaseError`` when SQLite fails.
    @inline(__always)
    public func step() throws -> Bool {
        let broker = handle.hooks.broker
        if !hasRun {
            // A statement that starts after its async block was cancelled does not run.
            if handle.interrupter.isCancelled { throw handle.cancelledError(sql: sql) }
            if broker.isObserving { broker.statementWillStart(effects, db: sqlite3_db_handle(pointer)) }
        }
        hasRun = true
        let code = sqlite3_step(pointer)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE:
            // A statement that ended a transaction tells the observers.
            if broker.isObserving { try broker.statementDidRun(effects, db: sqlite3_db_handle(pointer)) }
            return false
        default:
            // A commit an observer refused fails with the observer's error.
            let error = broker.takeCommitRefusal() ?? handle.error(code, sql: sql)
            reset()
            throw error
        }
    }

    /// Resets the statement so it can run again; bindings are kept.
    public func reset() {
        hasRun = false
        sqlite3_reset(pointer)
        // A statement that returned rows (`INSERT … RETURNING`) commits when it is reset.
        let broker = handle.hooks.broker
        if broker.endingTransaction != nil { broker.statementDidFinish(db: sqlite3_db_handle(pointer)) }
    }

    // MARK: Column access on the current row (valid after `step()` returned true)

    /// Whether the column is NULL in the current row.
    @inlinable
    public func isNull(at index: Int) -> Bool {
        sqlite3_column_type(pointer, Int32(index)) == SQLITE_NULL
    }

    /// The column as a 64-bit integer (SQLite's conversion rules apply; NULL is 0).
    @inlinable
    public func int64(at index: Int) -> Int64 {
        sqlite3_column_int64(pointer, Int32(index))
    }

    /// The column as an integer (SQLite's conversion rules apply; NULL is 0).
    @inlinable
    public func int(at index: Int) -> Int {
        Int(sqlite3_column_int64(pointer, Int32(index)))
    }

    /// The column as a double (SQLite's conversion rules apply; NULL is 0).
    @inlinable
    public func double(at index: Int) -> Double {
        sqlite3_column_double(pointer, Int32(index))
    }

    /// The column as text, or `nil` when NULL.
    @inline(__always)
    public func string(at index: Int) -> String? {
        guard let text = sqlite3_column_text(pointer, Int32(index)) else { return nil }
        let count = Int(sqlite3_column_bytes(pointer, Int32(index)))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The column as bytes, or `nil` when NULL.
    public func data(at index: Int) -> Data? {
        if sqlite3_column_type(pointer, Int32(index)) == SQLITE_NULL { return nil }
        guard let bytes = sqlite3_column_blob(pointer, Int32(index)) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(pointer, Int32(index))))
    }

    /// The column's value, with its storage class.
    @inlinable
    public func databaseValue(at index: Int) -> DatabaseValue {
        let column = Int32(index)
        // One column call, then the value's own accessors: they skip the statement's checks,
        // which a row of numbers would otherwise pay twice per column.
        let value = sqlite3_column_value(pointer, column)
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
        case SQLITE_TEXT: return .text(string(at: index) ?? "")
        case SQLITE_BLOB: return .blob(data(at: index) ?? Data())
        default: return .null
        }
    }

    /// The index of a result column by name (case-insensitive), or `nil`.
    public func columnIndex(named name: String) -> Int? {
        rowLayout.index(of: name)
    }
}

/// Statements are bound to their connection's thread or queue: they are not `Sendable`.
@available(*, unavailable)
extension Statement: Sendable {}
