import BenchSupport
import CipherStore
import CSQLCipher
import Foundation

/// `bench-cipherstore --serve`: CipherStore's side of "CipherStore encrypted vs GRDB
/// plaintext", the same shapes and data as bench-grdb's workloads, on an encrypted database
/// (raw key, the linked SQLCipher's default page size).
func serveVersus(directory: String, rows: Int, insertRows: Int, key: DatabaseKey, rawKey: [UInt8]) throws {
    let fetchPath = directory + "/versus-fetch.db"
    let setup = Raw.open(fetchPath, key: rawKey, pragmas: [itemSchema])
    Raw.insert(setup, count: rows)
    let check = Raw.fetchByIndex(setup)
    sqlite3_close(setup)
    let queue = try DatabaseQueue(path: fetchPath, key: key)
    let names = (0..<10).map { "i\($0)" }
    let columns = "SELECT i0, i1, i2, i3, i4, i5, i6, i7, i8, i9 FROM item"

    let insertPath = directory + "/versus-insert.db"
    func resetInsert() {
        for suffix in ["", "-journal"] { try? FileManager.default.removeItem(atPath: insertPath + suffix) }
        sqlite3_close(Raw.open(insertPath, key: rawKey, pragmas: [itemSchema]))
    }
    /// Opens the insert database and runs `body` in one transaction with each row's number,
    /// as GRDB's `write` does; `sql` is prepared once, as GRDB's side does with `makeStatement`.
    func insert(sql: String? = nil, _ body: (Connection, Statement?, Int64) throws -> Void) throws {
        try DatabaseQueue(path: insertPath, key: key).inTransaction { db in
            let statement = try sql.map { try db.makeStatement(sql: $0) }
            for row in 0..<insertRows { try body(db, statement, Int64(row)) }
            return .commit
        }
    }

    try serveVersusWorkloads(setup: { workload in
        switch workload {
        case .insertPositional, .insertNamed, .insertEncodable: resetInsert()
        default: break
        }
    }, run: { workload in
        switch workload {
        case .fetchByIndex:
            try queue.inDatabase { db in
                let cursor = try db.fetchCursor(sql: columns)
                var sum: Int64 = 0
                while let row = try cursor.next() { for column in 0..<10 { sum &+= try row.value(Int64.self, at: column) } }
                precondition(sum == check)
            }
        case .fetchByName:
            try queue.inDatabase { db in
                let cursor = try db.fetchCursor(sql: columns)
                var sum: Int64 = 0
                while let row = try cursor.next() { for name in names { sum &+= try row.value(Int64.self, named: name) } }
                precondition(sum == check)
            }
        case .fetchByIndexInPlace:
            try queue.inDatabase { db in
                var sum: Int64 = 0
                try db.forEachRow(sql: columns) { row in for column in 0..<10 { sum &+= try row.value(Int64.self, at: column) } }
                precondition(sum == check)
            }
        case .fetchByNameInPlace:
            try queue.inDatabase { db in
                var sum: Int64 = 0
                try db.forEachRow(sql: columns) { row in for name in names { sum &+= try row.value(Int64.self, named: name) } }
                precondition(sum == check)
            }
        case .decodable:
            try queue.inDatabase { db in
                let cursor = try db.fetchCursor(Item.self, sql: "SELECT * FROM item")
                var sum: Int64 = 0
                while let item = try cursor.next() { sum &+= item.sum }
                precondition(sum == check)
            }
        case .handWritten:
            try queue.inDatabase { db in
                let statement = try db.cachedStatement(sql: "SELECT * FROM item")
                var sum: Int64 = 0
                while try statement.step() { sum &+= Item(statement: statement).sum }
                statement.reset()
                precondition(sum == check)
            }
        case .insertPositional:
            try insert(sql: "INSERT INTO item VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)") { _, statement, r in
                try statement!.execute(arguments: [r, r &* 2, r &* 3, r &* 4, r &* 5, r &* 6, r &* 7, r &* 8, r &* 9, r &* 10])
            }
        case .insertNamed:
            try insert(sql: "INSERT INTO item VALUES (:i0, :i1, :i2, :i3, :i4, :i5, :i6, :i7, :i8, :i9)") { _, statement, r in
                try statement!.execute(arguments: ["i0": r, "i1": r &* 2, "i2": r &* 3, "i3": r &* 4, "i4": r &* 5,
                                         "i5": r &* 6, "i6": r &* 7, "i7": r &* 8, "i8": r &* 9, "i9": r &* 10])
            }
        case .insertEncodable:
            try insert { db, _, r in
                try db.insert(Item(i0: r, i1: r &* 2, i2: r &* 3, i3: r &* 4, i4: r &* 5, i5: r &* 6, i6: r &* 7, i7: r &* 8, i8: r &* 9, i9: r &* 10), into: "item")
            }
        }
    })
    try queue.close()
}
