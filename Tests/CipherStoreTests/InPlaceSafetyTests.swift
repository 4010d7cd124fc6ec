import CipherStore
import Dispatch
import Foundation
import TestSupport
import Testing

/// In-place conversions lose no committed write, follow links to the data, and leave no
/// plaintext beside the result; conversions into a new file read sources they cannot write.
@Suite struct InPlaceSafetyTests {
    let directory: TemporaryDirectory
    let oldKey: DatabaseKey
    let newKey: DatabaseKey

    init() throws {
        directory = try TemporaryDirectory()
        oldKey = try DatabaseKey.rawKey(hex: String(repeating: "5a", count: 32))
        newKey = try DatabaseKey.rawKey(hex: String(repeating: "a5", count: 32))
    }

    private func makeEncrypted(_ path: String, journalMode: JournalMode? = nil) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: path, key: oldKey, configuration: Configuration(journalMode: journalMode))
        try queue.inDatabase { db in
            try db.execute(sql: "CREATE TABLE t(x TEXT)")
            try db.execute(sql: "INSERT INTO t VALUES ('first')")
        }
        return queue
    }

    private func rows(_ path: String, key: DatabaseKey?) throws -> [String] {
        let db = try Connection(path: path, key: key)
        defer { try? db.close() }
        return try db.fetchAll(sql: "SELECT x FROM t ORDER BY rowid").map { try $0.value(String.self, at: 0) }
    }

    @Test func aWALDatabaseOpenInThisProcessIsNotReplacedAndItsLaterWriteIsKept() throws {
        let path = directory.path("wal.db")
        let queue = try makeEncrypted(path, journalMode: .wal)
        #expect {
            try DatabaseFile.changeKey(path: path, oldKey: oldKey, newKey: newKey, to: .inPlace())
        } throws: { error in
            guard case DatabaseFileError.databaseInUse(_, let detail)? = error as? DatabaseFileError else { return false }
            return detail.contains("WAL mode")
        }
        try queue.inDatabase { try $0.execute(sql: "INSERT INTO t VALUES ('second')") }
        let journalMode = try queue.inDatabase { try $0.fetchScalar(String.self, sql: "PRAGMA journal_mode") }
        #expect(journalMode == "wal")
        try queue.close()
        #expect(try rows(path, key: oldKey) == ["first", "second"])
    }

    /// In every rollback-journal mode, those without a journal file (MEMORY, OFF) included.
    @Test(arguments: [JournalMode.delete, .truncate, .persist, .memory, .off])
    func aRollbackJournalWriterLeftOpenCannotCommitIntoTheReplacedFile(journalMode: JournalMode) throws {
        let path = directory.path("\(journalMode).db")
        let queue = try makeEncrypted(path, journalMode: journalMode)
        try DatabaseFile.changeKey(path: path, oldKey: oldKey, newKey: newKey, to: .inPlace())
        // The queue still has the old file open: its write must fail, not vanish.
        #expect(throws: DatabaseError.self) {
            try queue.inDatabase { try $0.execute(sql: "INSERT INTO t VALUES ('late')") }
        }
        try queue.close()
        #expect(try rows(path, key: newKey) == ["first"])
    }

    @Test(arguments: [JournalMode.memory, .off])
    func aWriterWaitingForTheLockFailsAfterTheSwapWithoutAJournalFile(journalMode: JournalMode) throws {
        let path = directory.path("waiting-\(journalMode).db")
        let queue = try makeEncrypted(path, journalMode: journalMode)
        try queue.inDatabase { db in
            try db.execute(sql: "INSERT INTO t SELECT hex(randomblob(500)) FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) SELECT i FROM n)")
        }
        let before = try queue.inDatabase { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") } ?? 0
        // The key change holds the write lock while it copies; the writer waits for it (busy
        // timeout) and gets it after the rename: its commit must fail, not vanish.
        let conversion = DispatchQueue(label: "conversion")
        let done = DispatchSemaphore(value: 0)
        let (oldKey, newKey) = (self.oldKey, self.newKey)
        conversion.async {
            _ = try? DatabaseFile.changeKey(path: path, oldKey: oldKey, newKey: newKey, to: .inPlace())
            done.signal()
        }
        Thread.sleep(forTimeInterval: 0.2)
        let late = Result { try queue.inDatabase { try $0.execute(sql: "INSERT INTO t VALUES ('late')") } }
        done.wait()
        try queue.close()
        let key = DatabaseFileInfo.inspect(path: path).kind == .encrypted && (try? rows(path, key: newKey)) != nil ? newKey : oldKey
        let result = try rows(path, key: key)
        switch late {
        case .success: #expect(result.contains("late"), "the writer reported success and its row is gone")
        case .failure: #expect(!result.contains("late"))
        }
        #expect(result.count >= before)
    }

    /// Two key changes of one file at once: the one that waited for the lock while the other
    /// replaced the file is refused — it must not convert the replaced file (gone, or kept as
    /// a backup) and put it back over the other's result — and the file opens with the key the
    /// other one reported.
    @Test(arguments: [false, true])
    func aKeyChangeThatWaitedWhileAnotherReplacedTheFileIsRefused(keepingBackup: Bool) throws {
        let path = directory.path("twice-\(keepingBackup).db")
        try makeEncrypted(path).close()
        let (oldKey, firstKey) = (self.oldKey, self.newKey)
        let secondKey = try DatabaseKey.rawKey(hex: String(repeating: "3c", count: 32))
        // The first change stops at its first progress report, holding the lock, until the
        // second one is waiting for it.
        let holdOnce = DispatchSemaphore(value: 0), holding = DispatchSemaphore(value: 0), resume = DispatchSemaphore(value: 0)
        holdOnce.signal()  // (a semaphore made with a count above 0 must not end below it)
        let first = Outcome(), second = Outcome()
        let holdingOptions = DatabaseFileOptions(progress: { _ in
            guard holdOnce.wait(timeout: .now()) == .success else { return }
            holding.signal()
            resume.wait()
        })
        let backup = keepingBackup ? path + ".bak" : nil
        DispatchQueue(label: "first").async {
            first.set(Result { try DatabaseFile.changeKey(path: path, oldKey: oldKey, newKey: firstKey,
                                                                  to: .inPlace(backup: backup), options: holdingOptions) })
        }
        holding.wait()
        DispatchQueue(label: "second").async {
            second.set(Result { try DatabaseFile.changeKey(path: path, oldKey: oldKey, newKey: secondKey, to: .inPlace(),
                                                                   options: DatabaseFileOptions(busyTimeout: 10)) })
        }
        Thread.sleep(forTimeInterval: 0.5)
        resume.signal()
        #expect(throws: Never.self) { try first.wait().get() }
        #expect(throws: DatabaseFileError.replacedByAnotherConversion(path: path)) { try second.wait().get() }
        #expect(try rows(path, key: firstKey) == ["first"])
        if let backup { #expect(try rows(backup, key: oldKey) == ["first"]) }
    }

    /// A conversion's result, handed from the thread that ran it.
    private final class Outcome: @unchecked Sendable {
        // @unchecked Sendable: `value` is written once before `done` is signalled, read after.
        private var value: Result<DatabaseFileReport, any Error>?
        private let done = DispatchSemaphore(value: 0)

        func set(_ result: Result<DatabaseFileReport, any Error>) {
            value = result
            done.signal()
        }

        func wait() -> Result<DatabaseFileReport, any Error> {
            done.wait()
            return value!
        }
    }

    @Test func aFailedInPlaceConversionLeavesAWALSourceInWALMode() throws {
        let path = directory.path("wal.db")
        try makeEncrypted(path, journalMode: .wal).close()
        let cancellation = DatabaseFileCancellation()
        let options = DatabaseFileOptions(progress: { _ in cancellation.cancel() }, cancellation: cancellation)
        #expect(throws: DatabaseFileError.cancelled) {
            try DatabaseFile.changeKey(path: path, oldKey: oldKey, newKey: newKey, to: .inPlace(), options: options)
        }
        let db = try Connection(path: path, key: oldKey)
        #expect(try db.fetchScalar(String.self, sql: "PRAGMA journal_mode") == "wal")
        try db.close()
    }

    @Test func aSymbolicLinkIsFollowedToTheFileThatHoldsTheData() throws {
        try FileManager.default.createDirectory(atPath: directory.path("real"), withIntermediateDirectories: true)
        let real = directory.path("real/app.db")
        let link = directory.path("link.db")
        try makeEncrypted(real).close()
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)

        let report = try DatabaseFile.changeKey(path: link, oldKey: oldKey, newKey: newKey, to: .inPlace())
        #expect(report.outputPath.hasSuffix("real/app.db"))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == real)
        #expect(throws: CipherStoreError.wrongKey(path: real)) { try rows(real, key: oldKey) }
        #expect(try rows(link, key: newKey) == ["first"])
    }

    @Test func aFileWithAnotherHardLinkIsRefusedUnlessReplacingThisNameIsAsked() throws {
        let path = directory.path("app.db")
        let other = directory.path("other-name.db")
        try makeEncrypted(path).close()
        try FileManager.default.linkItem(atPath: path, toPath: other)

        #expect(throws: DatabaseFileError.sourceHasOtherNames(path: path, nameCount: 2, namesFound: [other])) {
            try DatabaseFile.changeKey(path: path, oldKey: oldKey, newKey: newKey, to: .inPlace())
        }
        #expect(try rows(path, key: oldKey) == ["first"])

        try DatabaseFile.changeKey(path: path, oldKey: oldKey, newKey: newKey,
                                          to: .inPlace(replacingOtherLinks: true))
        #expect(try rows(path, key: newKey) == ["first"])
        #expect(try rows(other, key: oldKey) == ["first"])
    }

    @Test(arguments: ["PERSIST", "TRUNCATE"])
    func noSiblingFileHoldsPlaintextAfterInPlaceEncryption(journalMode: String) throws {
        let path = directory.path("journal.db")
        let marker = "PLAINTEXT-MARKER-4f1c"
        let db = try Connection(path: path, key: nil)
        try db.execute(sql: "PRAGMA page_size = \(SQLCipherLibrary.defaultPageSize)")
        try db.execute(sql: "PRAGMA journal_mode = \(journalMode)")
        try db.execute(sql: "CREATE TABLE t(x TEXT)")
        try db.execute(sql: "INSERT INTO t SELECT ? || hex(randomblob(200))", arguments: [marker])
        try db.execute(sql: "UPDATE t SET x = 'changed'")
        try db.close()
        try #require(FileManager.default.fileExists(atPath: path + "-journal"))

        try DatabaseFile.encrypt(path: path, key: newKey, to: .inPlace())

        for name in try FileManager.default.contentsOfDirectory(atPath: directory.url.path) {
            let contents = try Data(contentsOf: URL(fileURLWithPath: directory.path(name)))
            #expect(contents.range(of: Data(marker.utf8)) == nil, "\(name) holds plaintext")
            #expect(contents.range(of: Data("changed".utf8)) == nil, "\(name) holds plaintext")
        }
        #expect(try rows(path, key: newKey) == ["changed"])
    }

    @Test func aSourceOnAReadOnlyFileSystemConvertsIntoANewFile() throws {
        let mountPoint = directory.path("ro")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let source = mountPoint + "/app.db"
        let writable: Bool
        if getuid() == 0 {
            // Root ignores file modes; a read-only mount stops it too.
            try #require(Shell.succeeds("mount -t tmpfs -o size=1m tmpfs '\(mountPoint)'"))
            writable = false
        } else {
            writable = true
        }
        defer { if !writable { _ = Shell.succeeds("umount '\(mountPoint)'") } }
        try makeEncrypted(source).close()
        if !writable {
            try #require(Shell.succeeds("mount -o remount,ro '\(mountPoint)'"))
        } else {
            try #require(chmod(source, 0o444) == 0 && chmod(mountPoint, 0o555) == 0)
        }
        defer { if writable { _ = chmod(mountPoint, 0o755) } }
        let before = try Data(contentsOf: URL(fileURLWithPath: source))

        let output = directory.path("copy.db")
        try DatabaseFile.changeKey(path: source, oldKey: oldKey, newKey: newKey, to: .file(output))
        #expect(try rows(output, key: newKey) == ["first"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: source)) == before)
    }

    @Test func bytesAppendedToAnEncryptedFileAreDamageForEveryOperation() throws {
        let path = directory.path("appended.db")
        try makeEncrypted(path).close()
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data(repeating: 0x41, count: 100))
        try handle.close()

        func isDamage(_ error: any Error) -> Bool {
            if case DatabaseFileError.damaged(_, let detail)? = error as? DatabaseFileError { return detail.contains("100 bytes") }
            return false
        }
        #expect { try DatabaseFile.verify(path: path, key: oldKey) } throws: { isDamage($0) }
        #expect {
            try DatabaseFile.changeKey(path: path, oldKey: oldKey, newKey: newKey, to: .file(directory.path("o1.db")))
        } throws: { isDamage($0) }
        #expect {
            try DatabaseFile.decrypt(path: path, key: oldKey, to: .file(directory.path("o2.db")))
        } throws: { isDamage($0) }
        // A wrong key is told apart first, the same way for every operation.
        #expect(throws: CipherStoreError.wrongKey(path: path)) { try DatabaseFile.verify(path: path, key: newKey) }
        #expect(throws: CipherStoreError.wrongKey(path: path)) {
            try DatabaseFile.decrypt(path: path, key: newKey, to: .file(directory.path("o3.db")))
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path("o1.db")))
    }

    @Test func verifyLeavesNoLogFilesBesideAWALDatabase() throws {
        let path = directory.path("wal.db")
        try makeEncrypted(path, journalMode: .wal).close()
        try #require(!FileManager.default.fileExists(atPath: path + "-wal"))
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        let report = try DatabaseFile.verify(path: path, key: oldKey)
        #expect(report.journalMode == "wal")
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func anOutputWithALongNameConverts() throws {
        let path = directory.path("app.db")
        try makeEncrypted(path).close()
        let longName = String(repeating: "n", count: 240) + ".db"
        let output = directory.path(longName)
        try DatabaseFile.changeKey(path: path, oldKey: oldKey, newKey: newKey, to: .file(output))
        #expect(try rows(output, key: newKey) == ["first"])
        try DatabaseFile.changeKey(path: output, oldKey: newKey, newKey: oldKey, to: .inPlace())
        #expect(try rows(output, key: oldKey) == ["first"])
    }
}
