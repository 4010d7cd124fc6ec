import CSQLCipher
import Foundation

/// The current row of a running query, read in place: nothing is copied out of the statement.
///
/// A `RowView` reads like a ``Row`` (by index or by name, with the same strict conversions)
/// but lives only for one call of the closure given to
/// ``Connection/forEachRow(sql:arguments:_:)``. It is not copyable and the closure only borrows
/// it, so the compiler refuses to keep it beyond that call; ``copy()`` makes a ``Row`` to keep.
///
/// ```swift
/// var total: Int64 = 0
/// try db.forEachRow(sql: "SELECT price, quantity FROM line") { row in
///     total += try row.value(Int64.self, at: 0) * row.value(Int64.self, named: "quantity")
/// }
/// ```
///
/// Choose it over ``RowCursor`` for a loop that reads each row once and keeps none: copying a
/// row costs about as much again as reading it (BENCHMARKS.md).
public struct RowView: ~Copyable {
    /// The columns, read where they are: a statement's current row, or a fetched row.
    @usableFromInline let source: ColumnSource
    /// This row's column names and their index, taken once for the whole loop.
    @usableFromInline let layout: RowLayout
    /// The first of this row's columns in `source`: a scope of a row split by association
    /// starts after the columns before it.
    @usableFromInline let base: Int
    /// The scope this row stands for, for a request with associations; `nil` for a one-table
    /// row. Kept apart from ``source`` (not as a ``ScopedRow``, which holds the source again) so
    /// that a view holds each reference once: a view is made for every association's record of
    /// every row.
    let plan: ScopePlan?
    /// The rows of the to-many associations under this scope and its to-one scopes; `nil` for
    /// a request that includes none.
    let prefetchedRows: PrefetchedRows?
    /// The kept views of this scope's to-one children, when this view is kept for every row of
    /// a statement (``KeptRowView``); `nil` otherwise.
    let keptScopes: KeptScopes?
    /// The statement's handle when the row is a statement's current row: typed reads call
    /// SQLite directly (``storedValue(_:at:)``).
    @usableFromInline let statementPointer: OpaquePointer?
    /// The number of this row's columns, kept for the bounds check of every read by index.
    @usableFromInline let columnCount: Int

    init(statement: Statement) {
        self.source = .statement(statement)
        self.layout = statement.rowLayout
        self.base = 0
        self.plan = nil
        self.prefetchedRows = nil
        self.keptScopes = nil
        self.statementPointer = statement.pointer
        self.columnCount = statement.columnCount
    }

    /// All the columns of a source.
    init(source: ColumnSource) {
        self.source = source
        switch source {
        case .statement(let statement):
            layout = statement.rowLayout
            statementPointer = statement.pointer
        case .row(let row):
            layout = row.layout
            statementPointer = nil
        }
        self.base = 0
        self.plan = nil
        self.prefetchedRows = nil
        self.keptScopes = nil
        self.columnCount = layout.columnNames.count
    }

    /// The columns of one scope of a row split by association.
    init(scoped: ScopedRow) {
        self.init(source: scoped.source, plan: scoped.plan, prefetchedRows: scoped.prefetchedRows)
    }

    /// The columns of the scope `plan` of `source`'s row, with the rows of its to-many associations.
    init(source: ColumnSource, plan: ScopePlan, prefetchedRows: PrefetchedRows?) {
        self.init(source: source, plan: plan, prefetchedRows: prefetchedRows, keptScopes: nil)
    }

    /// The columns of the scope `plan` of a statement's row, with no to-many rows, and the kept
    /// views of its children (a ``KeptRowView``).
    init(source: ColumnSource, plan: ScopePlan, keptScopes: KeptScopes?) {
        self.init(source: source, plan: plan, prefetchedRows: nil, keptScopes: keptScopes)
    }

