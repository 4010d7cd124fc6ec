import CipherStore
import Foundation
import TestSupport
import Testing

@Suite struct EncryptionAtRestTests {
    static let marker = "MARKER-c1pherst0re-plaintext"

    @Test func databaseFileHasNoPlaintextHeaderOrMarker() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        do {
            let db = try Connection(path: path, key: .passphrase("k"))
            try db.execute(sql: "CREATE TABLE secret_table(x)")
            try db.execute(sql: "INSERT INTO secret_table VALUES (?)", arguments: [Self.marker])
        }
        let bytes = fileBytes(path)
        #expect(bytes.count >= 1024)
        #expect(!bytes.starts(with: Data("SQLite format 3".utf8)))
        #expect(!bytes.contains(Self.marker))
        #expect(!bytes.contains("secret_table"))
        #expect(DatabaseFileInfo.inspect(path: path).kind == .encrypted)
    }

    @Test func writeAheadLogIsEncrypted() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        let db = try Connection(path: path, key: .passphrase("k"), configuration: Configuration(journalMode: .wal))
        try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [Self.marker])
        let wal = fileBytes(path + "-wal")
        #expect(wal.count > 1024)
        #expect(!wal.contains(Self.marker))
        #expect(!fileBytes(path).contains(Self.marker))
    }

    @Test func rollbackJournalIsEncrypted() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        let db = try Connection(path: path, key: .passphrase("k"), configuration: Configuration(journalMode: .persist))
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [Self.marker])
        // The journal keeps the page as it was before this update: the marker's page.
        try db.execute(sql: "UPDATE t SET x = 'changed'")
        let journal = fileBytes(path + "-journal")
        #expect(journal.count > 1024)
        #expect(!journal.contains(Self.marker))
    }

    @Test func plaintextDatabaseShowsItsMarker() throws {
        // The check above can fail: the same marker is visible in a plaintext file.
        let directory = try TemporaryDirectory()
        let path = directory.path("plain.sqlite")
        do {
            let db = try Connection(path: path, key: nil)
            try db.execute(sql: "CREATE TABLE t(x)")
            try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [Self.marker])
        }
        #expect(fileBytes(path).contains(Self.marker))
        #expect(DatabaseFileInfo.inspect(path: path).kind == .plaintext)
    }
}
