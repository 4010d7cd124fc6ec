@testable import CipherStore
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

/// Backups taken while other connections commit hold exactly one committed state.
@Suite struct OnlineBackupTests {
    enum Access: String, CaseIterable { case queue, pool }

    static let accounts = 40
    static let opening = 1_000
    let directory: TemporaryDirectory
    let key: DatabaseKey

    init() throws {
        directory = try TemporaryDirectory()
        key = try DatabaseKey.rawKey(hex: String(repeating: "5a", count: 32))
    }

    /// A bank: accounts whose balances always sum to the same total, a log of every transfer,
    /// and ~6 MB of filler so that the copy takes several steps.
    func makeBank(at path: String, wal: Bool) throws {
        let db = try Connection(path: path, key: key)
        if wal { try db.execute(sql: "PRAGMA journal_mode = WAL") }
        try db.executeScript("""
            CREATE TABLE account(id INTEGER PRIMARY KEY, balance INTEGER NOT NULL);
            CREATE TABLE transfer(id INTEGER PRIMARY KEY, source INTEGER NOT NULL, target INTEGER NOT NULL, amount INTEGER NOT NULL);
            CREATE TABLE filler(id INTEGER PRIMARY KEY, body BLOB);
            CREATE INDEX transfer_source ON transfer(source);
            """)
        try db.execute(sql: """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
            INSERT INTO account SELECT i, ? FROM n
            """, arguments: [Self.accounts, Self.opening])
        try db.execute(sql: """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1500)
            INSERT INTO filler SELECT i, randomblob(4000) FROM n
            """)
        try db.close()
    }

    /// Checks that the balances match the transfer log exactly and sum to the total.
    /// - Returns: the number of transfers.
    static func checkConsistent(_ db: Connection) throws -> Int {
        #expect(try db.fetchScalar(Int.self, sql: "SELECT sum(balance) FROM account") == accounts * opening)
        let mismatched = try db.fetchScalar(Int.self, sql: """
            SELECT count(*) FROM account a WHERE balance != ?
                + coalesce((SELECT sum(amount) FROM transfer WHERE target = a.id), 0)
                - coalesce((SELECT sum(amount) FROM transfer WHERE source = a.id), 0)
            """, arguments: [opening])
        #expect(mismatched == 0, "the balances are not those of one commit boundary")
        return try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM transfer") ?? -1
    }

    /// Four writers, each on a connection of its own, moving amounts between accounts until stopped.
    final class Writers: Sendable {
        let stop = Atomic<Bool>(false)
        let commits = Atomic<Int>(0)
        let failures = Mutex<[String]>([])
        let group = DispatchGroup()

