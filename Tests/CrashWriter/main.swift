import CipherStore
import Foundation

// A writer for the crash tests: commits numbered transactions through a DatabaseQueue until
// it is killed, printing "committed N" after each commit returns.
// Usage: crash-writer PATH JOURNAL_MODE [WRITER]   (the key comes on standard input, one line)
// Several writers (distinct WRITER numbers) may share one file.

let arguments = CommandLine.arguments
guard arguments.count == 3 || arguments.count == 4, let mode = JournalMode(rawValue: arguments[2]),
      let writer = Int(arguments.count == 4 ? arguments[3] : "1") else {
    FileHandle.standardError.write(Data("usage: crash-writer PATH delete|wal [WRITER] (key on standard input)\n".utf8))
    exit(64)
}
guard let line = readLine(), let key = try? DatabaseKey.passphrase(line) else { exit(64) }
let queue = try DatabaseQueue(path: arguments[1], key: key, configuration: Configuration(journalMode: mode))
try queue.inTransaction(.immediate) { db in
    try db.execute(sql: "CREATE TABLE IF NOT EXISTS entry(writer INTEGER, txn INTEGER, n INTEGER, body TEXT)")
    try db.execute(sql: "CREATE TABLE IF NOT EXISTS counter(id INTEGER PRIMARY KEY, value INTEGER)")
    try db.execute(sql: "INSERT OR IGNORE INTO counter VALUES (?, 0)", arguments: [writer])
    return .commit
}
var transaction = try queue.inDatabase { try $0.fetchScalar(Int.self, sql: "SELECT value FROM counter WHERE id = ?", arguments: [writer]) ?? 0 }
while true {
    transaction += 1
    let number = transaction
    try queue.inTransaction(.immediate) { db in
        // Enough rows per transaction to span several pages, so a kill lands mid-write.
        for n in 0..<50 {
            try db.execute(sql: "INSERT INTO entry VALUES (?, ?, ?, ?)",
                           arguments: [writer, number, n, "PLAINTEXT-MARKER-\(number)-" + String(repeating: "x", count: 200)])
        }
        try db.execute(sql: "UPDATE counter SET value = ? WHERE id = ?", arguments: [number, writer])
        return .commit
    }
    // Written straight to the descriptor: nothing is left in a buffer when the process is killed.
    FileHandle.standardOutput.write(Data("committed \(number)\n".utf8))
}
