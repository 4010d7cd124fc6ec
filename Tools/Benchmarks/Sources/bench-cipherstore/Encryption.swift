import BenchSupport
import CipherStore
import CSQLCipher
import Foundation

/// Workload 6: what encryption costs, on the raw C API — encrypted (raw key) vs plaintext,
/// 1 KB and 4 KB pages, page cache smaller and larger than the database.
func encryptionCost(_ bench: Benchmark, directory: String, rows: Int, rawKey: [UInt8]) throws -> [String] {
    var lines: [String] = []
    for pageSize in [1024, 4096] {
        for (cacheName, cachePragma) in [("cache 1 MB (smaller than the database)", "PRAGMA cache_size = -1000"),
                                         ("cache 256 MB (larger)", "PRAGMA cache_size = -262144")] {
            var medians: [Bool: (fetch: Double, insert: Double)] = [:]
            for encrypted in [false, true] {
                let path = directory + "/cost-\(pageSize)-\(encrypted).db"
                let pragmas = encrypted ? ["PRAGMA cipher_page_size = \(pageSize)", cachePragma] : ["PRAGMA page_size = \(pageSize)", cachePragma]
                let label = "\(encrypted ? "encrypted" : "plaintext"), \(pageSize) B pages, \(cacheName)"
                let insert = try bench.measure("raw C insert: \(label)", setup: {
                    try? FileManager.default.removeItem(atPath: path)
                    let db = Raw.open(path, key: encrypted ? rawKey : nil, pragmas: pragmas + [itemSchema])
                    sqlite3_close(db)
                }) {
                    let db = Raw.open(path, key: encrypted ? rawKey : nil, pragmas: pragmas)
                    Raw.insert(db, count: rows)
                    sqlite3_close(db)
                }
                let db = Raw.open(path, key: encrypted ? rawKey : nil, pragmas: pragmas)
                let fetch = try bench.measure("raw C fetch: \(label)") { _ = Raw.fetchByIndex(db) }
                sqlite3_close(db)
                medians[encrypted] = (fetch.median, insert.median)
            }
            let plain = medians[false]!, encrypted = medians[true]!
            lines.append(String(format: "| %d B pages, %@ | %.2f ms / %.2f ms | %.2f ms / %.2f ms | **%.2f× / %.2f×** |",
                                pageSize, cacheName, plain.fetch * 1000, plain.insert * 1000, encrypted.fetch * 1000, encrypted.insert * 1000,
                                encrypted.fetch / plain.fetch, encrypted.insert / plain.insert))
        }
    }
    return lines
}

/// Workload 7: open + first query; our added cost over raw C, and one KDF per connection.
func openingWorkloads(_ bench: Benchmark, directory: String) throws -> [String] {
    let passphrase = Array("open benchmark passphrase".utf8)
    let rawHex = Array("x'\(String(repeating: "5c", count: 32))'".utf8)
    var lines: [String] = []
    for (name, rawKey, key) in [("plaintext", nil as [UInt8]?, nil as DatabaseKey?),
                                ("raw key", rawHex, try DatabaseKey.rawKey(hex: String(repeating: "5c", count: 32))),
                                ("passphrase (64,000 PBKDF2 iterations)", passphrase, try DatabaseKey.passphrase(bytes: passphrase))] {
        let path = directory + "/open-\(name.prefix(3)).db"
        let setup = Raw.open(path, key: rawKey, pragmas: ["CREATE TABLE IF NOT EXISTS t(x)"])
        sqlite3_close(setup)
        let baseline = try bench.measure("raw C: open + first query, \(name)") {
            let db = Raw.open(path, key: rawKey)
            let statement = Raw.prepare(db, "SELECT count(*) FROM sqlite_master")
            precondition(sqlite3_step(statement) == SQLITE_ROW)
            sqlite3_finalize(statement)
            sqlite3_close(db)
        }
        let library = try bench.measure("CipherStore: open + first query, \(name)") {
            let db = try Connection(path: path, key: key)
            _ = try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM sqlite_master")
            try db.close()
        }
        lines.append(String(format: "| 7. open + first query, %@ | %.3f ms | %.3f ms | **+%.3f ms** | ≤ raw + 0.2 ms%@ |",
                            name, baseline.median * 1000, library.median * 1000, (library.median - baseline.median) * 1000,
                            name.hasPrefix("passphrase") ? String(format: "; %.1f KDF runs", library.median / baseline.median) : ""))
    }
    return lines
}