        init(path: String, key: DatabaseKey, count: Int = 4) {
            for writer in 0..<count {
                group.enter()
                DispatchQueue.global().async { [self] in
                    defer { group.leave() }
                    do {
                        let queue = try DatabaseQueue(path: path, key: key, configuration: Configuration(busyTimeout: 60))
                        var generator = SystemRandomNumberGenerator()
                        while !stop.load(ordering: .relaxed) {
                            let source = Int.random(in: 1...OnlineBackupTests.accounts, using: &generator)
                            let target = source % OnlineBackupTests.accounts + 1
                            let amount = Int.random(in: 1...50, using: &generator) + writer
                            try queue.write { db in
                                try db.execute(sql: "UPDATE account SET balance = balance - ? WHERE id = ?", arguments: [amount, source])
                                try db.execute(sql: "UPDATE account SET balance = balance + ? WHERE id = ?", arguments: [amount, target])
                                try db.execute(sql: "INSERT INTO transfer(source, target, amount) VALUES (?, ?, ?)", arguments: [source, target, amount])
                            }
                            commits.add(1, ordering: .relaxed)
                        }
                        try queue.close()
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
        }

        func finish() -> [String] {
            stop.store(true, ordering: .relaxed)
            group.wait()
            return failures.withLock { $0 }
        }
    }

    @Test(arguments: Access.allCases)
    func aBackupTakenWhileFourWritersCommitHoldsOneCommitBoundary(access: Access) throws {
        let path = directory.path("bank.db")
        let copy = directory.path("bank-backup.db")
        try makeBank(at: path, wal: access == .pool)
        // In rollback-journal mode four looping writers can keep a reader's shared lock
        // waiting (SQLite's locks are not fair); on a loaded machine longer than the default
        // 5 s. The test is about the commit boundary the copy holds, not about that wait.
        let patient = Configuration(busyTimeout: 60)
        let reader: any DatabaseReader = access == .pool
            ? try DatabasePool(path: path, key: key, configuration: patient)
            : try DatabaseQueue(path: path, key: key, configuration: patient)
        defer { try? reader.close() }
        let writers = Writers(path: path, key: key)
        // Let the writers get going, then slow the copy down between its steps so that they
        // have time to commit while it runs.
        while writers.commits.load(ordering: .relaxed) < 20 { usleep(1_000) }
        let firstStep = Atomic<Int>(-1), copied = Atomic<Int>(-1)
        let options = DatabaseFileOptions(progress: { progress in
            switch progress.phase {
            case .copying:
                _ = firstStep.compareExchange(expected: -1, desired: writers.commits.load(ordering: .relaxed), ordering: .relaxed)
                usleep(60_000)
            case .verifying:
                copied.store(writers.commits.load(ordering: .relaxed), ordering: .relaxed)
            default: break
            }
        })
        let report = try reader.backup(to: copy, key: key, options: options)
        let failures = writers.finish()
        #expect(failures.isEmpty, "\(failures)")
        #expect(report.outputPath == copy)
        #expect(firstStep.load(ordering: .relaxed) >= 0, "the copy reported no step")
        if access == .pool {
            // WAL: the writers were not held up by the backup.
            #expect(copied.load(ordering: .relaxed) > firstStep.load(ordering: .relaxed), "no commit while the pages were copied")
        }

        let backup = try DatabaseQueue(path: copy, key: key)
        let transfers = try backup.read { try Self.checkConsistent($0) }
        #expect(try backup.read { try $0.fetchScalar(String.self, sql: "PRAGMA integrity_check") } == "ok")
        #expect(report.verification.tables.first { $0.name == "transfer" }?.rowCount == transfers)
        try backup.close()
        // The source went on: it has at least the transfers the backup has, and is consistent too.
        let after = try DatabaseQueue(path: path, key: key)
        #expect(try after.read { try Self.checkConsistent($0) } >= transfers)
        try after.close()
    }

    @Test func theBackupOpensWithTheDatabasesKeyOrTheOneGiven() throws {
        let path = directory.path("db.sqlite")
        let passphrase = try DatabaseKey.passphrase("backup passphrase")
        let queue = try DatabaseQueue(path: path, key: passphrase)
        try queue.write { try $0.executeScript("CREATE TABLE note(body TEXT); INSERT INTO note VALUES ('kept');") }
        try queue.backup(to: directory.path("same.db"), key: passphrase)
        try queue.backup(to: directory.path("other.db"), key: key)
        try queue.close()

        let same = try DatabaseQueue(path: directory.path("same.db"), key: passphrase)
        #expect(try same.read { try $0.fetchScalar(String.self, sql: "SELECT body FROM note") } == "kept")
        try same.close()
        let other = try DatabaseQueue(path: directory.path("other.db"), key: key)
        #expect(try other.read { try $0.fetchScalar(String.self, sql: "SELECT body FROM note") } == "kept")
        try other.close()
        #expect(throws: CipherStoreError.wrongKey(path: directory.path("other.db"))) {
            try DatabaseQueue(path: directory.path("other.db"), key: passphrase)
        }
        #expect(DatabaseFileInfo.inspect(path: directory.path("other.db")).kind == .encrypted)
    }

    @Test func aBackupWithoutAKeyIsRefusedAndAnExistingOutputIsKept() throws {
        let path = directory.path("db.sqlite")
        let queue = try DatabaseQueue(path: path, key: key)
        try queue.write { try $0.execute(sql: "CREATE TABLE t(x)") }
        let output = directory.path("backup.db")
        #expect(throws: BackupError.plaintextRefused) { try queue.backup(to: output, key: nil) }
        #expect(!FileManager.default.fileExists(atPath: output))

        try Data("not a database, but mine".utf8).write(to: URL(fileURLWithPath: output))
        #expect(throws: DatabaseFileError.outputExists(path: output)) { try queue.backup(to: output, key: key) }
        #expect(fileBytes(output) == Data("not a database, but mine".utf8))
        try queue.backup(to: output, key: key, overwrite: true)
        #expect(DatabaseFileInfo.inspect(path: output).kind == .encrypted)
        #expect(throws: DatabaseFileError.outputIsSource(path: path)) { try queue.backup(to: path, key: key) }
        try queue.close()
        // Each database with its schema copy; nothing else.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
            == ["backup.db", "backup.db.schema", "db.sqlite", "db.sqlite.schema"])
    }

