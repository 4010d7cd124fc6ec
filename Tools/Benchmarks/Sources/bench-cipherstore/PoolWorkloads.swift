import BenchSupport
import CipherStore
import Foundation
import Synchronization

/// Workloads 14 to 17: the pool against the queue (parallel reads, the writer while long reads
/// run), the pool's open in key derivations, and how long an observed value takes to arrive.
func poolWorkloads(directory: String, key: DatabaseKey, operations: Int) async throws -> [String] {
    let path = directory + "/pool.db"
    let setup = try DatabaseQueue(path: path, key: key)
    try await setup.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA journal_mode = WAL")
    }
    try await setup.write { db in
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT)")
        for id in 1...20_000 { try db.execute(sql: "INSERT INTO t(id, body) VALUES (?, ?)", arguments: [id, String(repeating: "x", count: 100)]) }
    }
    try setup.close()
    var lines: [String] = []

    // 14. Reads of 1,000 rows each, from 1, 2 and 4 tasks, on a queue and on a pool.
    @Sendable func read(_ db: Connection, _ n: Int) throws {
        let start = (n * 997) % 19_000 + 1
        _ = try db.fetchScalar(Int.self, sql: "SELECT sum(length(body)) FROM t WHERE id BETWEEN ? AND ?", arguments: [start, start + 999])
    }
    for tasks in [1, 2, 4] {
        let queue = try DatabaseQueue(path: path, key: key)
        let pool = try DatabasePool(path: path, key: key)
        var throughputs: [String: Double] = [:]
        // Alternating, best of three, so that drift touches both alike.
        for _ in 0..<3 {
            for (name, reader) in [("queue", queue as any DatabaseReader), ("pool", pool as any DatabaseReader)] {
                let seconds = try await timed(tasks: tasks, operations: operations) { n in try await reader.read { try read($0, n) } }
                throughputs[name] = max(throughputs[name] ?? 0, Double(operations) / seconds)
            }
        }
        try queue.close()
        try pool.close()
        let ratio = throughputs["pool"]! / throughputs["queue"]!
        log("pool vs queue reads, \(tasks) task(s)", String(format: "%.0f vs %.0f reads/s", throughputs["pool"]!, throughputs["queue"]!))
        lines.append(String(format: "| 14. reads of 1,000 rows, %d task(s): queue vs pool | %.0f reads/s | %.0f reads/s | **%.2f× the queue** | %@ |",
                            tasks, throughputs["queue"]!, throughputs["pool"]!, ratio, Benchmark.target(tasks == 2 ? "≥ 1.7× (2 cores)" : "—", for: ratio)))
    }

    // 15. The writer's latency while 4 tasks run long reads (whole-table scans) on the pool.
    let pool = try DatabasePool(path: path, key: key)
    let writes = operations / 4
    let quiet = try writerLatencies(pool, count: writes, phase: "quiet")
    let stop = StopFlag()
    let readers = (0..<4).map { _ in
        Task.detached {
            while !stop.isSet {
                _ = try await pool.read { try $0.fetchScalar(Int.self, sql: "SELECT sum(length(body)) FROM t") }
            }
        }
    }
    try await Task.sleep(for: .milliseconds(100))
    let busy = try writerLatencies(pool, count: writes, phase: "busy")
    stop.set()
    for reader in readers { _ = try await reader.value }
    let (quietP99, busyP99) = (percentile(quiet, 0.99), percentile(busy, 0.99))
    log("pool writer p99, quiet vs 4 long readers", String(format: "%.3f vs %.3f ms", quietP99, busyP99))
    lines.append(String(format: "| 15. pool writer, p99 latency without vs with 4 long readers | %.3f ms (p50 %.3f) | %.3f ms (p50 %.3f) | **%.2f×** | %@ |",
                        quietP99, percentile(quiet, 0.5), busyP99, percentile(busy, 0.5), busyP99 / quietP99,
                        Benchmark.target("≤ 1.2×", for: busyP99 / quietP99)))

    // 17. Observation: from the end of a commit to the value it calls for.
    for (name, writer) in [("queue", try DatabaseQueue(path: path, key: key) as any DatabaseWriter), ("pool", pool as any DatabaseWriter)] {
        let arrivals = AsyncStream<Int>.makeStream()
        let observer = Task {
            for try await count in writer.observe({ try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") ?? 0 }) {
                arrivals.continuation.yield(count)
            }
        }
        var values = arrivals.stream.makeAsyncIterator()
        _ = await values.next()
        var latencies: [Double] = []
        var fetches: [Double] = []
        for n in 0..<(operations / 10) {
            try await writer.write { try $0.execute(sql: "INSERT INTO t(body) VALUES (?)", arguments: ["observed \(n)"]) }
            let committed = DispatchTime.now().uptimeNanoseconds
            _ = await values.next()
            latencies.append(Double(DispatchTime.now().uptimeNanoseconds - committed) / 1e6)
            // The same fetch asked for directly, right after a commit: what the value costs anyway.
            try await writer.write { try $0.execute(sql: "DELETE FROM t WHERE body = ?", arguments: ["observed \(n)"]) }
            _ = await values.next()
            let asked = DispatchTime.now().uptimeNanoseconds
            _ = try await writer.read { try $0.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") }
            fetches.append(Double(DispatchTime.now().uptimeNanoseconds - asked) / 1e6)
        }
        observer.cancel()
        log("observation latency, \(name)", String(format: "p50 %.3f ms, p99 %.3f ms", percentile(latencies, 0.5), percentile(latencies, 0.99)))
        lines.append(String(format: "| 17. observation on a %@: the fetch asked for directly vs commit → observed value (`SELECT count(*)`, 20,000 rows) | p50 %.3f ms | p50 %.3f ms, p99 %.3f ms | **%d commits** | report p50/p99 |",
                            name, percentile(fetches, 0.5), percentile(latencies, 0.5), percentile(latencies, 0.99), latencies.count))
        if name == "queue" { try writer.close() }
    }
    try pool.close()
    return lines
}

/// Workload 16: opening a pool with a passphrase (writer + 5 readers, each read once) in
/// units of one key derivation (one connection opened with the passphrase).
func poolOpenWorkload(_ bench: Benchmark, directory: String) throws -> String {
    let path = directory + "/pool-open.db"
    let passphrase = try DatabaseKey.passphrase(throwawayPassphrase())
    let setup = try DatabaseQueue(path: path, key: passphrase)
    try setup.write { try $0.execute(sql: "CREATE TABLE t(x)") }
    try setup.close()
    let (single, pooled) = try bench.compare("open + first query, one connection, passphrase", "open a pool + 5 readers, passphrase", baseline: {
        let db = try Connection(path: path, key: passphrase)
        _ = try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM t")
        try db.close()
    }) {
        let pool = try DatabasePool(path: path, key: passphrase)
        let rendezvous = DispatchGroup()
        let gate = DispatchSemaphore(value: 0)
        // Five reads held open together, so the pool opens five readers.
        for _ in 0..<5 {
            rendezvous.enter()
            DispatchQueue.global().async {
                _ = try? pool.read { db -> Int? in
                    rendezvous.leave()
                    gate.wait()
                    return try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM t")
                }
            }
        }
        rendezvous.wait()
        for _ in 0..<5 { gate.signal() }
        try pool.close()
    }
    return String(format: "| 16. open a pool with a passphrase: 1 writer + 5 readers | %.1f ms (one KDF) | %.1f ms | **%.2f KDF runs** | ≤ 1.1 KDF |",
                  single.median * 1000, pooled.median * 1000, pooled.median / single.median)
}

/// Runs `operations` calls of `body` spread over `tasks` tasks; returns the seconds taken.
private func timed(tasks: Int, operations: Int, _ body: @escaping @Sendable (Int) async throws -> Void) async throws -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try await withThrowingTaskGroup(of: Void.self) { group in
        for task in 0..<tasks {
            group.addTask {
                for n in stride(from: task, to: operations, by: tasks) { try await body(n) }
            }
        }
        try await group.waitForAll()
    }
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// The latency in milliseconds of `count` one-row updates of table `t` (ids 1 to 20,000) on
/// the pool's writer. Each phase writes values of its own: SQLite 3.46 skips a write that
/// changes nothing.
func writerLatencies(_ pool: DatabasePool, count: Int, phase: String) throws -> [Double] {
    try (0..<count).map { n in
        let start = DispatchTime.now().uptimeNanoseconds
        try pool.write { try $0.execute(sql: "UPDATE t SET body = ? WHERE id = ?", arguments: ["\(phase) \(n)", n % 20_000 + 1]) }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    }
}

func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
}

func log(_ name: String, _ text: String) {
    FileHandle.standardError.write(Data(String(format: "  %-58@ %@\n", name as NSString, text).utf8))
}

/// Tells the reading tasks of workload 15 to stop.
final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .relaxed) }
    func set() { flag.store(true, ordering: .relaxed) }
}
