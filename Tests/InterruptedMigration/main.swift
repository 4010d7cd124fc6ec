import CipherStore
import Foundation

// A child process for the migration crash tests: runs migrations on a database whose first
// migration ("v0 base") is applied, and stops for good inside the second pending one, after
// the first has committed, printing "migrating" so that the test can kill it there.
// Usage: interrupted-migration PATH delete|wal (the key comes on standard input, one line).

let arguments = CommandLine.arguments
guard arguments.count == 3, let mode = JournalMode(rawValue: arguments[2]),
      let line = readLine(), let key = try? DatabaseKey.passphrase(line) else {
    FileHandle.standardError.write(Data("usage: interrupted-migration PATH delete|wal (key on standard input)\n".utf8))
    exit(64)
}
let queue = try DatabaseQueue(path: arguments[1], key: key, configuration: Configuration(journalMode: mode))
var migrator = DatabaseMigrator()
migrator.registerMigration("v0 base") { _ in }
migrator.registerMigration("v1 committed") { db in
    try db.execute(sql: "CREATE TABLE added(x)")
    for n in 0..<500 { try db.execute(sql: "INSERT INTO added VALUES (?)", arguments: [n]) }
}
migrator.registerMigration("v2 killed") { db in
    try db.execute(sql: "INSERT INTO base(body) SELECT body || '!' FROM base")
    FileHandle.standardOutput.write(Data("migrating\n".utf8))
    while true { sleep(60) }
}
try migrator.migrate(queue)
