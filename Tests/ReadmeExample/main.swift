import CipherStore

let key = try DatabaseKey.passphrase("correct horse battery staple")
let queue = try DatabaseQueue(path: "notes.db", key: key)

try queue.inDatabase { db in
    try db.execute(sql: "CREATE TABLE IF NOT EXISTS note(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
}
try queue.inTransaction { db in
    try db.execute(sql: "INSERT INTO note(body) VALUES (?)", arguments: ["Meet at 9:00 \"sharp\""])
    return .commit
}
let count = try queue.read { db in
    try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM note") ?? 0
}
print("notes: \(count)")

do {
    _ = try DatabaseQueue(path: "notes.db", key: DatabaseKey.passphrase("wrong"))
} catch CipherStoreError.wrongKey {
    print("a wrong key is refused")
}