    private init(source: ColumnSource, plan: ScopePlan, prefetchedRows: PrefetchedRows?, keptScopes: KeptScopes?) {
        self.source = source
        self.layout = plan.layout
        self.base = plan.range.lowerBound
        self.plan = plan
        self.prefetchedRows = prefetchedRows
        self.keptScopes = keptScopes
        if case .statement(let statement) = source { statementPointer = statement.pointer } else { statementPointer = nil }
        self.columnCount = plan.range.count
    }

    /// Whether this view reads what a view of `other`'s current row, through the scope `scope`
    /// with these to-many rows, would: the same statement and scope, and no to-many rows.
    func isView(of other: ColumnSource, scope: ScopePlan?, prefetchedRows: PrefetchedRows?) -> Bool {
        guard plan === scope, self.prefetchedRows == nil, prefetchedRows == nil,
              case .statement(let own) = source, case .statement(let statement) = other else { return false }
        return own === statement
    }

    /// The row split by association this view stands for; `nil` for a one-table row.
    var scoped: ScopedRow? {
        plan.map { ScopedRow(source: source, plan: $0, prefetchedRows: prefetchedRows) }
    }

    /// The number of columns.
    public var count: Int { layout.columnNames.count }

    /// The column names, in order.
    public var columnNames: [String] { layout.columnNames }

    /// Whether the row has a column with this name (case-insensitive).
    public func hasColumn(_ name: String) -> Bool { layout.index(of: name) != nil }

    /// The value at a column index. Traps when the index is out of range, like ``Row``.
    public subscript(index: Int) -> DatabaseValue {
        precondition(index >= 0 && index < count, "column index \(index) out of range: the row has \(count) column(s)")
        return source.databaseValue(at: base + index)
    }

    /// The value of the named column (case-insensitive), or `nil` when there is no such column.
    public subscript(name: String) -> DatabaseValue? {
        layout.index(of: name).map { source.databaseValue(at: base + $0) }
    }

    /// The value at a column index, converted to `T`.
    ///
    /// - Throws: ``CipherStoreError/valueConversion(column:reason:)`` when the index is out of
    ///   range or the value does not convert (a NULL converts only to an `Optional`).
    @inlinable @inline(__always)
    public func value<T: DatabaseValueConvertible>(_ type: T.Type = T.self, at index: Int) throws -> T {
        if index >= 0 && index < columnCount, let stored = storedValue(T.self, at: base + index) { return stored }
        return try convertedValue(T.self, at: index)
    }

    /// ``value(_:at:)`` for what ``storedValue(_:at:)`` does not read: the general conversion,
    /// or the error. Kept out of line so that the usual read stays small where it is inlined.
    @usableFromInline
    func convertedValue<T: DatabaseValueConvertible>(_ type: T.Type, at index: Int) throws -> T {
        let index = try layout.checkedIndex(index)
        let value = source.databaseValue(at: base + index)
        if let converted = T.fromDatabaseValue(value) { return converted }
        throw Row.conversionError(value, column: layout.columnNames[index], type: T.self)
    }

    /// The value of the named column (case-insensitive), converted to `T`.
    ///
    /// - Throws: ``CipherStoreError/valueConversion(column:reason:)`` when there is no such
    ///   column or the value does not convert.
    @inlinable @inline(__always)
    public func value<T: DatabaseValueConvertible>(_ type: T.Type = T.self, named name: String) throws -> T {
        if let index = layout.index(of: name), let stored = storedValue(T.self, at: base + index) { return stored }
        return try convertedValue(T.self, named: name)
    }

    /// ``value(_:named:)`` for what ``storedValue(_:at:)`` does not read, out of line.
    @usableFromInline
    func convertedValue<T: DatabaseValueConvertible>(_ type: T.Type, named name: String) throws -> T {
        let index = try layout.checkedIndex(named: name)
        let value = source.databaseValue(at: base + index)
        if let converted = T.fromDatabaseValue(value) { return converted }
        throw Row.conversionError(value, column: name, type: T.self)
    }

