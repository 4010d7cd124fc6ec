@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// The encrypted schema copy beside a database: kept by queues, pools and conversions, opened
/// only by the database's key, and what a repair rebuilds the tables from when page 1 is lost.
@Suite struct SchemaCopyTests {
    let directory: TemporaryDirectory
    let path: String
    let key: DatabaseKey

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.path("app.db")
        key = try DatabaseKey.rawKey(hex: String(repeating: "5c", count: 32))
    }

    func copy(of database: String, key: DatabaseKey, cipher: CipherSettings = .libraryDefaults) throws -> SchemaCopy? {
        guard let sealingKey = try SchemaCopyKey.forDatabase(at: database, key: key, cipher: cipher) else { return nil }
        return SchemaCopy.read(forDatabase: database, key: sealingKey).copy
    }

    func tables(_ copy: SchemaCopy?) -> [String] {
        (copy?.objects ?? []).filter { $0.type == "table" }.map(\.name).sorted()
    }

    /// A queue with a table of 300 rows (some longer than a page) and an index.
    func makeDatabase(configuration: Configuration = Configuration()) throws {
        let queue = try DatabaseQueue(path: path, key: key, configuration: configuration)
        try queue.write { db in
            try db.executeScript("""
                CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, data BLOB);
                CREATE INDEX item_name ON item(name);
                CREATE TABLE tag(label TEXT);
                """)
            try db.execute(sql: """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
                INSERT INTO item SELECT i, printf('item %03d', i), randomblob(CASE WHEN i % 50 = 0 THEN 3000 ELSE 20 END) FROM n
                """)
            try db.execute(sql: "INSERT INTO tag VALUES ('a'), ('b')")
        }
        try queue.close()
    }

    @Test func aQueueKeepsTheSchemaAfterEachSchemaChangeAndTheRowCountsOnClose() throws {
        let queue = try DatabaseQueue(path: path, key: key)
        try queue.write { try $0.execute(sql: "CREATE TABLE note(body TEXT)") }
        let afterCreate = try #require(try copy(of: path, key: key))
        #expect(tables(afterCreate) == ["note"])
        #expect(afterCreate.objects.first?.rootPage == 2)
        #expect(afterCreate.rowCounts == ["note": 0])

        // Rows alone do not rewrite the copy; the next schema change and the close do.
        try queue.write { try $0.execute(sql: "INSERT INTO note VALUES ('one'), ('two')") }
        #expect(try copy(of: path, key: key) == afterCreate)
        try queue.inDatabase { try $0.execute(sql: "CREATE TABLE tag(label TEXT)") }
        let afterSecond = try #require(try copy(of: path, key: key))
        #expect(tables(afterSecond) == ["note", "tag"])
        #expect(afterSecond.schemaVersion > afterCreate.schemaVersion)
        #expect(afterSecond.rowCounts == ["note": 2, "tag": 0])

        try queue.write { try $0.execute(sql: "INSERT INTO tag VALUES ('x')") }
        try queue.close()
        #expect(try copy(of: path, key: key)?.rowCounts == ["note": 2, "tag": 1])
    }

    @Test func aSchemaChangeInsideAnOpenTransactionIsCopiedOnlyOnceCommitted() throws {
        let queue = try DatabaseQueue(path: path, key: key)
        defer { try? queue.close() }
        try queue.inDatabase { try $0.executeScript("BEGIN; CREATE TABLE draft(x);") }
        #expect(!FileSystem.exists(SchemaCopy.path(forDatabase: path)))
        try queue.inDatabase { try $0.execute(sql: "COMMIT") }
        #expect(tables(try copy(of: path, key: key)) == ["draft"])
    }

    @Test func theCopyIsEncryptedAndOpensWithTheDatabasesKeyOnly() throws {
        try makeDatabase()
        let bytes = fileBytes(SchemaCopy.path(forDatabase: path))
        #expect(bytes.count > 100)
        for secret in ["item", "CREATE", "name", "tag"] { #expect(!bytes.contains(secret), "'\(secret)' is readable in the copy") }
        #expect(try copy(of: path, key: DatabaseKey.rawKey(hex: String(repeating: "5d", count: 32))) == nil)
        #expect(tables(try copy(of: path, key: key)) == ["item", "tag"])
        let mode = try FileManager.default.attributesOfItem(atPath: SchemaCopy.path(forDatabase: path))[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func aPassphraseQueueAndAPoolKeepOneToo() throws {
        let passphrase = try DatabaseKey.passphrase("schema copy passphrase")
        let queue = try DatabaseQueue(path: path, key: passphrase)
        try queue.write { try $0.execute(sql: "CREATE TABLE a(x)") }
        try queue.close()
        #expect(tables(try copy(of: path, key: passphrase)) == ["a"])

        let poolPath = directory.path("pool.db")
        let pool = try DatabasePool(path: poolPath, key: passphrase)
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE b(x)")
            try db.execute(sql: "INSERT INTO b VALUES (1), (2), (3)")
        }
        #expect(tables(try copy(of: poolPath, key: passphrase)) == ["b"])
        try pool.close()
        #expect(try copy(of: poolPath, key: passphrase)?.rowCounts == ["b": 3])
    }

    @Test func thePolicyDecidesWhatIsKept() throws {
        var configuration = Configuration()
        configuration.schemaCopy = .schemaOnly
        try makeDatabase(configuration: configuration)
        let copy = try #require(try copy(of: path, key: key))
        #expect(tables(copy) == ["item", "tag"])
        #expect(copy.rowCounts == nil)

        let other = directory.path("none.db")
        configuration.schemaCopy = .off
        let queue = try DatabaseQueue(path: other, key: key, configuration: configuration)
        try queue.write { try $0.execute(sql: "CREATE TABLE a(x)") }
        try queue.close()
        #expect(!FileSystem.exists(SchemaCopy.path(forDatabase: other)))

        // A plaintext database has none: its schema is readable without one.
        let plain = directory.path("plain.db")
        let plainQueue = try DatabaseQueue(path: plain, key: nil)
        try plainQueue.write { try $0.execute(sql: "CREATE TABLE a(x)") }
        try plainQueue.close()
        #expect(!FileSystem.exists(SchemaCopy.path(forDatabase: plain)))
    }

    @Test func conversionsWriteReplaceAndRemoveTheCopy() throws {
        let plain = directory.path("plain.db")
        let db = try Connection(path: plain, key: nil)
        try db.executeScript("CREATE TABLE a(x); INSERT INTO a VALUES (1), (2);")
        try db.close()
        let encrypted = directory.path("encrypted.db")
        let report = try DatabaseFile.encrypt(path: plain, key: key, to: .file(encrypted))
        #expect(report.schemaCopyPath == SchemaCopy.path(forDatabase: encrypted))
        #expect(try copy(of: encrypted, key: key)?.rowCounts == ["a": 2])

        let passphrase = try DatabaseKey.passphrase("rotated")
        let rekeyed = try DatabaseFile.changeKey(path: encrypted, oldKey: key, newKey: passphrase)
        #expect(rekeyed.schemaCopyPath != nil)
        #expect(try copy(of: encrypted, key: key) == nil, "the old key still opens the copy")
        #expect(tables(try copy(of: encrypted, key: passphrase)) == ["a"])

        let decrypted = try DatabaseFile.decrypt(path: encrypted, key: passphrase, to: .inPlace())
        #expect(decrypted.schemaCopyPath == nil)
        #expect(!FileSystem.exists(SchemaCopy.path(forDatabase: encrypted)), "a plaintext database kept an encrypted schema copy")
    }

    @Test func backupRestoreAndKeySlotsWriteOneForWhatTheyWrite() throws {
        try makeDatabase()
        let backup = directory.path("backup.db")
        let report = try DatabaseBackup.backup(path: path, key: key, to: backup)
        #expect(report.schemaCopyPath == SchemaCopy.path(forDatabase: backup))
        #expect(try copy(of: backup, key: key)?.rowCounts == ["item": 300, "tag": 2])

        FileSystem.removeIfPresent(SchemaCopy.path(forDatabase: path))
        try DatabaseBackup.restore(backup: backup, key: key, over: path)
        #expect(tables(try copy(of: path, key: key)) == ["item", "tag"])

        let slotPath = directory.path("slots.db")
        try FileManager.default.copyItem(atPath: backup, toPath: slotPath)
        let passphrase = try Passphrase(bytes: Array("slot passphrase".utf8))
        try KeySlots.convert(path: slotPath, currentKey: key, passphrase: passphrase, kdf: .pbkdf2SHA256(iterations: 100_000))
        let dataKey = try KeySlots.unlock(path: slotPath, passphrase: passphrase)
        #expect(try copy(of: slotPath, key: dataKey)?.rowCounts == ["item": 300, "tag": 2])
    }

    @Test func aRepairRebuildsTheTablesFromTheCopyWhenPageOneIsLost() throws {
        try makeDatabase()
        try damagePageOne()
        let output = directory.path("salvaged.db")
        let report = try DatabaseRepair.salvage(path: path, key: key, to: output)
        #expect(!report.schemaRecovered)
        #expect(report.schemaFromCopy)
        #expect(report.schemaCopyTaken != nil)
        #expect(report.pagesLost == [1])
        #expect(report.tables.map(\.name).sorted() == ["item", "tag"])
        #expect(report.tables.first { $0.name == "item" }?.expectedRows == 300)
        #expect(report.tables.first { $0.name == "item" }?.recoveredRows == 300)
        #expect(report.tables.first { $0.name == "tag" }?.expectedRows == 2)

        let db = try Connection(path: output, key: key)
        defer { try? db.close() }
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM item WHERE name = 'item 042' AND id = 42") == 1)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'item_name'") == 1)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name LIKE 'recovered_%'") == 0)
        // The new database has a copy of its own.
        #expect(report.schemaCopyPath == SchemaCopy.path(forDatabase: output))
        #expect(tables(try copy(of: output, key: key)) == ["item", "tag"])
    }

    @Test func withoutACopyThatOpensTheRowsGoToRecoveredTables() throws {
        try makeDatabase()
        try damagePageOne()
        // A copy sealed under another key is not used.
        let other = try DatabaseKey.rawKey(hex: String(repeating: "77", count: 32))
        let copyPath = SchemaCopy.path(forDatabase: path)
        let otherKey = try #require(try SchemaCopyKey.forDatabase(at: path, key: other, cipher: .libraryDefaults))
        try SchemaCopy(objects: [], rowCounts: [:], schemaVersion: 1, taken: Date()).write(forDatabase: path, key: otherKey)
        #expect(FileSystem.exists(copyPath))
        let report = try DatabaseRepair.salvage(path: path, key: key, to: directory.path("salvaged.db"))
        #expect(!report.schemaFromCopy && report.schemaCopyTaken == nil)
        #expect(report.tables.allSatisfy { $0.name.hasPrefix("recovered_") && $0.expectedRows == nil })
    }

    @Test func aSchemaReadWholeWinsOverAnOlderCopy() throws {
        try makeDatabase()
        // Dropped by a client that keeps no copy: the copy still names the table.
        let db = try Connection(path: path, key: key)
        try db.execute(sql: "DROP TABLE tag")
        try db.close()
        #expect(tables(try copy(of: path, key: key)) == ["item", "tag"])
        let report = try DatabaseRepair.salvage(path: path, key: key, to: directory.path("salvaged.db"))
        #expect(report.isComplete && !report.schemaFromCopy)
        #expect(report.tables.map(\.name) == ["item"])
    }

    @Test func aCopyOlderThanTheSchemaPutsNoRowIntoTheWrongTableAndDropsNone() throws {
        try makeDatabase()
        // Another client, which keeps no copy, drops `tag` and creates `audit` of item's width
        // (three columns), and a table of tag's width whose rowids collide with nothing.
        let db = try Connection(path: path, key: key)
        try db.executeScript("""
            DROP TABLE tag;
            CREATE TABLE audit(actor TEXT, at INTEGER, action TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400)
            INSERT INTO audit SELECT printf('admin-%d', i), i, 'LOGIN' FROM n;
            """)
        try db.close()
        try damagePageOne()
        let report = try DatabaseRepair.salvage(path: path, key: key, to: directory.path("salvaged.db"))
        #expect(report.schemaFromCopy && !report.isComplete)
        // `tag`'s old root page is not a table page now: it is left out and named.
        #expect(!report.tables.contains { $0.name == "tag" })
        #expect(report.problems.contains { $0.contains("table tag of the schema copy was not created") })
        #expect(report.problems.contains { $0.contains("item were rebuilt from the schema copy of") })
        // Every item row is back in item; every audit row, which does not fit item (its first
        // column holds text where item's INTEGER PRIMARY KEY is stored as NULL), is kept in a
        // recovered table, none in item.
        let out = try Connection(path: directory.path("salvaged.db"), key: key)
        defer { try? out.close() }
        #expect(try Int.fetchOne(out, sql: "SELECT count(*) FROM item") == 300)
        #expect(try Int.fetchOne(out, sql: "SELECT count(*) FROM item WHERE name LIKE 'admin-%' OR id > 300") == 0)
        let recovered = try String.fetchAll(out, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'recovered_%'")
        let kept = try recovered.reduce(0) { try $0 + (Int.fetchOne(out, sql: "SELECT count(*) FROM \($1) WHERE c1 LIKE 'admin-%'") ?? 0) }
        #expect(kept == 400)
        #expect(report.problems.contains { $0.contains("do not fit the table") })
    }

    @Test func aCopyThatCannotBeUsedIsNamedWhenTheSchemaNeedsIt() throws {
        try makeDatabase()
        try damagePageOne()
        try Data("not a schema copy".utf8).write(to: URL(fileURLWithPath: SchemaCopy.path(forDatabase: path)))
        let report = try DatabaseRepair.salvage(path: path, key: key, to: directory.path("salvaged.db"))
        #expect(report.schemaCopyTaken == nil)
        #expect(report.problems.contains { $0.contains("its schema copy could not be used") && $0.contains("is not a schema copy") })
    }

    /// Flips bytes of page 1 past its salt: its HMAC fails, the rest of the file reads.
    func damagePageOne() throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: 200)
        let before = try #require(try handle.read(upToCount: 16))
        try handle.seek(toOffset: 200)
        try handle.write(contentsOf: Data(before.map { $0 ^ 0x5A }))
    }
}
