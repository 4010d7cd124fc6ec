/// The INSERT of the last record inserted into a table, kept by the connection and reused
/// while records bring the same columns: a loop of inserts neither builds nor hashes its SQL.
struct InsertStatement {
    /// The column names, in the order of the statement's parameters.
    let columns: [String]
    let statement: Statement
}