    /// The column's value read with the call of its storage class, when `T` is `Int64`, `Int`,
    /// `Double` or `String`, the row is a statement's current row, and the column stores that
    /// class, or when `T` is `Date` and the column stores text (parsed where SQLite keeps it);
    /// the same for an `Optional` of these, with NULL read as `nil`. `nil` otherwise (the
    /// general conversion then decides, with the same result).
    /// Specialized in the caller, the type tests fold away: a read costs SQLite's calls, not a
    /// ``DatabaseValue`` and a conversion.
    @inlinable
    func storedValue<T>(_ type: T.Type, at column: Int) -> T? {
        guard let pointer = statementPointer else { return nil }
        if T.self == Int64.self || T.self == Int.self || T.self == Double.self || T.self == String.self || T.self == Date.self {
            let value = sqlite3_column_value(pointer, Int32(column))
            return Self.stored(T.self, value: value, storage: sqlite3_value_type(value), statement: pointer, column: column)
        }
        guard T.self == Int64?.self || T.self == Int?.self || T.self == Double?.self || T.self == String?.self || T.self == Date?.self else {
            return nil
        }
        let value = sqlite3_column_value(pointer, Int32(column))
        let storage = sqlite3_value_type(value)
        func read<Wrapped>(_ wrapped: Wrapped.Type) -> T? {
            if storage == SQLITE_NULL { return unsafeBitCast(Wrapped?.none, to: T.self) }
            return Self.stored(Wrapped.self, value: value, storage: storage, statement: pointer, column: column)
                .map { unsafeBitCast(Wrapped?.some($0), to: T.self) }
        }
        if T.self == Int64?.self { return read(Int64.self) }
        if T.self == Int?.self { return read(Int.self) }
        if T.self == Double?.self { return read(Double.self) }
        if T.self == String?.self { return read(String.self) }
        return read(Date.self)
    }

    /// A value of one of ``storedValue(_:at:)``'s plain types from the column's SQLite value and
    /// storage class; `nil` when the class is not that type's.
    @inlinable
    static func stored<T>(_ type: T.Type, value: OpaquePointer?, storage: Int32, statement: OpaquePointer, column: Int) -> T? {
        if T.self == Int64.self {
            return storage == SQLITE_INTEGER ? unsafeBitCast(sqlite3_value_int64(value), to: T.self) : nil
        }
        if T.self == Int.self {
            guard storage == SQLITE_INTEGER, let integer = Int(exactly: sqlite3_value_int64(value)) else { return nil }
            return unsafeBitCast(integer, to: T.self)
        }
        if T.self == Double.self {
            return storage == SQLITE_FLOAT ? unsafeBitCast(sqlite3_value_double(value), to: T.self) : nil
        }
        guard storage == SQLITE_TEXT, let text = sqlite3_column_text(statement, Int32(column)) else { return nil }
        let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, Int32(column))))
        if T.self == Date.self {
            return DatabaseDateFormat.date(utf8: bytes).map { unsafeBitCast($0, to: T.self) }
        }
        return T.self == String.self ? unsafeBitCast(String(decoding: bytes, as: UTF8.self), to: T.self) : nil
    }

    /// A ``Row`` with this row's values, to keep or to send to another task.
    public func copy() -> Row {
        if case .statement(let statement) = source, plan == nil { return Row(statement: statement) }
        return Row(layout: layout, values: (0..<count).map { source.databaseValue(at: base + $0) })
    }
}

extension Connection {
    /// Calls `body` with each row of a query, read in place (see ``RowView``).
    ///
    /// The statement is reset when the loop ends, whether it ran out of rows or `body` threw.
    /// - Throws: ``DatabaseError`` when SQLite fails while stepping, the error `body` throws,
    ///   or ``CipherStoreError/invalidArguments(reason:sql:)`` when the arguments do not fit.
    public func forEachRow(sql: String, arguments: StatementArguments = .none, _ body: (borrowing RowView) throws -> Void) throws {
        let statement = try cachedStatement(sql: sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        let row = RowView(statement: statement)
        while try statement.step() { try body(row) }
    }
}
