/// What a ``DatabaseQueue`` or ``DatabasePool`` keeps in the database's schema copy
/// (`DB.schema`, encrypted), which lets ``DatabaseRepair`` rebuild the tables when the pages
/// holding the schema are lost, and report how many rows each table should have.
public enum SchemaCopyPolicy: Sendable, Hashable {
    /// The schema after every write that changed it, and the row count of every table on
    /// `close()` after writes. Counting reads each table once (a `count(*)`): on a database of
    /// gigabytes, `close()` takes that long.
    case schemaAndRowCounts
    /// The schema only: `close()` stays as fast as it was; a repair cannot say how many rows a
    /// table had.
    case schemaOnly
    /// No copy: a repair of a database whose schema pages are lost puts its rows into
    /// `recovered_N` tables.
    case off
}
