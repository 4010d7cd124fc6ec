import CipherStore
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

/// Stopping a running statement: `interrupt()` from another thread, and the cancellation of
/// the task of an `async` read or write. Each stops a query that would run for many seconds
/// well before its end, and leaves the connection usable.
///
/// Cancellations and interrupts are made on threads of their own: the cooperative threads that
/// run the test's tasks, and dispatch's, may be held by other suites' blocking tests.
@Suite(.serialized, .timeLimit(.minutes(5))) struct InterruptTests {
    let directory: TemporaryDirectory
    let path: String
    let key: DatabaseKey

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.path("interrupt.db")
        key = try DatabaseKey.rawKey(hex: String(repeating: "71", count: 32))
    }

    /// A query that counts to `n`: CPU only, no I/O, no result until the end.
    static func counting(to n: Int) -> String {
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(n)) SELECT count(*) FROM c"
    }

    /// A query that runs about `seconds` uninterrupted on this machine, measured on `db`.
    static func longQuery(seconds: Double, on db: Connection) throws -> String {
        let sample = 400_000
        let start = ContinuousClock.now
        #expect(try db.fetchScalar(Int.self, sql: counting(to: sample)) == sample)
        let elapsed = max((ContinuousClock.now - start) / .seconds(1), 0.001)
        return counting(to: Int(Double(sample) * seconds / elapsed))
    }

    /// Seconds the long queries would take uninterrupted; an interrupted one must end within
    /// a third of it (the machine may be busy with other suites; uninterrupted, it runs to the end).
    static let uninterrupted = 20.0

    func makeWriter(_ kind: String) throws -> any DatabaseWriter {
        kind == "pool" ? try DatabasePool(path: path, key: key) : try DatabaseQueue(path: path, key: key)
    }

    /// Calls `interrupt` every 20 ms on another thread until the returned stop is called: a
    /// call made before the statement starts does nothing, so the test keeps calling.
    func interruptRepeatedly(_ interrupt: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        let done = Signal()
        // A thread of its own: dispatch's threads may all be taken by other suites' blocking work.
        Thread.detachNewThread {
            while !done.isSet {
                usleep(20_000)
                interrupt()
            }
        }
        return done.set
    }

    @Test(arguments: ["queue", "pool"])
    func interruptFromAnotherThreadStopsALongQuery(_ kind: String) throws {
        let writer = try makeWriter(kind)
        defer { try? writer.close() }
        let long = try writer.write { try Self.longQuery(seconds: Self.uninterrupted, on: $0) }
        let stop = interruptRepeatedly { writer.interrupt() }
        let start = ContinuousClock.now
        let error = try #require(throws: DatabaseError.self) {
            try writer.read { db in try db.fetchScalar(Int.self, sql: long) }
        }
        stop()
        #expect(error.resultCode == .SQLITE_INTERRUPT)
        #expect(error.isInterruptionError)
        #expect(ContinuousClock.now - start < .seconds(Self.uninterrupted / 3))
        // The connection goes on: reads, and writes (it is not left read-only or in a transaction).
        usleep(50_000)
        #expect(try writer.read { try $0.fetchScalar(Int.self, sql: "SELECT 1") } == 1)
        try writer.write { try $0.execute(sql: "CREATE TABLE afterwards(x)") }
    }

    @Test func aConnectionIsInterruptedFromAnotherThread() throws {
        struct Shared: @unchecked Sendable { let db: Connection }
        let db = try Connection(path: path, key: key)
        defer { try? db.close() }
        let long = try Self.longQuery(seconds: Self.uninterrupted, on: db)
        let shared = Shared(db: db)
        let stop = interruptRepeatedly { shared.db.interrupt() }
        let start = ContinuousClock.now
        let error = try #require(throws: DatabaseError.self) { try db.fetchScalar(Int.self, sql: long) }
        #expect(error.resultCode == .SQLITE_INTERRUPT)
        stop()
        #expect(ContinuousClock.now - start < .seconds(Self.uninterrupted / 3))
        usleep(50_000)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT 2") == 2)
    }

    @Test(arguments: ["queue", "pool"])
    func cancellingTheTaskOfAnAsyncReadStopsItsStatement(_ kind: String) async throws {
        let writer = try makeWriter(kind)
        defer { try? writer.close() }
        let long = try await writer.write { try Self.longQuery(seconds: Self.uninterrupted, on: $0) }
        let canceller = Canceller()
        let durations = Durations()
        let task = Task {
            try await writer.read { db in
                canceller.cancel(after: .milliseconds(100))
                return try durations.timing { try db.fetchScalar(Int.self, sql: long) }
            }
        }
        canceller.set(task.cancel)
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(durations.all.count == 1 && durations.all.allSatisfy { $0 < .seconds(Self.uninterrupted / 3) }, "\(durations.all)")
        // The connection (the pool's reader, the queue's one) is usable at once, and not
        // interrupted by anything left over.
        #expect(try await writer.read { try $0.fetchScalar(Int.self, sql: Self.counting(to: 50_000)) } == 50_000)
        try await writer.write { try $0.execute(sql: "CREATE TABLE afterwards(x)") }
    }

    @Test(arguments: ["queue", "pool"])
    func cancellingTheTaskOfAnAsyncWriteStopsItAndRollsItBack(_ kind: String) async throws {
        let writer = try makeWriter(kind)
        defer { try? writer.close() }
        let long = try await writer.write { db in
            try db.execute(sql: "CREATE TABLE t(x)")
            return try Self.longQuery(seconds: Self.uninterrupted, on: db)
        }
        let canceller = Canceller()
        let durations = Durations()
        let task = Task {
            try await writer.write { db in
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                canceller.cancel(after: .milliseconds(100))
                _ = try durations.timing { try db.fetchScalar(Int.self, sql: long) }
                try db.execute(sql: "INSERT INTO t VALUES (2)")
            }
        }
        canceller.set(task.cancel)
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(durations.all.count == 1 && durations.all.allSatisfy { $0 < .seconds(Self.uninterrupted / 3) }, "\(durations.all)")
        #expect(try await writer.read { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") } == 0)
        try await writer.write { try $0.execute(sql: "INSERT INTO t VALUES (3)") }
        #expect(try await writer.read { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") } == 1)
    }

    @Test func aCancelledBlockBetweenStatementsStopsAtItsNextOne() async throws {
        let queue = try DatabaseQueue(path: path, key: key)
        defer { try? queue.close() }
        let canceller = Canceller()
        let statements = Counter()
        let ranAfterCancel = Counter()
        let task = Task {
            try await queue.inDatabase { db in
                canceller.cancel(after: .milliseconds(100))
                // Short statements with pauses between them: the cancellation lands between two.
                for n in 0..<100_000 {
                    let cancelled = canceller.hasCancelled
                    _ = try db.fetchScalar(Int.self, sql: "SELECT ?", arguments: [n])
                    statements.value.add(1, ordering: .relaxed)
                    if cancelled { ranAfterCancel.value.add(1, ordering: .relaxed) }
                    usleep(500)
                }
            }
        }
        canceller.set(task.cancel)
        await #expect(throws: CancellationError.self) { try await task.value }
        // No statement that started after the cancellation ran.
        #expect(ranAfterCancel.value.load(ordering: .relaxed) == 0)
        #expect(statements.value.load(ordering: .relaxed) < 100_000)
        #expect(try await queue.read { try $0.fetchScalar(Int.self, sql: "SELECT 3") } == 3)
    }

    @Test func aCancellationAfterItsBlockNeverReachesTheNextBlock() async throws {
        let queue = try DatabaseQueue(path: path, key: key)
        defer { try? queue.close() }
        let counting = Self.counting(to: 20_000)
        for round in 0..<200 {
            let first = Task { try await queue.read { db in try db.fetchScalar(Int.self, sql: "SELECT ?", arguments: [round]) } }
            let second = Task { try await queue.read { db in try db.fetchScalar(Int.self, sql: counting) } }
            if round % 3 == 1 { await Task.yield() }
            if round % 3 == 2 { try await Task.sleep(for: .microseconds(200)) }
            first.cancel()
            do {
                #expect(try await first.value == round)
            } catch is CancellationError {}
            // Never cancelled: it runs to its end whenever the first one's cancellation came.
            #expect(try await second.value == 20_000)
        }
    }

    @Test func aPoolInterruptStopsEveryReaderAndTheWriter() async throws {
        let pool = try DatabasePool(path: path, key: key)
        defer { try? pool.close() }
        let long = try await pool.write { try Self.longQuery(seconds: Self.uninterrupted, on: $0) }
        let durations = Durations()
        // Interrupts made before a statement starts do nothing: they go on until all three ran.
        let stop = interruptRepeatedly { pool.interrupt() }
        let reads = (0..<2).map { _ in
            Task { try await pool.read { db in try durations.timing { try db.fetchScalar(Int.self, sql: long) } } }
        }
        let write = Task { try await pool.writeWithoutTransaction { db in try durations.timing { try db.fetchScalar(Int.self, sql: long) } } }
        for task in reads + [write] {
            let error = await #expect(throws: DatabaseError.self) { try await task.value }
            #expect(error?.isInterruptionError == true)
        }
        stop()
        #expect(durations.all.count == 3 && durations.all.allSatisfy { $0 < .seconds(Self.uninterrupted / 3) }, "\(durations.all)")
        try await Task.sleep(for: .milliseconds(50))
        #expect(try await pool.read { try $0.fetchScalar(Int.self, sql: "SELECT 4") } == 4)
    }

    @Test func interruptingWhileTheQueueClosesOrOnceClosedIsHarmless() throws {
        for _ in 0..<30 {
            let queue = try DatabaseQueue(path: path, key: key)
            let stop = Signal()
            let interrupting = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                while !stop.isSet { queue.interrupt() }
                interrupting.signal()
            }
            _ = try? queue.read { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM sqlite_master") }
            try queue.close()
            stop.set()
            interrupting.wait()
            queue.interrupt()
        }
        let queue = try DatabaseQueue(path: path, key: key)
        defer { try? queue.close() }
        // An interrupt while nothing runs does not reach the next statement.
        queue.interrupt()
        #expect(try queue.read { try $0.fetchScalar(Int.self, sql: "SELECT 5") } == 5)
    }
}


