/// GRDB's name for a connection: code written against GRDB's `Database` (persistence
/// callbacks, `read { db in … }` blocks with the type spelled out) compiles unchanged.
public typealias Database = Connection
