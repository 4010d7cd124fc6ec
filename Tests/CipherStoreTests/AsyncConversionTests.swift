import CipherStore
import Dispatch
import Foundation
import TestSupport
import Synchronization
import Testing

/// The `async` conversions and key-slot operations run on a thread of their own, and the
/// calling task's cancellation cancels them.
@Suite struct AsyncConversionTests {
    let directory: TemporaryDirectory
    let key: DatabaseKey

    init() throws {
        directory = try TemporaryDirectory()
        key = try DatabaseKey.rawKey(hex: String(repeating: "3c", count: 32))
    }

    @Test func aConversionRunsOnItsOwnThreadNotTheCooperativePool() async throws {
        let source = directory.path("plain.db")
        try SampleDatabases.makeLarge(at: source, rows: 2_000)
        // Whether each progress call ran inside a task (on the cooperative pool) or not.
        let inTask = Mutex<Set<Bool>>([])
        let options = DatabaseFileOptions(progress: { _ in
            _ = inTask.withLock { $0.insert(withUnsafeCurrentTask { $0 != nil }) }
        })
        let report = try await DatabaseFile.encrypt(path: source, key: key, to: .file(directory.path("encrypted.db")), options: options)
        #expect(report.verification.isEncrypted)
        #expect(inTask.withLock { $0 } == [false], "the conversion ran on a thread of the cooperative pool")
        let verified = try await DatabaseFile.verify(path: directory.path("encrypted.db"), key: key)
        #expect(verified.tables.first?.rowCount == 2_000)
    }

    @Test func cancellingTheTaskCancelsTheConversionAndChangesNothing() async throws {
        let source = directory.path("plain.db")
        try SampleDatabases.makeLarge(at: source, rows: 20_000)
        let before = try Data(contentsOf: URL(fileURLWithPath: source))
        // The conversion waits, mid-copy, until the task has been cancelled.
        let started = AsyncStream<Void>.makeStream()
        let cancelled = DispatchSemaphore(value: 0)
        let waited = Atomic<Bool>(false)
        let options = DatabaseFileOptions(progress: { progress in
            guard progress.phase == .copying, progress.fractionCompleted > 0.1,
                  !waited.exchange(true, ordering: .relaxed) else { return }
            started.continuation.yield()
            started.continuation.finish()
            // Long enough for a starved cooperative pool to run the test's cancel.
            _ = cancelled.wait(timeout: .now() + 300)
        })
        let key = self.key
        let task = Task {
            try await DatabaseFile.encrypt(path: source, key: key, to: .inPlace(), options: options)
        }
        var iterator = started.stream.makeAsyncIterator()
        _ = await iterator.next()
        task.cancel()
        cancelled.signal()
        await #expect(throws: DatabaseFileError.cancelled) { try await task.value }
        #expect(try Data(contentsOf: URL(fileURLWithPath: source)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["plain.db"])
    }

    @Test func aTaskCancelledBeforeTheCallRunsNothing() async throws {
        let source = directory.path("plain.db")
        try SampleDatabases.makeLarge(at: source, rows: 100)
        let key = self.key
        let output = directory.path("never.db")
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await DatabaseFile.encrypt(path: source, key: key, to: .file(output))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(!FileManager.default.fileExists(atPath: directory.path("never.db")))
    }

    @Test func keySlotOperationsHaveAsyncFormsToo() async throws {
        let path = directory.path("slots.db")
        try SampleDatabases.makeLarge(at: path, rows: 100)
        let first = try Passphrase(bytes: Array("first async passphrase".utf8))
        let second = try Passphrase(bytes: Array("second async passphrase".utf8))
        let kdf = KeySlotKDF.scrypt(log2N: 14, blockSize: 1, parallelism: 1)
        try await KeySlots.encrypt(path: path, passphrase: first, kdf: kdf)
        try await KeySlots.addPassphrase(path: path, existing: first, new: second, kdf: kdf)
        let rotated = try await KeySlots.rotateDataKey(path: path, keeping: [second])
        #expect(rotated.count == 1)
        let dataKey = try await KeySlots.unlock(path: path, passphrase: second)
        let db = try Connection(path: path, key: dataKey)
        #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0 > 0)
        try db.close()
        await #expect(throws: CipherStoreError.self) { try await KeySlots.unlock(path: path, passphrase: first) }
    }
}