/// Cancels a task from a thread of its own, a while after its block asked for it.
final class Canceller: Sendable {
    private let cancel = Mutex<(@Sendable () -> Void)?>(nil)
    private let cancelled = Atomic<Bool>(false)

    /// Gives the task's `cancel`.
    func set(_ cancel: @escaping @Sendable () -> Void) { self.cancel.withLock { $0 = cancel } }

    /// Whether the task was cancelled (its cancellation handlers have run).
    var hasCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Cancels the task after `delay`, once it was given.
    func cancel(after delay: Duration) {
        // A thread of its own: dispatch's threads may all be taken by other suites' blocking work.
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: delay / .seconds(1))
            while true {
                if let cancel = self.cancel.withLock({ $0 }) {
                    // The task's cancellation handlers have run when `cancel()` returns.
                    cancel()
                    self.cancelled.store(true, ordering: .releasing)
                    return
                }
                usleep(1000)
            }
        }
    }
}

/// How long blocks took, measured on the threads that ran them.
final class Durations: Sendable {
    private let values = Mutex<[Duration]>([])

    var all: [Duration] { values.withLock { $0 } }

    /// Runs `body` and notes how long it took, whether it throws or not.
    func timing<T>(_ body: () throws -> T) rethrows -> T {
        let start = ContinuousClock.now
        defer { values.withLock { [elapsed = ContinuousClock.now - start] in $0.append(elapsed) } }
        return try body()
    }
}
