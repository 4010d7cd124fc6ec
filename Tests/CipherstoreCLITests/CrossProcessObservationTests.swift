import CipherStore
import Foundation
import Synchronization
import TestSupport
import Testing

/// A commit made by another process — `cipherstore query --write`, as an ops person would run
/// it — reaches the observations of a queue or pool open in this process, in rollback-journal
/// and in WAL mode; and an observation that waits for one costs no CPU.
@Suite struct CrossProcessObservationTests {
    enum Mode: String, CaseIterable, Sendable { case queueWithRollbackJournal, queueInWAL, pool }

    let workspace: TemporaryDirectory
    let database: String
    let keyFile: String

    init() throws {
        workspace = try TemporaryDirectory()
        database = workspace.path("app.db")
        keyFile = try workspace.keyFile("app.key", "cross process\n")
    }

    func open(_ mode: Mode) throws -> any DatabaseWriter {
        let key = try DatabaseKey.passphrase("cross process")
        let writer: any DatabaseWriter
        switch mode {
        case .queueWithRollbackJournal: writer = try DatabaseQueue(path: database, key: key)
        case .queueInWAL: writer = try DatabaseQueue(path: database, key: key, configuration: Configuration(journalMode: .wal))
        case .pool: writer = try DatabasePool(path: database, key: key)
        }
        return writer
    }

    /// The values an observation produced, each with when it arrived.
    final class Values: Sendable {
        let seen = Mutex<[(value: Int, at: Date)]>([])

        /// When the first value passing `isWanted` arrived, waiting up to `timeout` seconds for it.
        func arrival(timeout: Double, of isWanted: (Int) -> Bool) async -> Date? {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if let found = seen.withLock({ $0.first { isWanted($0.value) } }) { return found.at }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return nil
        }
    }

    func insertWithTheCLI(_ body: String) throws -> Date {
        let result = try CLI.run(["query", database, "INSERT INTO note(body) VALUES ('\(body)')", "--key-file", keyFile, "--write"])
        #expect(result.status == 0, "\(result.errorOutput)")
        return Date()
    }

    @Test(arguments: Mode.allCases)
    func aCommitOfTheCLIReachesAnObservation(_ mode: Mode) async throws {
        let writer = try open(mode)
        try await writer.write { db in
            try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT)")
            try db.execute(sql: "INSERT INTO note(body) VALUES ('first')")
        }
        let journalMode = try await writer.read { try $0.fetchScalar(String.self, sql: "PRAGMA journal_mode") }
        #expect(journalMode == (mode == .queueWithRollbackJournal ? "delete" : "wal"))

        let values = Values()
        let observing = Task {
            for try await count in writer.observe({ try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM note") ?? 0 }) {
                values.seen.withLock { $0.append((count, Date())) }
            }
        }
        defer { observing.cancel() }
        // Waits are long and bounds loose: values reach this loop on Swift's shared task threads,
        // which the whole suite's blocking runs of the tool can hold for seconds (all three
        // modes once waited 14 s together); alone, a value arrives within milliseconds. The
        // `onChange` test below, called off those threads, keeps a tighter bound.
        try #require(await values.arrival(timeout: 60) { $0 == 1 } != nil)

        let exited = try insertWithTheCLI("from the shell")
        let seen = try #require(await values.arrival(timeout: 60) { $0 == 2 }, "no value after the other process's commit")
        #expect(seen.timeIntervalSince(exited) < 30)
        // This process's locks on the file held: the other process could not checkpoint and
        // delete the WAL this process still reads (after which no later commit is seen).
        if mode != .queueWithRollbackJournal {
            #expect(FileManager.default.fileExists(atPath: database + "-wal"), "the other process deleted the WAL")
        }

        // And again: the watch goes on after the first change.
        let again = try insertWithTheCLI("once more")
        let seenAgain = try #require(await values.arrival(timeout: 60) { $0 == 3 }, "no value after the second commit")
        #expect(seenAgain.timeIntervalSince(again) < 30)
        try writer.close()
    }

    @Test(arguments: [Mode.queueWithRollbackJournal, .pool])
    func aCommitOfTheCLIReachesARegionObservation(_ mode: Mode) async throws {
        let writer = try open(mode)
        try await writer.write { db in try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT)") }
        let values = Values()
        let cancellable = DatabaseRegionObservation(tracking: DatabaseRegion(table: "note")).start(in: writer) { error in
            Issue.record("unexpected error \(error)")
        } onChange: { db in
            let count = (try? db.fetchScalar(Int.self, sql: "SELECT count(*) FROM note")) ?? -1
            values.seen.withLock { $0.append((count, Date())) }
        }
        let exited = try insertWithTheCLI("from the shell")
        let seen = try #require(await values.arrival(timeout: 30) { $0 == 1 }, "onChange not called after the other process's commit")
        #expect(seen.timeIntervalSince(exited) < 10)
        cancellable.cancel()
        try writer.close()
    }

    static let idleObserver = CLI.executable.deletingLastPathComponent().appendingPathComponent("idle-observer")

    /// Measured in a child process (`idle-observer`), so that no other test's work is counted:
    /// a pool's observation waiting for other processes' commits takes under 20 ms of CPU in
    /// 2 s; its inotify descriptor is closed once the observation ends (and no descriptor is
    /// left behind), and a queue's as `close()` returns.
    @Test func anIdleObservationCostsNoCPUAndLeavesNoDescriptorOrThread() throws {
        let directory = try TemporaryDirectory()
        let process = Process()
        process.executableURL = Self.idleObserver
        process.arguments = [directory.url.path]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let result = ProcessResult.collect(process, output: output, errors: errors)
        try #require(result.status == 0, "idle-observer: \(result.errorOutput)")
        var measured: [String: Int] = [:]
        for line in result.output.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Int(parts[1]) { measured[String(parts[0])] = value }
        }
        #expect(measured["pool_inotify_during"] == 1, "\(result.output)")
        #expect(measured["pool_inotify_after"] == 0, "\(result.output)")
        #expect(measured["fds_before"] != nil && measured["fds_before"] == measured["fds_after"], "\(result.output)")
        let cpu = try #require(measured["idle_cpu_us"], "\(result.output)")
        #expect(cpu < 20_000, "an idle observation used \(cpu) µs of CPU in 2 s")
        #expect(measured["queue_inotify_during"] == 1, "\(result.output)")
        #expect(measured["queue_inotify_after_close"] == 0, "\(result.output)")
        // Twenty observations started and ended leave no thread behind (a few pool threads may
        // come and go; one per watch would be twenty).
        let threadsBefore = try #require(measured["threads_before"], "\(result.output)")
        let threadsAfter = try #require(measured["threads_after"], "\(result.output)")
        #expect(threadsAfter - threadsBefore <= 4, "threads: \(threadsBefore) before, \(threadsAfter) after 20 observations")
    }
}
