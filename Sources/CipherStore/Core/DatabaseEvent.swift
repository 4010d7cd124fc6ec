/// One row inserted, updated or deleted, as a ``TransactionObserver`` hears of it in
/// ``TransactionObserver/databaseDidChange(with:)``.
///
/// SQLite's [update hook](https://www.sqlite.org/c3ref/update_hook.html) reports it while the
/// statement runs, before the transaction ends: the change may still be rolled back.
///
/// Rows of a `WITHOUT ROWID` table have no rowid, and SQLite reports no event for them.
public struct DatabaseEvent: Sendable, Hashable {
    /// What happened to the row.
    public enum Kind: Int32, Sendable {
        /// A row was inserted (`SQLITE_INSERT`).
        case insert = 18
        /// A row was deleted (`SQLITE_DELETE`).
        case delete = 9
        /// A row was updated (`SQLITE_UPDATE`).
        case update = 23
    }

    /// What happened to the row.
    public let kind: Kind
    /// The database the table is in: `main`, `temp`, or an attached database's name.
    public let databaseName: String
    /// The table, spelled as in its `CREATE TABLE`.
    public let tableName: String
    /// The rowid of the row: for a deletion, the row that was there.
    public let rowID: Int64

    /// An event; SQLite makes them, tests and adapters may too.
    public init(kind: Kind, databaseName: String = "main", tableName: String, rowID: Int64) {
        self.kind = kind
        self.databaseName = databaseName
        self.tableName = tableName
        self.rowID = rowID
    }

    /// The event itself: kept for code written against GRDB, whose events must be copied to
    /// outlive the callback. These are plain values.
    public func copy() -> DatabaseEvent { self }
}

/// A kind of change a statement makes, which ``TransactionObserver/observes(eventsOfKind:)``
/// accepts or declines.
public enum DatabaseEventKind: Sendable, Hashable {
    /// Rows inserted into the table.
    case insert(tableName: String)
    /// Rows deleted from the table.
    case delete(tableName: String)
    /// Rows of the table updated, in these columns (as the statement's `SET` clauses, and
    /// those of the triggers it fires, name them).
    case update(tableName: String, columnNames: Set<String>)

    /// The table the change is made to.
    public var tableName: String {
        switch self {
        case .insert(let tableName), .delete(let tableName), .update(let tableName, _): return tableName
        }
    }
}
