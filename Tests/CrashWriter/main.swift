import CipherStore
import Foundation

// A writer for the crash tests: commits numbered transactions through a DatabaseQueue (in the
// journal mode given) or a DatabasePool (`pool`: WAL) until it is killed, printing
// "committed N" after each commit returns.
// Usage: crash-writer PATH delete|truncate|persist|memory|wal|off|pool [WRITER]
// (the key comes on standard input, one line). Several writers (distinct WRITER numbers) may
// share one file.

let arguments = CommandLine.arguments
let usesPool = arguments.count >= 3 && arguments[2] == "pool"
guard arguments.count == 3 || arguments.count == 4, usesPool || JournalMode(rawValue: arguments[2]) != nil,
      let writer = Int(arguments.count == 4 ? arguments[3] : "1") else {
    FileHandle.standardError.write(Data("usage: crash-writer PATH delete|wal|pool [WRITER] (key on standard input)\n".utf8))
    exit(64)
}
guard let line = readLine(), let key = try? DatabaseKey.passphrase(line) else { exit(64) }

/// Runs `body` in one write transaction, committed when it returns.
let write: ((Connection) throws -> Void) throws -> Void
if usesPool {
    let pool = try DatabasePool(path: arguments[1], key: key)
    write = { body in try pool.write { try body($0) } }
} else if let mode = JournalMode(rawValue: arguments[2]) {
    let queue = try DatabaseQueue(path: arguments[1], key: key, configuration: Configuration(journalMode: mode))
    write = { body in
        try queue.inTransaction(.immediate) { db in
            try body(db)
            return .commit
        }
    }
} else {
    exit(64)
}

var transaction = 0
try write { db in
    try db.execute(sql: "CREATE TABLE IF NOT EXISTS entry(writer INTEGER, txn INTEGER, n INTEGER, body TEXT)")
    try db.execute(sql: "CREATE TABLE IF NOT EXISTS counter(id INTEGER PRIMARY KEY, value INTEGER)")
    try db.execute(sql: "INSERT OR IGNORE INTO counter VALUES (?, 0)", arguments: [writer])
    transaction = try db.fetchScalar(Int.self, sql: "SELECT value FROM counter WHERE id = ?", arguments: [writer]) ?? 0
}
while true {
    transaction += 1
    let number = transaction
    try write { db in
        // Enough rows per transaction to span several pages, so a kill lands mid-write.
        for n in 0..<50 {
            try db.execute(sql: "INSERT INTO entry VALUES (?, ?, ?, ?)",
                           arguments: [writer, number, n, "PLAINTEXT-MARKER-\(number)-" + String(repeating: "x", count: 200)])
        }
        try db.execute(sql: "UPDATE counter SET value = ? WHERE id = ?", arguments: [number, writer])
    }
    // Written straight to the descriptor: nothing is left in a buffer when the process is killed.
    FileHandle.standardOutput.write(Data("committed \(number)\n".utf8))
}
