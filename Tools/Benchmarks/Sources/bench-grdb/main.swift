import BenchSupport
import Foundation
import GRDB
import GRDBSQLite

// GRDB against the raw C API of the system SQLite it links, in one process, in one run: the
// same shapes as bench-cipherstore, so each library is compared with its own baseline. The raw
// helpers mirror bench-cipherstore's on purpose: each must be compiled against its own library.

struct Item: Codable, FetchableRecord, PersistableRecord {
    var i0, i1, i2, i3, i4, i5, i6, i7, i8, i9: Int64
    var sum: Int64 { i0 &+ i1 &+ i2 &+ i3 &+ i4 &+ i5 &+ i6 &+ i7 &+ i8 &+ i9 }
}

struct HandWrittenItem: FetchableRecord {
    var sum: Int64
    init(row: GRDB.Row) {
        var total: Int64 = 0
        for column in 0..<10 { total &+= row[column] as Int64 }
        sum = total
    }
}

func rawOpen(_ path: String) -> OpaquePointer {
    var db: OpaquePointer?
    precondition(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK)
    return db!
}

func rawFetch(_ db: OpaquePointer) -> Int64 {
    var statement: OpaquePointer?
    precondition(sqlite3_prepare_v2(db, "SELECT i0, i1, i2, i3, i4, i5, i6, i7, i8, i9 FROM item", -1, &statement, nil) == SQLITE_OK)
    var sum: Int64 = 0
    while sqlite3_step(statement) == SQLITE_ROW {
        for column in 0..<Int32(10) { sum &+= sqlite3_column_int64(statement, column) }
    }
    sqlite3_finalize(statement)
    return sum
}

