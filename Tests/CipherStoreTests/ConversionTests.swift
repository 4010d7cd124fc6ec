@testable import CipherStore
import Foundation
import TestSupport
import Synchronization
import Testing

@Suite struct ConversionTests {
    let directory: TemporaryDirectory
    let plainPath: String
    let key: DatabaseKey

    init() throws {
        directory = try TemporaryDirectory()
        plainPath = directory.path("legacy.sqlite")
        key = try DatabaseKey.rawKey(hex: String(repeating: "3c", count: 32))
        try SampleDatabases.makeRichPlaintext(at: plainPath)
    }

    func dump(_ path: String) throws -> String {
        let result = try SQLCipherShell.run(database: path, script: ".dump\n")
        #expect(result.status == 0, "\(result.errorOutput)")
        return result.output
    }

    @Test func encryptThenDecryptGivesTheSameDump() throws {
        let encrypted = directory.path("encrypted.sqlite")
        let decrypted = directory.path("decrypted.sqlite")
        let before = fileBytes(plainPath)
        let report = try DatabaseFile.encrypt(path: plainPath, key: key, to: .file(encrypted))
        #expect(fileBytes(plainPath) == before)
        #expect(report.verification.isEncrypted)
        #expect(report.verification.userVersion == 7)
        #expect(DatabaseFileInfo.inspect(path: encrypted).kind == .encrypted)
        #expect(!fileBytes(encrypted).contains("冰儿"))

        try DatabaseFile.decrypt(path: encrypted, key: key, to: .file(decrypted))
        #expect(DatabaseFileInfo.inspect(path: decrypted).kind == .plaintext)
        let expected = try dump(plainPath)
        #expect(expected.contains("CREATE VIRTUAL TABLE note_search"))
        // sqlcipher_export creates virtual tables after the other tables, so `.dump` lists the
        // same statements in another order: compare them as a multiset of lines.
        #expect(try dump(decrypted).split(separator: "\n").sorted() == expected.split(separator: "\n").sorted())

        let db = try Connection(path: decrypted, key: nil)
        #expect(try db.fetchScalar(Int.self, sql: "PRAGMA user_version") == 7)
        #expect(try db.fetchScalar(Int.self, sql: "PRAGMA application_id") == 1234567)
        // Triggers still fire, AUTOINCREMENT continues, FTS still searches, constraints hold.
        try db.execute(sql: "INSERT INTO book(author, title) VALUES (1, 'after')")
        #expect(try db.fetchScalar(Int.self, sql: "SELECT max(id) FROM book") == 4)
        #expect(try db.fetchScalar(String.self, sql: "SELECT line FROM audit ORDER BY rowid DESC") == "added after")
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM note_search WHERE note_search MATCH 'search'") == 1)
        #expect(throws: DatabaseError.self) { try db.execute(sql: "INSERT INTO author(name) VALUES ('冰儿')") }
    }

    @Test func encryptedResultOpensInTheShellWithTheSameKey() throws {
        let encrypted = directory.path("encrypted.sqlite")
        let passphrase = try DatabaseKey.passphrase("shell can read this")
        try DatabaseFile.encrypt(path: plainPath, key: passphrase, to: .file(encrypted))
        let result = try SQLCipherShell.run(database: encrypted, script: "PRAGMA key = 'shell can read this';\nSELECT name FROM author ORDER BY id;\n")
        #expect(result.output.contains("冰儿"))
    }

    @Test func changeKeyWithNewSettingsOpensOnlyWithTheNewKey() throws {
        let path = directory.path("rotating.sqlite")
        try DatabaseFile.encrypt(path: plainPath, key: key, to: .file(path))
        let newKey = try DatabaseKey.passphrase("the new key")
        let settings = CipherSettings(pageSize: 4096, kdfIterations: 20_000)
        let report = try DatabaseFile.changeKey(path: path, oldKey: key, newKey: newKey, newCipher: settings)
        #expect(report.outputPath == path)
        #expect(report.verification.tables.first { $0.name == "book" }?.rowCount == 2)
        #expect(throws: CipherStoreError.self) { try Connection(path: path, key: key) }
        let db = try Connection(path: path, key: newKey, configuration: Configuration(cipher: settings))
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM author") == 2)
        #expect(fileBytes(path).count % 4096 == 0)
        // Nothing of the run is left beside the file.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains("cipherstore-") }
        #expect(leftovers.isEmpty)
    }