    @Test func aCancelledBackupLeavesNoFile() async throws {
        let path = directory.path("db.sqlite")
        try makeBank(at: path, wal: true)
        let pool = try DatabasePool(path: path, key: key)
        let cancellation = DatabaseFileCancellation()
        let options = DatabaseFileOptions(progress: { if $0.phase == .copying { cancellation.cancel() } }, cancellation: cancellation)
        await #expect(throws: DatabaseFileError.cancelled) {
            try await pool.backup(to: self.directory.path("backup.db"), key: self.key, options: options)
        }
        try pool.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { !$0.hasPrefix("db.sqlite") } == [])
    }

    @Test func cancellingTheTaskOfABackupStopsItAsCancelledAndLeavesNoFile() async throws {
        let path = directory.path("db.sqlite")
        try makeBank(at: path, wal: true)
        let pool = try DatabasePool(path: path, key: key)
        let cancelTask = Locked<(@Sendable () -> Void)?>(nil)
        let cancelled = Signal()
        let options = DatabaseFileOptions(progress: { _ in
            // The task is cancelled from inside the backup, at its first progress report (on
            // the backup's thread, which may wait here for the task to be known).
            guard !cancelled.isSet else { return }
            while cancelTask.withLock({ $0 }) == nil { usleep(1000) }
            cancelled.set()
            cancelTask.withLock { $0 }?()
        })
        let (output, key) = (directory.path("backup.db"), key)
        let task = Task { try await pool.backup(to: output, key: key, options: options) }
        cancelTask.withLock { $0 = task.cancel }
        await #expect(throws: DatabaseFileError.cancelled) { try await task.value }
        try pool.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { !$0.hasPrefix("db.sqlite") } == [])
    }

    @Test func aSlotDatabaseBackedUpWithItsDataKeyComesWithItsSlotFile() throws {
        let path = directory.path("slots.db")
        let db = try Connection(path: path, key: nil)
        try db.executeScript("CREATE TABLE note(body TEXT); INSERT INTO note VALUES ('slot data');")
        try db.close()
        let passphrase = try Passphrase("slot backup passphrase")
        try KeySlots.encrypt(path: path, passphrase: passphrase, kdf: .scrypt(log2N: 14, blockSize: 1, parallelism: 1))
        let dataKey = try DatabaseKey.slots(passphrase: passphrase, path: path)
        let queue = try DatabaseQueue(path: path, key: dataKey)
        let copy = directory.path("slots-backup.db")
        let report = try queue.backup(to: copy, key: dataKey)
        #expect(report.slotFilePath == KeySlots.slotFilePath(forDatabase: copy))
        // Under another key the copy is an ordinary encrypted database: no slot file.
        let other = directory.path("other.db")
        #expect(try queue.backup(to: other, key: key).slotFilePath == nil)
        #expect(!FileManager.default.fileExists(atPath: KeySlots.slotFilePath(forDatabase: other)))
        try queue.close()

        let reopened = try DatabaseQueue(path: copy, key: DatabaseKey.slots(passphrase: passphrase, path: copy))
        #expect(try reopened.read { try $0.fetchScalar(String.self, sql: "SELECT body FROM note") } == "slot data")
        try reopened.close()
    }

    @Test func aPoolsBackupUnderAPassphraseIsASlotDatabaseOfItsOwn() throws {
        let path = directory.path("app.db")
        let pool = try DatabasePool(path: path, key: key)
        defer { try? pool.close() }
        try pool.write { db in try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2);") }
        let output = directory.path("offsite.db")
        let passphrase = try Passphrase(bytes: Array("off-site passphrase".utf8))
        let report = try pool.backup(to: output, passphrase: passphrase, label: "off-site", kdf: KeySlotFixture.fastKDF)
        #expect(report.slotFilePath == KeySlots.slotFilePath(forDatabase: output))
        #expect(report.verification.tables.map(\.rowCount) == [2])
        #expect(try KeySlots.list(path: output).map(\.label) == ["off-site"])
        let dataKey = try DatabaseKey.slots(passphrase: passphrase, path: output)
        let copy = try Connection(path: output, key: dataKey)
        #expect(try Int.fetchAll(copy, sql: "SELECT x FROM t") == [1, 2])
        try copy.close()
        #expect(throws: CipherStoreError.self) { try Connection(path: output, key: key).close() }

        // A second one over it is refused before anything is written: the pair stays.
        let slotBytes = fileBytes(KeySlots.slotFilePath(forDatabase: output))
        #expect(throws: KeySlotError.self) {
            try pool.backup(to: output, passphrase: passphrase, kdf: KeySlotFixture.fastKDF)
        }
        #expect(fileBytes(KeySlots.slotFilePath(forDatabase: output)) == slotBytes)
        try Connection(path: output, key: KeySlots.unlock(path: output, passphrase: passphrase)).close()

        // The slot file of an interrupted run, without its database, is named as a leftover.
        let interrupted = directory.path("interrupted.db")
        try fileBytes(KeySlots.slotFilePath(forDatabase: output)).write(to: URL(fileURLWithPath: KeySlots.slotFilePath(forDatabase: interrupted)))
        #expect(throws: KeySlotError.leftoverSlotFile(path: KeySlots.slotFilePath(forDatabase: interrupted), database: interrupted)) {
            try pool.backup(to: interrupted, passphrase: passphrase, kdf: KeySlotFixture.fastKDF)
        }
        #expect(!FileManager.default.fileExists(atPath: interrupted))
    }
}
