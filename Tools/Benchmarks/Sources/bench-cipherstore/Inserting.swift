import BenchSupport
import CipherStore
import CSQLCipher
import Foundation

/// Workloads 4, 5 and 9: inserting rows.
func insertingWorkloads(_ bench: Benchmark, directory: String, rows: Int, key: DatabaseKey, rawKey: [UInt8]) throws -> [String] {
    let path = directory + "/insert.db"
    func reset() {
        for suffix in ["", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let db = Raw.open(path, key: rawKey, pragmas: [itemSchema])
        sqlite3_close(db)
    }
    let rawInsert = {
        let db = Raw.open(path, key: rawKey)
        Raw.insert(db, count: rows)
        sqlite3_close(db)
    }
    let (baseline, positional) = try bench.compare("raw C: insert \(rows) rows, one transaction", "CipherStore: insert, positional arguments",
                                                   setup: reset, baseline: rawInsert) {
        let db = try Connection(path: path, key: key)
        try db.inTransaction {
            let statement = try db.makeStatement(sql: "INSERT INTO item VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
            for row in 0..<rows {
                let r = Int64(row)
                try statement.execute(arguments: [r, r &* 2, r &* 3, r &* 4, r &* 5, r &* 6, r &* 7, r &* 8, r &* 9, r &* 10])
            }
            return .commit
        }
    }
    // The same rows bound straight from the values: no array literal of arguments.
    let (baselineDirect, direct) = try bench.compare("raw C: insert", "CipherStore: insert, values bound directly",
                                                     setup: reset, baseline: rawInsert) {
        let db = try Connection(path: path, key: key)
        try db.inTransaction {
            let statement = try db.makeStatement(sql: "INSERT INTO item VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
            for row in 0..<rows {
                let r = Int64(row)
                try statement.execute(values: r, r &* 2, r &* 3, r &* 4, r &* 5, r &* 6, r &* 7, r &* 8, r &* 9, r &* 10)
            }
            return .commit
        }
    }
    let (baseline2, named) = try bench.compare("raw C: insert", "CipherStore: insert, named arguments", setup: reset, baseline: rawInsert) {
        let db = try Connection(path: path, key: key)
        try db.inTransaction {
            let statement = try db.makeStatement(sql: "INSERT INTO item VALUES (:i0, :i1, :i2, :i3, :i4, :i5, :i6, :i7, :i8, :i9)")
            for row in 0..<rows {
                let r = Int64(row)
                try statement.execute(arguments: ["i0": r, "i1": r &* 2, "i2": r &* 3, "i3": r &* 4, "i4": r &* 5,
                                                  "i5": r &* 6, "i6": r &* 7, "i7": r &* 8, "i8": r &* 9, "i9": r &* 10])
            }
            return .commit
        }
    }
    let (baseline3, encodable) = try bench.compare("raw C: insert", "CipherStore: insert Encodable records", setup: reset, baseline: rawInsert) {
        let db = try Connection(path: path, key: key)
        try db.inTransaction {
            for row in 0..<rows {
                let r = Int64(row)
                try db.insert(Item(i0: r, i1: r &* 2, i2: r &* 3, i3: r &* 4, i4: r &* 5, i5: r &* 6, i6: r &* 7, i7: r &* 8, i8: r &* 9, i9: r &* 10), into: "item")
            }
            return .commit
        }
    }
    return [
        Benchmark.row("4. insert, positional", baseline: baseline, library: positional, target: VersusWorkload.insertPositional.cipherStoreTarget),
        Benchmark.row("4. insert, positional, values bound directly (`execute(values:)`, no array literal)", baseline: baselineDirect, library: direct,
                      target: VersusWorkload.insertPositional.cipherStoreTarget),
        Benchmark.row("4. insert, named", baseline: baseline2, library: named, target: VersusWorkload.insertNamed.cipherStoreTarget),
        Benchmark.row("5. Encodable insert", baseline: baseline3, library: encodable, target: VersusWorkload.insertEncodable.cipherStoreTarget),
    ]
}

/// Workload 9: the seed article's claim — one transaction per insert vs one for all.
func batchClaim(_ bench: Benchmark, directory: String, rows: Int, key: DatabaseKey) throws -> [String] {
    let path = directory + "/batch.db"
    func reset() {
        try? FileManager.default.removeItem(atPath: path)
        let db = try! Connection(path: path, key: key)
        try! db.execute(sql: "CREATE TABLE t(x)")
    }
    let (oneByOne, batched) = try bench.compare("CipherStore: \(rows) inserts, each its own transaction",
                                                "CipherStore: \(rows) inserts in one transaction", setup: reset, baseline: {
        let queue = try DatabaseQueue(path: path, key: key)
        for row in 0..<rows { try queue.inDatabase { try $0.execute(sql: "INSERT INTO t VALUES (?)", arguments: [row]) } }
    }) {
        let queue = try DatabaseQueue(path: path, key: key)
        try queue.inTransaction { db in
            for row in 0..<rows { try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [row]) }
            return .commit
        }
    }
    return [String(format: "| 9. %d inserts, one transaction each vs one for all | %.1f ms | %.1f ms | **%.0f× faster batched** | (the seed article: 30 s vs 0.256 s, 117×) |",
                   rows, oneByOne.median * 1000, batched.median * 1000, oneByOne.median / batched.median)]
}
