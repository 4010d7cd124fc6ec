import CSQLCipher

/// `SQLITE_TRANSIENT`: SQLite copies the bound bytes before the call returns. The C macro is
/// a cast of -1 that Swift does not import.
let SQLITE_TRANSIENT = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
