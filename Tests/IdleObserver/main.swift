import CipherStore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// A child process for the cross-process observation tests: what an observation that waits for
// other processes' commits costs while nothing happens, measured alone, so that no other
// test's work is counted. Prints "name value" pairs, one per line:
// - idle_cpu_us: CPU time (user + system) of the whole process over 2 s while a pool's
//   observation waits, in microseconds;
// - pool_inotify_during / pool_inotify_after: inotify descriptors while the observation runs,
//   and once it ended; fds_before / fds_after: every open descriptor after that first
//   observation, and after a second one started and ended;
// - queue_inotify_during / queue_inotify_after_close: the same for a queue closed while observed.
// - threads_before / threads_after: this process's threads after the first observation, and
//   after twenty more were started and ended (given up to 10 s to go idle): a watch that
//   left a thread behind would show twenty more.
// Usage: idle-observer DIRECTORY

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: idle-observer DIRECTORY\n".utf8))
    exit(64)
}

/// The descriptors open in this process, and how many of them are inotify instances.
func openDescriptors() -> (all: Int, inotify: Int) {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    let inotify = names.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == "anon_inode:inotify" }
    return (names.count, inotify.count)
}

/// The threads of this process now.
func threadCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
}

/// User plus system CPU time of the process, in microseconds.
func cpuMicroseconds() -> Int {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000 + Int(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
}

/// Waits up to `seconds` for `condition`.
func wait(seconds: Double, until condition: () -> Bool) {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition(), Date() < deadline { usleep(10_000) }
}

func measure(directory: URL) async throws -> [(String, Int)] {
    let key = try DatabaseKey.rawKey(hex: String(repeating: "5c", count: 32))
    var results: [(String, Int)] = []

    let pool = try DatabasePool(path: directory.appendingPathComponent("idle-pool.db").path, key: key)
    try await pool.write { try $0.executeScript("CREATE TABLE t(n); INSERT INTO t VALUES (1);") }

    /// Observes the pool until the first value, runs `whileObserving`, ends the observation and
    /// waits (up to 5 s) for its inotify descriptor to close.
    func observeOnce(_ whileObserving: () async throws -> Void) async throws {
        let (values, valueSeen) = AsyncStream.makeStream(of: Void.self)
        let observing = Task {
            for try await _ in pool.observe({ try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") }) {
                valueSeen.yield()
            }
        }
        var seen = values.makeAsyncIterator()
        _ = await seen.next()
        try await whileObserving()
        observing.cancel()
        wait(seconds: 5) { openDescriptors().inotify == 0 }
    }

    // The first observation also opens what the process keeps for good (a reader, the
    // dispatch event loop's descriptors); a second one must leave nothing more behind.
    try await observeOnce {
        results.append(("pool_inotify_during", openDescriptors().inotify))
        // What the start did settles first (the follow-up checks, if a file event came).
        try await Task.sleep(for: .seconds(5))
        let cpuBefore = cpuMicroseconds()
        try await Task.sleep(for: .seconds(2))
        results.append(("idle_cpu_us", cpuMicroseconds() - cpuBefore))
    }
    let before = openDescriptors()
    results.append(("pool_inotify_after", before.inotify))
    try await observeOnce {}
    let after = openDescriptors()
    results += [("fds_before", before.all), ("fds_after", after.all)]
    let threadsBefore = threadCount()
    for _ in 0..<20 { try await observeOnce {} }
    // Worker threads of the dispatch and task pools go after some idle time of their own.
    wait(seconds: 10) { threadCount() <= threadsBefore }
    results += [("threads_before", threadsBefore), ("threads_after", threadCount())]
    try pool.close()

    let queue = try DatabaseQueue(path: directory.appendingPathComponent("idle-queue.db").path, key: key)
    try await queue.write { try $0.executeScript("CREATE TABLE t(n); INSERT INTO t VALUES (1);") }
    let (queueValues, queueValueSeen) = AsyncStream.makeStream(of: Void.self)
    let queueObserving = Task {
        for try await _ in queue.observe({ try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") }) {
            queueValueSeen.yield()
        }
    }
    var queueSeen = queueValues.makeAsyncIterator()
    _ = await queueSeen.next()
    results.append(("queue_inotify_during", openDescriptors().inotify))
    try queue.close()
    // Counted as close returns: closing stops the watch before it returns.
    results.append(("queue_inotify_after_close", openDescriptors().inotify))
    _ = try? await queueObserving.value
    return results
}

for (name, value) in try await measure(directory: URL(fileURLWithPath: CommandLine.arguments[1])) {
    print(name, value)
}
