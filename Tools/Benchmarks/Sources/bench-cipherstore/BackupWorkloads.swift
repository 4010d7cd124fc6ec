import BenchSupport
import CipherStore
import Foundation

/// Workloads 18 to 20: the pool's writer while backups of the database run back to back, the
/// speed of one backup, and the speed of a repair of an intact file.
func backupWorkloads(directory: String, key: DatabaseKey, writes: Int, megabytes: Int) async throws -> [String] {
    let path = directory + "/backup-source.db"
    let pool = try DatabasePool(path: path, key: key)
    try await pool.write { db in
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT)")
        try db.execute(sql: "CREATE TABLE filler(id INTEGER PRIMARY KEY, body BLOB)")
        try db.execute(sql: """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
            INSERT INTO t SELECT i, printf('%0100d', i) FROM n
            """)
        try db.execute(sql: """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
            INSERT INTO filler SELECT i, randomblob(1000) FROM n
            """, arguments: [megabytes * 1_000])
    }
    let output = directory + "/backup.db"
    let started = Date()
    try await pool.backup(to: output, key: key, overwrite: true)
    let seconds = Date().timeIntervalSince(started)
    let mebibytes = Double(FileManager.default.size(atPath: path)) / 1_048_576

    let quiet = try writerLatencies(pool, count: writes, phase: "quiet")
    let stop = StopFlag()
    let backups = Task.detached {
        var count = 0
        while !stop.isSet {
            try pool.backup(to: output, key: key, overwrite: true)
            count += 1
        }
        return count
    }
    try await Task.sleep(for: .milliseconds(100))
    let busy = try writerLatencies(pool, count: writes, phase: "backup")
    stop.set()
    let backupCount = try await backups.value
    try pool.close()

    // 20. A repair reads every page (HMAC, decryption, b-tree, records) and writes a new database.
    let repairSource = directory + "/repair-source.db"
    try makeRepairSource(repairSource, key: key, megabytes: megabytes * 2)
    let repairStarted = Date()
    let repair = try await DatabaseRepair.salvage(path: repairSource, key: key, to: directory + "/repaired.db", overwrite: true)
    let repairSeconds = Date().timeIntervalSince(repairStarted)
    let repairMebibytes = Double(FileManager.default.size(atPath: repairSource)) / 1_048_576
    log("repair of \(Int(repairMebibytes)) MiB", String(format: "%.2f s, %.0f MiB/s, %d rows", repairSeconds, repairMebibytes / repairSeconds, repair.recoveredRows))

    let (quietP99, busyP99) = (percentile(quiet, 0.99), percentile(busy, 0.99))
    log("backup of \(Int(mebibytes)) MiB", String(format: "%.2f s, %.0f MiB/s", seconds, mebibytes / seconds))
    log("pool writer p99, quiet vs backups running", String(format: "%.3f vs %.3f ms (%d backups)", quietP99, busyP99, backupCount))
    return [
        String(format: "| 18. pool writer, p99 latency without vs with backups of the database running back to back (%.0f MiB; %d backups during %d commits) | %.3f ms (p50 %.3f) | %.3f ms (p50 %.3f) | **%.2f×** | %@ |",
               mebibytes, backupCount, writes, quietP99, percentile(quiet, 0.5), busyP99, percentile(busy, 0.5), busyP99 / quietP99,
               Benchmark.target("≤ 2×", for: busyP99 / quietP99)),
        String(format: "| 19. one backup of that pool, verified (integrity check, row counts) and synced | — | %.2f s, %.0f MiB/s | — | report |",
               seconds, mebibytes / seconds),
        String(format: "| 20. repair of an intact %.0f MiB database (%d rows of ~1 KB): every page checked and decrypted, every row written anew, verified | — | %.2f s, %.0f MiB/s | — | %@ |",
               repairMebibytes, repair.recoveredRows, repairSeconds, repairMebibytes / repairSeconds,
               Benchmark.target("≥ 50 MiB/s", for: repairMebibytes / repairSeconds)),
    ]
}

/// A database of ~1 KB rows in a table with an index, `megabytes` MB in all.
private func makeRepairSource(_ path: String, key: DatabaseKey, megabytes: Int) throws {
    try? FileManager.default.removeItem(atPath: path)
    let db = try Connection(path: path, key: key)
    try db.execute(sql: "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, body BLOB)")
    try db.execute(sql: "CREATE INDEX item_name ON item(name)")
    try db.execute(sql: """
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
        INSERT INTO item SELECT i, printf('item %08d', i), randomblob(1000) FROM n
        """, arguments: [megabytes * 1_000])
    try db.close()
}

extension FileManager {
    /// The size of a file in bytes, 0 when it cannot be read.
    func size(atPath path: String) -> Int64 {
        ((try? attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
    }
}
