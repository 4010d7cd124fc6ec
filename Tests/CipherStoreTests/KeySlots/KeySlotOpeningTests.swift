import TestSupport
@testable import CipherStore
import Testing

/// A slot database made from an ordinary SQLite file opens with its slot key and nothing else;
/// a pool on a slot database goes on across a data-key rotation.
extension KeySlotSuites { @Suite struct KeySlotOpeningTests {
    @Test func aSourceWithSQLitesPageSizeOpensWithTheSlotKeyAndDefaultSettings() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        let plaintext = try Connection(path: path, key: nil)
        try plaintext.execute(sql: "PRAGMA page_size = 8192")
        try plaintext.execute(sql: "CREATE TABLE t(n INTEGER)")
        try plaintext.execute(sql: "INSERT INTO t VALUES (1)")
        try plaintext.close()

        let passphrase = try Passphrase("slot passphrase")
        try KeySlots.encrypt(path: path, passphrase: passphrase, kdf: .scrypt(log2N: 11))
        let key = try DatabaseKey.slots(passphrase: passphrase, path: path)
        let queue = try DatabaseQueue(path: path, key: key)
        #expect(try queue.read { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") } == 1)
        #expect(try queue.read { try CipherSettings.inUse(by: $0).pageSize } == SQLCipherLibrary.defaultPageSize)
        try queue.close()
        let pool = try DatabasePool(path: path, key: key)
        #expect(try pool.read { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") } == 1)
        try pool.close()
    }

    @Test func aKeySlotRotationThroughAPoolReopensItWithTheNewDataKey() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        try DatabaseQueue(path: path, key: nil).write { try $0.execute(sql: "CREATE TABLE t(n INTEGER)") }
        let passphrase = try Passphrase("slot passphrase")
        try KeySlots.encrypt(path: path, passphrase: passphrase, kdf: .scrypt(log2N: 11))
        let pool = try DatabasePool(path: path, key: try DatabaseKey.slots(passphrase: passphrase, path: path))
        try pool.write { try $0.execute(sql: "INSERT INTO t VALUES (1)") }
        let saltBefore = fileBytes(path).prefix(16)
        try pool.withConnectionsClosed { path, _, cipher in
            try KeySlots.rotateDataKey(path: path, keeping: [passphrase], cipher: cipher)
            return (try DatabaseKey.slots(passphrase: passphrase, path: path), cipher)
        }
        #expect(fileBytes(path).prefix(16) != saltBefore, "the file was not rewritten")
        try pool.write { try $0.execute(sql: "INSERT INTO t VALUES (2)") }
        #expect(try pool.read { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") } == 2)
        try pool.close()
    }
} }
