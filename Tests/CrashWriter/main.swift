import CipherStore
import Foundation

// A writer for the crash tests: commits numbered transactions through a DatabaseQueue until
// it is killed, printing "committed N" after each commit returns.
// Usage: crash-writer PATH JOURNAL_MODE   (the key comes on standard input, one line)

let arguments = CommandLine.arguments
guard arguments.count == 3, let mode = JournalMode(rawValue: arguments[2]) else {
    FileHandle.standardError.write(Data("usage: crash-writer PATH delete|wal (key on standard input)\n".utf8))
    exit(64)
}
guard let line = readLine(), let key = try? DatabaseKey.passphrase(line) else { exit(64) }
let queue = try DatabaseQueue(path: arguments[1], key: key, configuration: Configuration(journalMode: mode))
try queue.inDatabase { db in
    try db.execute(sql: "CREATE TABLE IF NOT EXISTS entry(txn INTEGER, n INTEGER, body TEXT)")
    try db.execute(sql: "CREATE TABLE IF NOT EXISTS counter(id INTEGER PRIMARY KEY, value INTEGER)")
    try db.execute(sql: "INSERT OR IGNORE INTO counter VALUES (1, 0)")
}
var transaction = try queue.inDatabase { try $0.fetchScalar(Int.self, sql: "SELECT value FROM counter") ?? 0 }
while true {
    transaction += 1
    let number = transaction
    try queue.inTransaction(.immediate) { db in
        // Enough rows per transaction to span several pages, so a kill lands mid-write.
        for n in 0..<50 {
            try db.execute(sql: "INSERT INTO entry VALUES (?, ?, ?)",
                           arguments: [number, n, "PLAINTEXT-MARKER-\(number)-" + String(repeating: "x", count: 200)])
        }
        try db.execute(sql: "UPDATE counter SET value = ?", arguments: [number])
        return .commit
    }
    // Written straight to the descriptor: nothing is left in a buffer when the process is killed.
    FileHandle.standardOutput.write(Data("committed \(number)\n".utf8))
}