    @Test func inPlaceEncryptionWithBackupKeepsThePlaintextOriginal() throws {
        let backup = directory.path("legacy.plaintext-backup")
        let before = fileBytes(plainPath)
        let report = try DatabaseFile.encrypt(path: plainPath, key: key, to: .inPlace(backup: backup))
        #expect(report.backupPath == backup)
        #expect(fileBytes(backup) == before)
        #expect(DatabaseFileInfo.inspect(path: plainPath).kind == .encrypted)
        _ = try DatabaseFile.verify(path: plainPath, key: key)
    }

    @Test func walSourceWithUncheckpointedFramesIsCopiedWhole() throws {
        let walPath = directory.path("wal.sqlite")
        let writer = try Connection(path: walPath, key: nil)
        try writer.execute(sql: "PRAGMA page_size = \(SQLCipherLibrary.defaultPageSize)")
        try writer.execute(sql: "PRAGMA journal_mode = WAL")
        try writer.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        try writer.execute(sql: "CREATE TABLE t(x)")
        for index in 0..<100 { try writer.execute(sql: "INSERT INTO t VALUES (?)", arguments: [index]) }
        #expect(FileSystem_size(walPath + "-wal") > 0)
        let encrypted = directory.path("wal-encrypted.sqlite")
        try DatabaseFile.encrypt(path: walPath, key: key, to: .file(encrypted))
        let db = try Connection(path: encrypted, key: key)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") == 100)
        #expect(try db.fetchScalar(String.self, sql: "PRAGMA journal_mode") == "wal")
        try writer.close()
    }

    @Test func inPlaceConversionOfAWALSourceLeavesNoStaleLog() throws {
        let walPath = directory.path("wal.sqlite")
        do {
            let writer = try Connection(path: walPath, key: nil)
            try writer.execute(sql: "PRAGMA page_size = \(SQLCipherLibrary.defaultPageSize)")
            try writer.execute(sql: "PRAGMA journal_mode = WAL")
            try writer.execute(sql: "CREATE TABLE t(x)")
            try writer.execute(sql: "INSERT INTO t VALUES ('kept')")
            try writer.close()
        }
        try DatabaseFile.encrypt(path: walPath, key: key, to: .inPlace())
        #expect(!FileManager.default.fileExists(atPath: walPath + "-wal") || FileSystem_size(walPath + "-wal") == 0)
        let db = try Connection(path: walPath, key: key)
        #expect(try db.fetchScalar(String.self, sql: "SELECT x FROM t") == "kept")
    }

    /// The fraction done tells the time left: when the copy of a file with indexes ends, the
    /// time left computed from it (as the CLI's progress bar does) is of the order of the
    /// time the integrity check and the comparison then take — not a twentieth of it, as when
    /// the copy counted for 80 % of the whole.
    @Test func theFractionAtTheEndOfTheCopyForetellsTheTimeLeft() throws {
        let source = directory.path("indexed.sqlite")
        let db = try Connection(path: source, key: nil)
        try db.executeScript("""
            CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b INTEGER, c TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 150000)
            INSERT INTO t(a, b, c) SELECT hex(randomblob(12)), random(), hex(randomblob(30)) FROM n;
            CREATE INDEX ta ON t(a); CREATE INDEX tb ON t(b);
            """)
        try db.close()
        let seen = Mutex<[(phase: DatabaseFileProgress.Phase, fraction: Double, at: ContinuousClock.Instant)]>([])
        let started = ContinuousClock.now
        try DatabaseFile.encrypt(path: source, key: key, to: .file(directory.path("indexed-encrypted.sqlite")),
                                 options: DatabaseFileOptions(progress: { progress in
                                     seen.withLock { $0.append((progress.phase, progress.fractionCompleted, .now)) }
                                 }))
        let reports = seen.withLock { $0 }
        let copied = try #require(reports.last { $0.phase == .copying && $0.fraction > 0 })
        let done = try #require(reports.last { $0.phase == .done })
        let elapsed = (copied.at - started) / .seconds(1)
        let foretold = elapsed / copied.fraction - elapsed
        let actual = (done.at - copied.at) / .seconds(1)
        // Measured alone: a third to a half of what is left; under the whole suite's load, a
        // fifth. When the copy counted for 80 %, a twentieth.
        #expect(foretold >= actual / 10, "at \(copied.fraction) after \(elapsed) s: \(foretold) s left foretold, \(actual) s taken")
    }

