import BenchSupport
import CipherStore
import CSQLCipher
import Foundation

/// Workload 6: what encryption costs, on the raw C API — encrypted (raw key) vs plaintext,
/// 1 KB and 4 KB pages, page cache smaller and larger than the database.
func encryptionCost(_ bench: Benchmark, directory: String, rows: Int, rawKey: [UInt8]) throws -> [String] {
    var lines: [String] = []
    for pageSize in [1024, 4096] {
        for (cacheName, cachePragma) in [("cache 1000 KiB (smaller than the database)", "PRAGMA cache_size = -1000"),
                                         ("cache 256 MiB (larger)", "PRAGMA cache_size = -262144")] {
            func paths(_ encrypted: Bool) -> (String, [String], [UInt8]?) {
                let path = directory + "/cost-\(pageSize)-\(encrypted).db"
                return (path, encrypted ? ["PRAGMA cipher_page_size = \(pageSize)", cachePragma] : ["PRAGMA page_size = \(pageSize)", cachePragma],
                        encrypted ? rawKey : nil)
            }
            func insert(_ encrypted: Bool) {
                let (path, pragmas, key) = paths(encrypted)
                let db = Raw.open(path, key: key, pragmas: pragmas)
                Raw.insert(db, count: rows)
                sqlite3_close(db)
            }
            func fetch(_ encrypted: Bool) {
                let (path, pragmas, key) = paths(encrypted)
                let db = Raw.open(path, key: key, pragmas: pragmas)
                _ = Raw.fetchByIndex(db)
                sqlite3_close(db)
            }
            let label = "\(pageSize) B pages, \(cacheName)"
            let inserts = try bench.compare("raw C insert, plaintext, \(label)", "raw C insert, encrypted, \(label)", setupFor: { encrypted in
                let (path, pragmas, key) = paths(encrypted)
                try? FileManager.default.removeItem(atPath: path)
                let db = Raw.open(path, key: key, pragmas: pragmas + [itemSchema])
                sqlite3_close(db)
            }, baseline: { insert(false) }, contender: { insert(true) })
            let fetches = try bench.compare("raw C fetch (new connection), plaintext, \(label)", "raw C fetch (new connection), encrypted, \(label)",
                                            baseline: { fetch(false) }, contender: { fetch(true) })
            let plain = (fetch: fetches.baseline.median, insert: inserts.baseline.median)
            let encrypted = (fetch: fetches.contender.median, insert: inserts.contender.median)
            lines.append(String(format: "| %d B pages, %@ | %.2f ms / %.2f ms | %.2f ms / %.2f ms | **%.2f× / %.2f×** |",
                                pageSize, cacheName, plain.fetch * 1000, plain.insert * 1000, encrypted.fetch * 1000, encrypted.insert * 1000,
                                encrypted.fetch / plain.fetch, encrypted.insert / plain.insert))
        }
    }
    return lines
}

/// Workload 7: open + first query; our added cost over raw C, and one KDF per connection.
func openingWorkloads(_ bench: Benchmark, directory: String) throws -> [String] {
    let passphrase = Array(throwawayPassphrase().utf8)
    let rawHex = Array("x'\(String(repeating: "5c", count: 32))'".utf8)
    var lines: [String] = []
    for (name, rawKey, key) in [("plaintext", nil as [UInt8]?, nil as DatabaseKey?),
                                ("raw key", rawHex, try DatabaseKey.rawKey(hex: String(repeating: "5c", count: 32))),
                                ("passphrase (\(libraryKDF))", passphrase, try DatabaseKey.passphrase(bytes: passphrase))] {
        let path = directory + "/open-\(name.prefix(3)).db"
        let setup = Raw.open(path, key: rawKey, pragmas: ["CREATE TABLE IF NOT EXISTS t(x)"])
        sqlite3_close(setup)
        let (baseline, library) = try bench.compare("raw C: open + first query, \(name)", "CipherStore: open + first query, \(name)", baseline: {
            let db = Raw.open(path, key: rawKey)
            let statement = Raw.prepare(db, "SELECT count(*) FROM sqlite_master")
            precondition(sqlite3_step(statement) == SQLITE_ROW)
            sqlite3_finalize(statement)
            sqlite3_close(db)
        }) {
            let db = try Connection(path: path, key: key)
            _ = try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM sqlite_master")
            try db.close()
        }
        lines.append(String(format: "| 7. open + first query, %@ | %.3f ms | %.3f ms | **%+.3f ms** | ≤ raw + 0.2 ms%@ |",
                            name, baseline.median * 1000, library.median * 1000, (library.median - baseline.median) * 1000,
                            name.hasPrefix("passphrase") ? String(format: "; %.1f KDF runs", library.median / baseline.median) : ""))
    }
    return lines
}

/// The linked SQLCipher's default key derivation, for row labels.
let libraryKDF = SQLCipherLibrary.sqlcipherMajorVersion >= 4 ? "256,000 PBKDF2-SHA512 iterations" : "64,000 PBKDF2-SHA1 iterations"
