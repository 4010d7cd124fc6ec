import CSQLCipher

/// SQL functions and collations written in Swift, added to one connection.
///
/// SQLite keeps a retained reference to each one and gives it back through the destructor of
/// `sqlite3_create_function_v2` and `sqlite3_create_collation_v2`, which it calls when the
/// function or collation is removed, replaced, or the connection closes: nothing outlives the
/// registration.
extension Connection {
    /// Adds a SQL function, or replaces the one with the same name and argument count.
    ///
    /// ```swift
    /// try db.add(function: DatabaseFunction("double", argumentCount: 1, pure: true) { values in
    ///     values.first.flatMap(Int64.fromDatabaseValue).map { $0 * 2 }
    /// })
    /// ```
    ///
    /// To add it to every connection of a queue or pool, readers included, call this in
    /// ``Configuration/prepareDatabase(_:)``.
    ///
    /// - Throws: ``CipherStoreError/invalidConfiguration(reason:)`` for a name or argument count
    ///   SQLite refuses, ``DatabaseError`` (`SQLITE_BUSY` while a statement that uses the
    ///   function it replaces is running), ``CipherStoreError/connectionClosed``.
    public func add(function: DatabaseFunction) throws {
        try function.validate()
        let db = try handle.pointer
        let box = Unmanaged.passRetained(function).toOpaque()
        let isScalar: Bool
        if case .scalar = function.kind { isScalar = true } else { isScalar = false }
        // On failure too, SQLite calls the destructor: the box is released either way.
        let code = sqlite3_create_function_v2(
            db, function.name, function.argumentCount, function.textRepresentation, box,
            isScalar ? FunctionCalls.scalar : nil,
            isScalar ? nil : FunctionCalls.step,
            isScalar ? nil : FunctionCalls.final,
            FunctionCalls.release)
        try handle.check(code)
        handle.hooks.functions[function.id] = function
    }

    /// Removes a SQL function added with ``add(function:)``: the one with the same name and
    /// argument count. Statements prepared later that call it fail with "no such function".
    /// - Throws: ``DatabaseError`` (`SQLITE_BUSY` while a statement that uses it is running),
    ///   ``CipherStoreError/connectionClosed``.
    public func remove(function: DatabaseFunction) throws {
        try function.validate()
        let db = try handle.pointer
        try handle.check(sqlite3_create_function_v2(db, function.name, function.argumentCount, function.textRepresentation,
                                                    nil, nil, nil, nil, nil))
        handle.hooks.functions[function.id] = nil
    }

    /// Adds a collation, or replaces the one with the same name (case-insensitive).
    ///
    /// ```swift
    /// try db.add(collation: DatabaseCollation("localized") { $0.localizedCompare($1) })
    /// ```
    ///
    /// To add it to every connection of a queue or pool, readers included, call this in
    /// ``Configuration/prepareDatabase(_:)``.
    ///
    /// - Throws: ``CipherStoreError/invalidConfiguration(reason:)`` for a name SQLite refuses,
    ///   ``DatabaseError`` (`SQLITE_BUSY` while a statement that uses the collation it
    ///   replaces is running), ``CipherStoreError/connectionClosed``.
    public func add(collation: DatabaseCollation) throws {
        try collation.validate()
        let db = try handle.pointer
        let box = Unmanaged.passRetained(collation)
        let code = sqlite3_create_collation_v2(db, collation.name, SQLITE_UTF8, box.toOpaque(), { box, leftCount, left, rightCount, right in
            Unmanaged<DatabaseCollation>.fromOpaque(box!).takeUnretainedValue().compare(leftCount, left, rightCount, right)
        }, { box in
            box.map { Unmanaged<DatabaseCollation>.fromOpaque($0).release() }
        })
        guard code == SQLITE_OK else {
            // Unlike every other SQLite interface, this one does not call the destructor when it fails.
            box.release()
            throw handle.error(code, sql: nil)
        }
        handle.hooks.collations[collation.id] = collation
    }

    /// Removes a collation added with ``add(collation:)``. Statements prepared later that use
    /// it fail with "no such collation sequence".
    /// - Throws: ``DatabaseError`` (`SQLITE_BUSY` while a statement that uses it is running),
    ///   ``CipherStoreError/connectionClosed``.
    public func remove(collation: DatabaseCollation) throws {
        try collation.validate()
        let db = try handle.pointer
        try handle.check(sqlite3_create_collation_v2(db, collation.name, SQLITE_UTF8, nil, nil, nil))
        handle.hooks.collations[collation.id] = nil
    }