    @Test func progressIsReportedAndCancellationLeavesTheSourceUntouched() throws {
        let large = directory.path("large.sqlite")
        try SampleDatabases.makeLarge(at: large, rows: 5_000)
        let before = fileBytes(large)
        let phases = PhaseRecorder()
        _ = try DatabaseFile.encrypt(path: large, key: key, to: .file(directory.path("a.sqlite")),
                                            options: DatabaseFileOptions(progress: { phases.record($0) }))
        #expect(phases.phases.first == .copying)
        #expect(phases.phases.last == .done)
        #expect(phases.fractions == phases.fractions.sorted())
        // Copying reports how much of the source has been read, not only its start and end.
        #expect(phases.fractions.contains { $0 > 0 && $0 < DatabaseFileProgress.ConversionShare.copied }, "\(phases.fractions)")

        let cancellation = DatabaseFileCancellation()
        let output = directory.path("b.sqlite")
        #expect(throws: DatabaseFileError.cancelled) {
            try DatabaseFile.encrypt(path: large, key: key, to: .file(output),
                                            options: DatabaseFileOptions(progress: { _ in cancellation.cancel() }, cancellation: cancellation))
        }
        #expect(fileBytes(large) == before)
        #expect(!FileManager.default.fileExists(atPath: output))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains("cipherstore-") }
        #expect(leftovers.isEmpty)
    }

    /// With a page cache far smaller than the result, pages spill to the file while the export
    /// runs and the integrity check reads them back: the result is the same.
    @Test func aSmallPageCacheGivesTheSameResult() throws {
        let large = directory.path("large.sqlite")
        try SampleDatabases.makeLarge(at: large, rows: 3_000)
        let encrypted = directory.path("encrypted.sqlite")
        let decrypted = directory.path("decrypted.sqlite")
        let options = DatabaseFileOptions(pageCacheBytes: 16 * 1024)
        let report = try DatabaseFile.encrypt(path: large, key: key, to: .file(encrypted), options: options)
        #expect(report.verification.tables.map(\.rowCount) == [3_000])
        try DatabaseFile.decrypt(path: encrypted, key: key, to: .file(decrypted), options: options)
        #expect(try dump(decrypted) == dump(large))
    }

    /// A table whose rowid is a column is copied whole, index b-trees as they are, so a damaged
    /// index in the source shows up in the result's integrity check: the conversion stops and
    /// writes nothing. (A table copied row by row, with its rowid named, gets its indexes
    /// built anew from its rows.)
    @Test func aSourceWithADamagedIndexIsNotCarriedOver() throws {
        let damaged = directory.path("damaged.sqlite")
        let db = try Connection(path: damaged, key: nil)
        try db.executeScript("""
            CREATE TABLE t(id INTEGER PRIMARY KEY, x); CREATE INDEX ti ON t(x);
            CREATE TABLE u(id INTEGER PRIMARY KEY, x); CREATE INDEX ui ON u(x);
            INSERT INTO t(x) VALUES (1), (2), (3); INSERT INTO u(x) VALUES (10), (20);
            """)
        // Each index now points at the other's b-tree.
        let roots = try db.fetchAll(sql: "SELECT name, rootpage FROM sqlite_master WHERE type = 'index' ORDER BY name")
            .map { try $0.value(Int.self, at: 1) }
        try db.execute(sql: "PRAGMA writable_schema = ON")
        try db.execute(sql: "UPDATE sqlite_master SET rootpage = ? WHERE name = 'ti'", arguments: [roots[1]])
        try db.execute(sql: "UPDATE sqlite_master SET rootpage = ? WHERE name = 'ui'", arguments: [roots[0]])
        try db.close()
        let before = fileBytes(damaged)
        let output = directory.path("out.sqlite")
        #expect {
            try DatabaseFile.encrypt(path: damaged, key: key, to: .file(output))
        } throws: { error in
            guard case DatabaseFileError.verificationFailed(let detail) = error else { return false }
            return detail.contains("missing from index")
        }
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(fileBytes(damaged) == before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains("cipherstore-") }
        #expect(leftovers.isEmpty)
    }

    /// Damage to the written file after the export (here: bytes overwritten in the middle of
    /// the temporary file when verification starts) is found by the full read-back; nothing
    /// replaces anything.
    @Test func fullReadBackFindsAPageDamagedOnDisk() throws {
        let large = directory.path("large.sqlite")
        try SampleDatabases.makeLarge(at: large, rows: 3_000)
        let before = fileBytes(large)
        let folder = directory.url.path
        let damage: @Sendable (DatabaseFileProgress) -> Void = { progress in
            guard progress.phase == .verifying,
                  let name = try? FileManager.default.contentsOfDirectory(atPath: folder).first(where: { $0.hasSuffix(".tmp") }),
                  let file = FileHandle(forUpdatingAtPath: folder + "/" + name) else { return }
            let size = (try? file.seekToEnd()) ?? 0
            try? file.seek(toOffset: size / 2)
            file.write(Data(repeating: 0x5A, count: 4096))
            try? file.close()
        }
        let output = directory.path("out.sqlite")
        #expect {
            try DatabaseFile.encrypt(path: large, key: key, to: .file(output),
                                            options: DatabaseFileOptions(progress: damage, fullReadBack: true))
        } throws: { error in
            guard case DatabaseFileError.verificationFailed = error else { return false }
            return true
        }
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(fileBytes(large) == before)
    }

    @Test func leftoverOfACrashedRunIsRemovedByTheNextRun() throws {
        let output = directory.path("out.sqlite")
        // The name a run writes: output name, FNV-1a hash of it, pid, random part. pid 2^22 + 1
        // is above Linux's default pid_max: no such process.
        let leftover = directory.path(".out.sqlite.28559e77.cipherstore-4194305-abc.tmp")
        try Data("partial".utf8).write(to: URL(fileURLWithPath: leftover))
        let report = try DatabaseFile.encrypt(path: plainPath, key: key, to: .file(output))
        #expect(report.removedLeftovers == [leftover])
        #expect(!FileManager.default.fileExists(atPath: leftover))
    }

    @Test func verifyReportsTablesAndRowCounts() throws {
        let encrypted = directory.path("encrypted.sqlite")
        try DatabaseFile.encrypt(path: plainPath, key: key, to: .file(encrypted))
        let report = try DatabaseFile.verify(path: encrypted, key: key)
        #expect(report.isEncrypted)
        #expect(report.applicationID == 1234567)
        #expect(report.tables.first { $0.name == "author" }?.rowCount == 2)
        #expect(report.tables.first { $0.name == "setting" }?.rowCount == 2)
        #expect(throws: CipherStoreError.self) { try DatabaseFile.verify(path: encrypted, key: .passphrase("wrong")) }
    }
}

