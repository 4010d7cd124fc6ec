import BenchSupport
import CipherStore
import CSQLCipher
import Foundation
import StatusFeed

/// Workload 11: load a 10,000-status timeline with its users.
func feedWorkload(_ bench: Benchmark, directory: String, statuses count: Int, key: DatabaseKey, rawKey: [UInt8]) throws -> [String] {
    let path = directory + "/feed.db"
    let queue = try DatabaseQueue(path: path, key: key)
    try FeedSchema.migrate(queue)
    let users = UserService(queue: queue)
    for index in 0..<100 {
        try users.add(User(name: "user\(index)", screenName: "用户\(index)", profileImageUrl: "\(index).jpg", mbtype: "mbtype.png", city: "北京"))
    }
    let start = Date(timeIntervalSince1970: 1_416_000_000)
    try StatusService(queue: queue).importStatuses((0..<count).map {
        Status(source: "iPhone 6", createdAt: start.addingTimeInterval(Double($0)), text: "状态 \($0): 一只雪猴在日本边泡温泉边玩iPhone", user: Int64($0 % 100 + 1))
    })
    let service = StatusService(queue: queue)

    let raw = Raw.open(path, key: rawKey)
    defer { sqlite3_close(raw) }
    let (baseline, library) = try bench.compare("raw C: timeline of \(count) statuses with users", "StatusFeed: timeline of \(count) statuses with users", baseline: {
        let statement = Raw.prepare(raw, """
            SELECT s.Id, s.source, s.createdAt, s."text", s.user, s.clientMessageId, u.name, u.screenName, u.profileImageUrl, u.mbtype, u.city
            FROM Status s JOIN User u ON u.Id = s.user ORDER BY s.createdAt DESC, s.Id DESC
            """)
        var rows: [(Int64, String, String, String, Int64, String, String, String, String, String)] = []
        func text(_ column: Int32) -> String { sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "" }
        while sqlite3_step(statement) == SQLITE_ROW {
            rows.append((sqlite3_column_int64(statement, 0), text(1), text(2), text(3), sqlite3_column_int64(statement, 4),
                         text(6), text(7), text(8), text(9), text(10)))
        }
        sqlite3_finalize(statement)
        precondition(rows.count == count)
    }) {
        let timeline = try service.timeline()
        precondition(timeline.count == count)
    }
    return [Benchmark.row("11. StatusFeed timeline, \(count) statuses (dates parsed)", baseline: baseline, library: library, target: "—")]
}
