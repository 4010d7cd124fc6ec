import CSQLCipher
import Foundation

/// The raw C API on SQLCipher: the baseline every CipherStore figure is divided by.
enum Raw {
    static func open(_ path: String, key: [UInt8]? = nil, pragmas: [String] = []) -> OpaquePointer {
        var db: OpaquePointer?
        precondition(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK)
        if let key { precondition(sqlite3_key_v2(db, "main", key, Int32(key.count)) == SQLITE_OK) }
        for pragma in pragmas { exec(db!, pragma) }
        return db!
    }

    static func exec(_ db: OpaquePointer, _ sql: String) {
        var error: UnsafeMutablePointer<CChar>?
        if sqlite3_exec(db, sql, nil, nil, &error) != SQLITE_OK {
            fatalError("raw exec failed: \(String(cString: error!)) in \(sql)")
        }
    }

    static func prepare(_ db: OpaquePointer, _ sql: String) -> OpaquePointer {
        var statement: OpaquePointer?
        precondition(sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, String(cString: sqlite3_errmsg(db)))
        return statement!
    }

    /// Reads every row of every table of an encrypted file in rowid order, each value's
    /// bytes taken from SQLite: what any full read costs before anything is done with it.
    static func scanEveryRow(_ path: String, key: [UInt8]) {
        let db = open(path, key: key)
        defer { sqlite3_close_v2(db) }
        let names = prepare(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND rootpage > 0")
        var tables: [String] = []
        while sqlite3_step(names) == SQLITE_ROW { tables.append(String(cString: sqlite3_column_text(names, 0))) }
        sqlite3_finalize(names)
        var touched = 0
        for table in tables {
            let statement = prepare(db, "SELECT rowid, * FROM \"\(table)\" ORDER BY rowid")
            let columns = sqlite3_column_count(statement)
            while sqlite3_step(statement) == SQLITE_ROW {
                for column in 0..<columns {
                    switch sqlite3_column_type(statement, column) {
                    case SQLITE_TEXT: _ = sqlite3_column_text(statement, column); touched &+= Int(sqlite3_column_bytes(statement, column))
                    case SQLITE_BLOB: _ = sqlite3_column_blob(statement, column); touched &+= Int(sqlite3_column_bytes(statement, column))
                    default: touched &+= Int(truncatingIfNeeded: sqlite3_column_int64(statement, column))
                    }
                }
            }
            sqlite3_finalize(statement)
        }
        precondition(touched != 0, "no rows read")
    }

    /// Sums the 10 integer columns of every row.
    static func fetchByIndex(_ db: OpaquePointer) -> Int64 {
        let statement = prepare(db, "SELECT i0, i1, i2, i3, i4, i5, i6, i7, i8, i9 FROM item")
        defer { sqlite3_finalize(statement) }
        var sum: Int64 = 0
        while sqlite3_step(statement) == SQLITE_ROW {
            for column in 0..<Int32(10) { sum &+= sqlite3_column_int64(statement, column) }
        }
        return sum
    }

    /// Inserts `count` rows of 10 integers in one transaction with one prepared statement.
    static func insert(_ db: OpaquePointer, count: Int) {
        exec(db, "BEGIN")
        let statement = prepare(db, "INSERT INTO item VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        for row in 0..<count {
            for column in 0..<Int32(10) { sqlite3_bind_int64(statement, column + 1, Int64(row) &* Int64(column + 1)) }
            precondition(sqlite3_step(statement) == SQLITE_DONE)
            sqlite3_reset(statement)
        }
        sqlite3_finalize(statement)
        exec(db, "COMMIT")
    }
}

/// The item table of GRDB's own suite: `item(i0 … i9 INT)`.
let itemSchema = "CREATE TABLE item(i0 INT, i1 INT, i2 INT, i3 INT, i4 INT, i5 INT, i6 INT, i7 INT, i8 INT, i9 INT)"
