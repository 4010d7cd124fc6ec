import CSQLCipher

/// Where a record's column values come from: a statement's current row (the fast path of
/// record cursors, nothing copied) or a fetched ``Row``. ``RecordDecoder`` reads either one
/// through these few calls, so both give the same values and the same errors.
///
/// An enum rather than a protocol: the `Decoder` a record sees is reached through the
/// standard library's existential boxes, so a decoder generic over a source protocol runs
/// unspecialised (a generic-metadata lookup per row and a witness call per read, about 13%
/// more instructions for a 10-column record than this). A switch over two cases costs a
/// branch, and each case calls its source directly.
@usableFromInline
enum ColumnSource {
    case statement(Statement)
    case row(Row)

    /// The result column names, in order.
    var columnNames: [String] {
        switch self {
        case .statement(let statement): return statement.columnNames
        case .row(let row): return row.columnNames
        }
    }

    /// The index of a column by name (case-insensitive), or `nil`.
    func columnIndex(named name: String) -> Int? {
        switch self {
        case .statement(let statement): return statement.columnIndex(named: name)
        case .row(let row): return row.layout.index(of: name)
        }
    }

    /// The column's storage class as SQLite codes it: `SQLITE_INTEGER`, `SQLITE_FLOAT`,
    /// `SQLITE_TEXT`, `SQLITE_BLOB` or `SQLITE_NULL`.
    @inline(__always)
    func columnType(at column: Int) -> Int32 {
        switch self {
        case .statement(let statement):
            return sqlite3_column_type(statement.pointer, Int32(column))
        case .row(let row):
            switch row.values[column] {
            case .null: return SQLITE_NULL
            case .integer: return SQLITE_INTEGER
            case .real: return SQLITE_FLOAT
            case .text: return SQLITE_TEXT
            case .blob: return SQLITE_BLOB
            }
        }
    }

    /// The column's storage class, and its value when that is `SQLITE_INTEGER` (else 0): the
    /// usual read of an integer property, with one column call on a statement.
    @inline(__always)
    func integer(at column: Int) -> (type: Int32, value: Int64) {
        switch self {
        case .statement(let statement):
            let value = sqlite3_column_value(statement.pointer, Int32(column))
            let type = sqlite3_value_type(value)
            return (type, type == SQLITE_INTEGER ? sqlite3_value_int64(value) : 0)
        case .row(let row):
            if case .integer(let value) = row.values[column] { return (SQLITE_INTEGER, value) }
            return (columnType(at: column), 0)
        }
    }

    /// The value of an `SQLITE_INTEGER` column.
    @inline(__always)
    func int64(at column: Int) -> Int64 {
        switch self {
        case .statement(let statement): return statement.int64(at: column)
        case .row(let row):
            if case .integer(let value) = row.values[column] { return value }
            return 0
        }
    }

    /// The value of an `SQLITE_FLOAT` or `SQLITE_INTEGER` column, as a double.
    @inline(__always)
    func double(at column: Int) -> Double {
        switch self {
        case .statement(let statement): return statement.double(at: column)
        case .row(let row):
            switch row.values[column] {
            case .real(let value): return value
            case .integer(let value): return Double(value)
            default: return 0
            }
        }
    }

    /// The value of an `SQLITE_TEXT` column; `nil` when NULL.
    @inline(__always)
    func string(at column: Int) -> String? {
        switch self {
        case .statement(let statement): return statement.string(at: column)
        case .row(let row):
            if case .text(let value) = row.values[column] { return value }
            return nil
        }
    }

    /// The column's value, with its storage class.
    @usableFromInline
    func databaseValue(at column: Int) -> DatabaseValue {
        switch self {
        case .statement(let statement): return statement.databaseValue(at: column)
        case .row(let row): return row.values[column]
        }
    }
}