func FileSystem_size(_ path: String) -> Int {
    fileBytes(path).count
}

/// Collects progress reports from the converting thread.
final class PhaseRecorder: @unchecked Sendable {
    // @unchecked: every access holds `lock`.
    private let lock = NSLock()
    private var reports: [DatabaseFileProgress] = []

    func record(_ progress: DatabaseFileProgress) {
        lock.lock(); defer { lock.unlock() }
        reports.append(progress)
    }

    var phases: [DatabaseFileProgress.Phase] {
        lock.lock(); defer { lock.unlock() }
        return reports.map(\.phase)
    }

    var fractions: [Double] {
        lock.lock(); defer { lock.unlock() }
        return reports.map(\.fractionCompleted)
    }
}

@Suite struct ConversionSettingsTests {
    @Test func invalidTargetSettingsAreRefusedBeforeAnyFileIsWritten() throws {
        let directory = try TemporaryDirectory()
        let source = directory.path("plain.sqlite")
        try SampleDatabases.makeRichPlaintext(at: source)
        let output = directory.path("out.sqlite")
        #expect(throws: CipherStoreError.self) {
            try DatabaseFile.encrypt(path: source, key: .passphrase("k"), cipher: CipherSettings(pageSize: 1000), to: .file(output))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["plain.sqlite"])
    }

    @Test func aKeyChangeKeepsTheSourcesSettingsUnlessNewOnesAreGiven() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("strong.sqlite")
        // Unlike the defaults of SQLCipher 3 (1024, 64,000) and 4 (4096, 256,000).
        let strong = CipherSettings(pageSize: 8192, kdfIterations: 100_000)
        let oldKey = try DatabaseKey.passphrase("old passphrase")
        let newKey = try DatabaseKey.passphrase("new passphrase")
        let db = try Connection(path: path, key: oldKey, configuration: Configuration(cipher: strong))
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.close()

        let report = try DatabaseFile.changeKey(path: path, oldKey: oldKey, oldCipher: strong, newKey: newKey)
        #expect(report.verification.pageSize == 8192)
        #expect(report.verification.kdfIterations == 100_000)
        // It opens with those settings only, not with the defaults.
        #expect(throws: CipherStoreError.self) { try Connection(path: path, key: newKey) }
        try Connection(path: path, key: newKey, configuration: Configuration(cipher: strong)).close()

        let changed = try DatabaseFile.changeKey(path: path, oldKey: newKey, oldCipher: strong, newKey: oldKey,
                                                        newCipher: CipherSettings(kdfIterations: 300_000))
        #expect(changed.verification.pageSize == 8192)
        #expect(changed.verification.kdfIterations == 300_000)
    }

    /// A plaintext file with SQLite's usual 4096-byte pages is encrypted with the linked
    /// SQLCipher's defaults, so its key alone opens the result (1024-byte pages on SQLCipher 3);
    /// the source's page size is kept only when asked for, and decryption keeps what it reads.
    @Test func encryptUsesTheLinkedSQLCiphersDefaultsUnlessAPageSizeIsGiven() throws {
        let directory = try TemporaryDirectory()
        let plain = directory.path("plain.sqlite")
        let db = try Connection(path: plain, key: nil)
        try db.execute(sql: "PRAGMA page_size = 4096")
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.execute(sql: "INSERT INTO t SELECT randomblob(100) FROM sqlite_master")
        try db.close()
        let key = try DatabaseKey.rawKey(hex: String(repeating: "4d", count: 32))

        let encrypted = try DatabaseFile.encrypt(path: plain, key: key, to: .file(directory.path("e.sqlite")))
        #expect(encrypted.verification.pageSize == SQLCipherLibrary.defaultPageSize)
        let reopened = try Connection(path: encrypted.outputPath, key: key)
        #expect(try reopened.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") == 1)
        try reopened.close()
        // The linked SQLCipher's own shell, with nothing but the key.
        let shell = try SQLCipherShell.run(database: encrypted.outputPath,
                                           script: "PRAGMA key = \"x'\(String(repeating: "4d", count: 32))'\";\nSELECT count(*) FROM t;\n")
        #expect(SQLCipherShell.queryOutput(of: shell) == "1\n", "\(shell.output) \(shell.errorOutput)")

        let sourcePageSize = try #require(DatabaseFile.inspect(path: plain).plaintextPageSize)
        let kept = try DatabaseFile.encrypt(path: plain, key: key, cipher: CipherSettings(pageSize: sourcePageSize),
                                                   to: .file(directory.path("k.sqlite")))
        #expect(kept.verification.pageSize == 4096)
        let decrypted = try DatabaseFile.decrypt(path: kept.outputPath, key: key, cipher: CipherSettings(pageSize: 4096),
                                                        to: .file(directory.path("d.sqlite")))
        #expect(decrypted.verification.pageSize == 4096)
        #expect(DatabaseFileInfo.inspect(path: decrypted.outputPath).plaintextPageSize == 4096)
    }
}
