import BenchSupport
import CipherStore
import Foundation

/// Workload 10: 1, 4 and 16 tasks doing single-row reads and inserts through one queue.
func contentionWorkloads(directory: String, operations: Int, key: DatabaseKey) async throws -> [String] {
    let path = directory + "/contention.db"
    let queue = try DatabaseQueue(path: path, key: key)
    try await queue.inDatabase { db in
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, value TEXT)")
        try db.inTransaction {
            for id in 1...1000 { try db.execute(sql: "INSERT INTO t(id, value) VALUES (?, ?)", arguments: [id, "value \(id)"]) }
            return .commit
        }
    }
    var lines: [String] = []
    for kind in ["read", "insert"] {
        var single = 0.0
        for tasks in [1, 4, 16] {
            let perTask = operations / tasks
            let start = DispatchTime.now().uptimeNanoseconds
            let latencies = try await withThrowingTaskGroup(of: [UInt64].self) { group in
                for task in 0..<tasks {
                    group.addTask {
                        var latencies: [UInt64] = []
                        latencies.reserveCapacity(perTask)
                        for n in 0..<perTask {
                            let begin = DispatchTime.now().uptimeNanoseconds
                            if kind == "read" {
                                _ = try await queue.read { try $0.fetchOne(sql: "SELECT value FROM t WHERE id = ?", arguments: [(n * 7 + task) % 1000 + 1]) }
                            } else {
                                try await queue.write { try $0.execute(sql: "INSERT INTO t(value) VALUES (?)", arguments: ["task \(task)"]) }
                            }
                            latencies.append(DispatchTime.now().uptimeNanoseconds - begin)
                        }
                        return latencies
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let throughput = Double(latencies.count) / seconds
            if tasks == 1 { single = throughput }
            let p99 = Double(latencies.sorted()[latencies.count * 99 / 100]) / 1e6
            FileHandle.standardError.write(Data(String(format: "  %-58@ %9.0f ops/s  p99 %7.3f ms\n", "queue \(kind)s, \(tasks) task(s)" as NSString, throughput, p99).utf8))
            lines.append(String(format: "| 10. single-row %@s, %d task(s) | %.0f ops/s | p99 %.3f ms | **%.2f× one task's throughput** | %@ |",
                                kind, tasks, throughput, p99, throughput / single, Benchmark.target("≥ 0.9×", for: throughput / single)))
        }
    }
    return lines
}