    /// Adds GRDB's string functions and collations (``DatabaseFunction/capitalize``,
    /// ``DatabaseCollation/localizedCompare``…): called once by every connection as it opens.
    func addStandardFunctionsAndCollations() throws {
        for function in DatabaseFunction.standard { try add(function: function) }
        for collation in DatabaseCollation.grdbCollations { try add(collation: collation) }
    }

    /// The collations added with ``add(collation:)`` and not removed, for connections that
    /// read the same database on this one's behalf (a backup's copy).
    var addedCollations: [DatabaseCollation] { Array(handle.hooks.collations.values) }

    /// The functions added with ``add(function:)`` and not removed.
    var addedFunctions: [DatabaseFunction] { Array(handle.hooks.functions.values) }

    /// A function or collation name as SQLite matches it: ASCII letters folded to lowercase.
    static func foldedName(_ name: String) -> String {
        String(decoding: name.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}

/// The C callbacks of ``DatabaseFunction``: each finds the function in its user data.
private enum FunctionCalls {
    typealias Call = @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void

    static let scalar: Call = { context, count, values in
        let function = Unmanaged<DatabaseFunction>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue()
        guard case .scalar(let body) = function.kind else { return }
        do {
            let result = try body(DatabaseValue.arguments(count, values))
            (result?.databaseValue ?? .null).setResult(of: context)
        } catch {
            report(error, of: function, in: context)
        }
    }

    static let step: Call = { context, count, values in
        guard let state = AggregateState.of(context) else { return }
        guard !state.failed else { return }
        do {
            try state.aggregate.step(DatabaseValue.arguments(count, values))
        } catch {
            state.failed = true
            report(error, of: state.function, in: context)
        }
    }

    static let final: @convention(c) (OpaquePointer?) -> Void = { context in
        guard let state = AggregateState.of(context) else { return }
        defer { AggregateState.release(context) }
        guard !state.failed else { return }
        do {
            (try state.aggregate.finalize()?.databaseValue ?? .null).setResult(of: context)
        } catch {
            report(error, of: state.function, in: context)
        }
    }

    static let release: @convention(c) (UnsafeMutableRawPointer?) -> Void = { box in
        box.map { Unmanaged<DatabaseFunction>.fromOpaque($0).release() }
    }

    /// Fails the call with a message that names the function; a ``DatabaseError`` keeps its
    /// code, but for the codes that say the database file is damaged or unreadable (corrupt,
    /// not a database, an I/O error): a function cannot damage the file, and such a code would
    /// send the user to restore a backup.
    static func report(_ error: any Error, of function: DatabaseFunction, in context: OpaquePointer?) {
        let detail = (error as? DatabaseError)?.message ?? String(describing: error)
        sqlite3_result_error(context, "the SQL function \(function.name) failed: \(detail)", -1)
        guard let error = error as? DatabaseError else { return }
        switch error.resultCode.primaryResultCode {
        case .SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_IOERR: sqlite3_result_error_code(context, SQLITE_ERROR)
        default: sqlite3_result_error_code(context, error.resultCode.rawValue)
        }
    }
}

/// One group's aggregate, kept by SQLite in the call's aggregate context (a pointer-sized
/// buffer it allocates zeroed on first use and frees after the final call).
private final class AggregateState {
    let function: DatabaseFunction
    var aggregate: any DatabaseAggregate
    var failed = false

    init(function: DatabaseFunction, aggregate: any DatabaseAggregate) {
        self.function = function
        self.aggregate = aggregate
    }

    private static let size = Int32(MemoryLayout<UnsafeRawPointer?>.size)

    /// The group's state, made on the first step (or at the final call for a group without
    /// rows); `nil` when SQLite could not allocate the buffer.
    static func of(_ context: OpaquePointer?) -> AggregateState? {
        guard let buffer = sqlite3_aggregate_context(context, size)?.assumingMemoryBound(to: UnsafeRawPointer?.self) else {
            sqlite3_result_error_nomem(context)
            return nil
        }
        if let stored = buffer.pointee {
            return Unmanaged<AggregateState>.fromOpaque(stored).takeUnretainedValue()
        }
        let function = Unmanaged<DatabaseFunction>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue()
        guard case .aggregate(let make) = function.kind else { return nil }
        let state = AggregateState(function: function, aggregate: make())
        buffer.pointee = UnsafeRawPointer(Unmanaged.passRetained(state).toOpaque())
        return state
    }

    /// Lets go of the group's state at the final call.
    static func release(_ context: OpaquePointer?) {
        guard let buffer = sqlite3_aggregate_context(context, 0)?.assumingMemoryBound(to: UnsafeRawPointer?.self),
              let stored = buffer.pointee else { return }
        buffer.pointee = nil
        Unmanaged<AggregateState>.fromOpaque(stored).release()
    }
}
