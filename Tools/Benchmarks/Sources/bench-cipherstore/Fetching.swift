import BenchSupport
import CipherStore
import CSQLCipher

/// Workloads 1–3: fetching 200,000 rows of 10 integers.
func fetchingWorkloads(_ bench: Benchmark, directory: String, rows: Int, key: DatabaseKey, rawKey: [UInt8]) throws -> [String] {
    let path = directory + "/fetch.db"
    let setup = Raw.open(path, key: rawKey, pragmas: [itemSchema])
    Raw.insert(setup, count: rows)
    sqlite3_close(setup)

    let raw = Raw.open(path, key: rawKey)
    defer { sqlite3_close(raw) }
    let db = try Connection(path: path, key: key)
    var check: Int64 = 0

    let rawFetch = { check = Raw.fetchByIndex(raw) }
    check = Raw.fetchByIndex(raw)
    let (baseline, statementAPI) = try bench.compare("raw C: fetch \(rows) rows by index", "CipherStore Statement: fetch by index",
                                                     baseline: rawFetch) {
        let statement = try db.cachedStatement(sql: "SELECT i0, i1, i2, i3, i4, i5, i6, i7, i8, i9 FROM item")
        var sum: Int64 = 0
        while try statement.step() { for column in 0..<10 { sum &+= statement.int64(at: column) } }
        statement.reset()
        precondition(sum == check)
    }
    let (baseline2, rowAPI) = try bench.compare("raw C: fetch by index", "CipherStore Row cursor: fetch by index", baseline: rawFetch) {
        let cursor = try db.fetchCursor(sql: "SELECT i0, i1, i2, i3, i4, i5, i6, i7, i8, i9 FROM item")
        var sum: Int64 = 0
        while let row = try cursor.next() { for column in 0..<10 { sum &+= try row.value(Int64.self, at: column) } }
        precondition(sum == check)
    }
    let names = (0..<10).map { "i\($0)" }
    let (baseline3, byName) = try bench.compare("raw C: fetch by index", "CipherStore Row cursor: fetch by name", baseline: rawFetch) {
        let cursor = try db.fetchCursor(sql: "SELECT i0, i1, i2, i3, i4, i5, i6, i7, i8, i9 FROM item")
        var sum: Int64 = 0
        while let row = try cursor.next() { for name in names { sum &+= try row.value(Int64.self, named: name) } }
        precondition(sum == check)
    }
    // The same reads on rows read in place (`forEachRow`), as GRDB's cursor rows are: no copy.
    let (baselineView, byIndexView) = try bench.compare("raw C: fetch by index", "CipherStore forEachRow: fetch by index", baseline: rawFetch) {
        var sum: Int64 = 0
        try db.forEachRow(sql: "SELECT i0, i1, i2, i3, i4, i5, i6, i7, i8, i9 FROM item") { row in
            for column in 0..<10 { sum &+= try row.value(Int64.self, at: column) }
        }
        precondition(sum == check)
    }
    let (baselineView2, byNameView) = try bench.compare("raw C: fetch by index", "CipherStore forEachRow: fetch by name", baseline: rawFetch) {
        var sum: Int64 = 0
        try db.forEachRow(sql: "SELECT i0, i1, i2, i3, i4, i5, i6, i7, i8, i9 FROM item") { row in
            for name in names { sum &+= try row.value(Int64.self, named: name) }
        }
        precondition(sum == check)
    }
    let (baseline4, decodable) = try bench.compare("raw C: fetch by index", "CipherStore: fetch Decodable records", baseline: rawFetch) {
        let cursor = try db.fetchCursor(Item.self, sql: "SELECT * FROM item")
        var sum: Int64 = 0
        while let item = try cursor.next() { sum &+= item.sum }
        precondition(sum == check)
    }
    let (baseline5, handWritten) = try bench.compare("raw C: fetch by index", "CipherStore: fetch with hand-written initialiser", baseline: rawFetch) {
        let statement = try db.cachedStatement(sql: "SELECT * FROM item")
        var sum: Int64 = 0
        while try statement.step() { sum &+= Item(statement: statement).sum }
        statement.reset()
        precondition(sum == check)
    }
    let (baselineRow, rowRecord) = try bench.compare("raw C: fetch by index", "CipherStore: fetch init(row:) records, by index", baseline: rawFetch) {
        let cursor = try db.fetchCursor(ItemRow.self, sql: "SELECT * FROM item")
        var sum: Int64 = 0
        while let item = try cursor.next() { sum &+= item.sum }
        precondition(sum == check)
    }
    let (baselineRowByName, rowRecordByName) = try bench.compare("raw C: fetch by index", "CipherStore: fetch init(row:) records, by name", baseline: rawFetch) {
        let cursor = try db.fetchCursor(ItemRowByName.self, sql: "SELECT * FROM item")
        var sum: Int64 = 0
        while let item = try cursor.next() { sum &+= item.sum }
        precondition(sum == check)
    }
    // The query interface builds the same SELECT and decodes the same way: its cost is the
    // request's SQL, measured against the SQL written out.
    let (baseline6, request) = try bench.compare("CipherStore: Item.fetchAll(db, sql:)", "CipherStore: Item.all().fetchAll(db)", baseline: {
        let sum = try Item.fetchAll(db, sql: "SELECT * FROM \"item\"").reduce(0) { $0 &+ $1.sum }
        precondition(sum == check)
    }) {
        let sum = try Item.all().fetchAll(db).reduce(0) { $0 &+ $1.sum }
        precondition(sum == check)
    }
    return [
        Benchmark.row("1. fetch by index (Statement)", baseline: baseline, library: statementAPI, target: "≤ 1.10×"),
        Benchmark.row("1. fetch by index (Row cursor, each row copied)", baseline: baseline2, library: rowAPI, target: VersusWorkload.fetchByIndex.cipherStoreTarget),
        Benchmark.row("1. fetch by index (`forEachRow`, rows read in place)", baseline: baselineView, library: byIndexView, target: VersusWorkload.fetchByIndexInPlace.cipherStoreTarget),
        Benchmark.row("2. fetch by name (Row cursor, each row copied)", baseline: baseline3, library: byName, target: VersusWorkload.fetchByName.cipherStoreTarget),
        Benchmark.row("2. fetch by name (`forEachRow`, rows read in place)", baseline: baselineView2, library: byNameView, target: VersusWorkload.fetchByNameInPlace.cipherStoreTarget),
        Benchmark.row("3. Decodable fetch", baseline: baseline4, library: decodable, target: VersusWorkload.decodable.cipherStoreTarget),
        Benchmark.row("3. record with `init(row:)` (`RowDecodableRecord`), read by index", baseline: baselineRow, library: rowRecord, target: VersusWorkload.decodable.cipherStoreTarget),
        Benchmark.row("3. record with `init(row:)` (`RowDecodableRecord`), read by name", baseline: baselineRowByName, library: rowRecordByName, target: "—"),
        Benchmark.row("3. hand-written initialiser", baseline: baseline5, library: handWritten, target: "—"),
        Benchmark.row("3. query interface `Item.all().fetchAll(db)` vs the same SQL (`Item.fetchAll(db, sql:)`, baseline column)", baseline: baseline6, library: request, target: "≤ 1.1×"),
    ]
}
