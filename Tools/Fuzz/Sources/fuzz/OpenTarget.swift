import CipherStore
import Foundation

// libFuzzer entry point: the input is a database file. It is opened with the right key, a
// wrong key and no key, and a fixed set of reads and writes runs through the public API.
// Only thrown errors are acceptable: a crash, a hang or a sanitizer report is a finding, and
// so is a wrong-but-successful read: every page of an encrypted file carries an HMAC, so a
// damaged copy of the encrypted seed that still opens with the right key must read back the
// seed's exact rows. (Inputs with an all-zero page are left out of that check: SQLCipher 3.4.1
// passes such a page as a short read, a documented limitation; SQLite catches most of them.)

/// The raw key the encrypted seeds were made with.
let rightKey = try! DatabaseKey.rawKey(hex: String(repeating: "f0", count: 32))
let wrongKey = try! DatabaseKey.rawKey(hex: String(repeating: "0f", count: 32))
let path = scratchPath("open.db")

func fuzzOpen(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = Data(bytes: data, count: size)
    for key in [rightKey, wrongKey, nil] {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(path + suffix) }
        guard (try? bytes.write(to: URL(fileURLWithPath: path))) != nil else { return 0 }
        exercise(key: key)
    }
    checkEncryptedSeedReadsExactly(bytes)
    return 0
}

/// The rows of `Corpus/encrypted-seed.db`, made with `rightKey`.
let encryptedSeedRows = ["1|Lily", "2|Binger"]

private func checkEncryptedSeedReadsExactly(_ bytes: Data) {
    let pageSize = 1024
    guard bytes.count >= pageSize else { return }
    for start in stride(from: 0, to: bytes.count - pageSize + 1, by: pageSize)
    where bytes[start..<(start + pageSize)].allSatisfy({ $0 == 0 }) {
        return
    }
    for suffix in ["", "-journal", "-wal", "-shm"] { unlink(path + suffix) }
    guard (try? bytes.write(to: URL(fileURLWithPath: path))) != nil,
          let db = try? Connection(path: path, key: rightKey, configuration: Configuration(readOnly: true)),
          (try? db.tableExists("user")) == true,
          let rows = try? db.fetchAll(sql: "SELECT id, name FROM user ORDER BY id")
    else { return }
    let read = rows.map { "\($0[0])|\(($0[1] == .null) ? "" : (try? $0.value(String.self, at: 1)) ?? "?")" }
    if read != encryptedSeedRows {
        FileHandle.standardError.write(Data("wrong-but-successful read: \(read)\n".utf8))
        abort()
    }
}

private func exercise(key: DatabaseKey?) {
    guard let db = try? Connection(path: path, key: key, configuration: Configuration(busyTimeout: 0)) else { return }
    defer { try? db.close() }
    // Keep runaway statements short: SQLite checks this handler while it works.
    _ = try? db.fetchAll(sql: "PRAGMA integrity_check(10)")
    guard let tables = try? db.fetchAll(sql: "SELECT name FROM sqlite_master WHERE type = 'table' LIMIT 8") else { return }
    for row in tables {
        guard let name = try? row.value(String.self, at: 0) else { continue }
        let table = Connection.quoteIdentifier(name)
        _ = try? db.fetchScalar(Int.self, sql: "SELECT count(*) FROM \(table)")
        if let cursor = try? db.fetchCursor(sql: "SELECT * FROM \(table) LIMIT 50") {
            while let row = try? cursor.next() { _ = row.values.count }
        }
    }
    _ = try? db.inTransaction {
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS fuzz_probe(x)")
        try db.execute(sql: "INSERT INTO fuzz_probe VALUES (?)", arguments: ["probe"])
        return .rollback
    }
}