func rawInsert(_ db: OpaquePointer, count: Int) {
    sqlite3_exec(db, "BEGIN", nil, nil, nil)
    var statement: OpaquePointer?
    sqlite3_prepare_v2(db, "INSERT INTO item VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &statement, nil)
    for row in 0..<count {
        for column in 0..<Int32(10) { sqlite3_bind_int64(statement, column + 1, Int64(row) &* Int64(column + 1)) }
        precondition(sqlite3_step(statement) == SQLITE_DONE)
        sqlite3_reset(statement)
    }
    sqlite3_finalize(statement)
    precondition(sqlite3_exec(db, "COMMIT", nil, nil, nil) == SQLITE_OK)
}

let bench = Benchmark()
let directory = benchmarkDirectory("grdb")
// `bench-grdb --associations-only`: workload 13 alone.
if CommandLine.arguments.dropFirst().first == "--associations-only" {
    print(try grdbAssociationRows(bench, directory: directory, books: bench.quick ? 10_000 : 50_000).joined(separator: "\n"))
    try? FileManager.default.removeItem(atPath: directory)
    exit(0)
}
let rows = bench.quick ? 50_000 : 200_000
let insertRows = bench.quick ? 10_000 : 50_000
let schema = "CREATE TABLE item(i0 INT, i1 INT, i2 INT, i3 INT, i4 INT, i5 INT, i6 INT, i7 INT, i8 INT, i9 INT)"

let fetchPath = directory + "/fetch.db"
let setup = rawOpen(fetchPath)
sqlite3_exec(setup, schema, nil, nil, nil)
rawInsert(setup, count: rows)
sqlite3_close(setup)

let raw = rawOpen(fetchPath)
let check = rawFetch(raw)
let dbQueue = try DatabaseQueue(path: fetchPath)
let rawFetchAll = { precondition(rawFetch(raw) == check) }
let names = (0..<10).map { "i\($0)" }

let insertPath = directory + "/insert.db"
func resetInsert() {
    for suffix in ["", "-journal"] { try? FileManager.default.removeItem(atPath: insertPath + suffix) }
    let db = rawOpen(insertPath)
    sqlite3_exec(db, schema, nil, nil, nil)
    sqlite3_close(db)
}
let rawInsertAll = {
    let db = rawOpen(insertPath)
    rawInsert(db, count: insertRows)
    sqlite3_close(db)
}

/// GRDB's side of each workload; the inserts start from `resetInsert()`.
func runGRDB(_ workload: VersusWorkload) throws {
    switch workload {
    case .fetchByIndex, .fetchByIndexInPlace:
        try dbQueue.read { db in
            var sum: Int64 = 0
            let cursor = try GRDB.Row.fetchCursor(db, sql: "SELECT i0, i1, i2, i3, i4, i5, i6, i7, i8, i9 FROM item")
            while let row = try cursor.next() { for column in 0..<10 { sum &+= row[column] as Int64 } }
            precondition(sum == check)
        }
    case .fetchByName, .fetchByNameInPlace:
        try dbQueue.read { db in
            var sum: Int64 = 0
            let cursor = try GRDB.Row.fetchCursor(db, sql: "SELECT i0, i1, i2, i3, i4, i5, i6, i7, i8, i9 FROM item")
            while let row = try cursor.next() { for name in names { sum &+= row[name] as Int64 } }
            precondition(sum == check)
        }
    case .decodable:
        try dbQueue.read { db in
            var sum: Int64 = 0
            let cursor = try Item.fetchCursor(db, sql: "SELECT * FROM item")
            while let item = try cursor.next() { sum &+= item.sum }
            precondition(sum == check)
        }
    case .handWritten:
        try dbQueue.read { db in
            var sum: Int64 = 0
            let cursor = try HandWrittenItem.fetchCursor(db, sql: "SELECT * FROM item")
            while let item = try cursor.next() { sum &+= item.sum }
            precondition(sum == check)
        }
    case .insertPositional:
        try DatabaseQueue(path: insertPath).write { db in
            let statement = try db.makeStatement(sql: "INSERT INTO item VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
            for row in 0..<insertRows {
                let r = Int64(row)
                try statement.execute(arguments: [r, r &* 2, r &* 3, r &* 4, r &* 5, r &* 6, r &* 7, r &* 8, r &* 9, r &* 10])
            }
        }
    case .insertNamed:
        try DatabaseQueue(path: insertPath).write { db in
            let statement = try db.makeStatement(sql: "INSERT INTO item VALUES (:i0, :i1, :i2, :i3, :i4, :i5, :i6, :i7, :i8, :i9)")
            for row in 0..<insertRows {
                let r = Int64(row)
                try statement.execute(arguments: ["i0": r, "i1": r &* 2, "i2": r &* 3, "i3": r &* 4, "i4": r &* 5,
                                                  "i5": r &* 6, "i6": r &* 7, "i7": r &* 8, "i8": r &* 9, "i9": r &* 10])
            }
        }
    case .insertEncodable:
        try DatabaseQueue(path: insertPath).write { db in
            for row in 0..<insertRows {
                let r = Int64(row)
                try Item(i0: r, i1: r &* 2, i2: r &* 3, i3: r &* 4, i4: r &* 5, i5: r &* 6, i6: r &* 7, i7: r &* 8, i8: r &* 9, i9: r &* 10).insert(db)
            }
        }
    }
}

func isInsert(_ workload: VersusWorkload) -> Bool {
    [.insertPositional, .insertNamed, .insertEncodable].contains(workload)
}

/// GRDB ÷ its raw C baseline, per workload.
var grdbRows: [String] = []
for workload in VersusWorkload.allCases where !workload.readsInPlace {
    let (baseline, grdb) = try bench.compare(isInsert(workload) ? "raw C (system SQLite): insert \(insertRows) rows" : "raw C (system SQLite): fetch \(rows) rows",
                                             "GRDB: \(workload.title)", setup: { if isInsert(workload) { resetInsert() } },
                                             baseline: isInsert(workload) ? rawInsertAll : rawFetchAll) { try runGRDB(workload) }
    grdbRows.append(Benchmark.row(workload.title, baseline: baseline, library: grdb, target: workload.cipherStoreTarget, marksMisses: false))
}
sqlite3_close(raw)

print("""
## GRDB 7.10.0 vs the raw C API of the system SQLite (\(String(cString: sqlite3_libversion())))

Plaintext, GRDB's defaults; median of \(bench.iterations) runs after one warm-up. Compare each ratio with CipherStore's above: each library is divided by a raw C baseline on its own SQLite.

| workload | raw C | GRDB | ratio | CipherStore's target |
| --- | --- | --- | --- | --- |
\(grdbRows.joined(separator: "\n"))
""")

let associationRows = try grdbAssociationRows(bench, directory: directory, books: bench.quick ? 10_000 : 50_000)
print("""

## GRDB 7.10.0 through associations

Workload 13 of CipherStore's sections above, on GRDB and a plaintext database: the same tables, data, records and pairs, each ratio measured in this run. Set each beside CipherStore's.

| workload | baseline | GRDB | ratio | CipherStore's target |
| --- | --- | --- | --- | --- |
\(associationRows.joined(separator: "\n"))
""")

// CipherStore on SQLCipher 4.6.1, encrypted, against GRDB on plaintext: the same workloads
// and data, alternating between this process and a `bench-cipherstore --serve` child.
if let child = ProcessInfo.processInfo.environment["CIPHERSTORE_SERVE_BENCH"] {
    // The child links SQLCipher 4.6.1 from its own folder; this process keeps the system SQLite.
    let libraryPath = ProcessInfo.processInfo.environment["CIPHERSTORE_SERVE_LIBRARY_PATH"]
    let cipherStore = try VersusChild(executable: child, environment: libraryPath.map { ["LD_LIBRARY_PATH": $0] } ?? [:])
    var versusRows: [String] = []
    for workload in VersusWorkload.allCases {
        let (grdb, ours) = try bench.compareMeasured("GRDB plaintext: \(workload.title)", "CipherStore encrypted: \(workload.title)", baseline: {
            if isInsert(workload) { resetInsert() }
            let start = DispatchTime.now().uptimeNanoseconds
            try runGRDB(workload)
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }, contender: {
            // The child times the workload itself (its setup untimed), without the pipe's round trip.
            cipherStore.run(workload)
        })
        versusRows.append(Benchmark.row(workload.title, baseline: grdb, library: ours, target: "≤ 1.00×"))
    }
    cipherStore.finish()
    print("""

## CipherStore on SQLCipher 4.6.1, encrypted, vs GRDB on plaintext

What encryption costs a CipherStore user next to the best plaintext library: CipherStore on an encrypted database (SQLCipher 4.6.1, raw key, 4096-byte pages) against GRDB 7.10.0 on a plaintext one (the system SQLite), the same workloads and data, alternating between the two processes (GRDB, CipherStore, GRDB…); median of \(bench.iterations) runs after one warm-up. Each side's ratio to its own raw C API is in its section above. GRDB's `Row` cursor reads each row in place (a row kept must be copied); CipherStore's copies each row (a `Sendable` value), and its `forEachRow` reads in place.

| workload | GRDB plaintext | CipherStore encrypted | CipherStore ÷ GRDB | target |
| --- | --- | --- | --- | --- |
\(versusRows.joined(separator: "\n"))
""")
}
try? FileManager.default.removeItem(atPath: directory)
