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
        var rows: [(Int64, String, Date, String, Int64, String?, String, String, String, String, String)] = []
        func text(_ column: Int32) -> String? { sqlite3_column_text(statement, column).map { String(cString: $0) } }
        while sqlite3_step(statement) == SQLITE_ROW {
            rows.append((sqlite3_column_int64(statement, 0), text(1) ?? "", Raw.date(statement, 2), text(3) ?? "", sqlite3_column_int64(statement, 4),
                         text(5), text(6) ?? "", text(7) ?? "", text(8) ?? "", text(9) ?? "", text(10) ?? ""))
        }
        sqlite3_finalize(statement)
        precondition(rows.count == count && rows.first?.2 == start.addingTimeInterval(Double(count - 1)))
    }) {
        let timeline = try service.timeline()
        precondition(timeline.count == count && timeline.first?.status.createdAt == start.addingTimeInterval(Double(count - 1)))
    }
    return [Benchmark.row("11. StatusFeed timeline, \(count) statuses (dates parsed)", baseline: baseline, library: library, target: "≤ 1.30×")]
}

extension Raw {
    /// The date a `yyyy-MM-dd HH:mm:ss.SSS` column holds, parsed as a C program that knows the
    /// format would: digits at fixed places, days counted from the civil date. No checks: the
    /// floor for the library's parse, which checks every character and accepts shorter forms.
    static func date(_ statement: OpaquePointer?, _ column: Int32) -> Date {
        guard let text = sqlite3_column_text(statement, column), sqlite3_column_bytes(statement, column) == 23 else { return .distantPast }
        func number(_ start: Int, _ digits: Int) -> Int {
            (start..<start + digits).reduce(0) { $0 * 10 + Int(text[$1] - 48) }
        }
        let (year, month, day) = (number(0, 4), number(5, 2), number(8, 2))
        let marchYear = month <= 2 ? year - 1 : year
        let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfEra = marchYear - era * 400
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let seconds = (era * 146_097 + dayOfEra - 719_468) * 86_400 + number(11, 2) * 3_600 + number(14, 2) * 60 + number(17, 2)
        return Date(timeIntervalSince1970: Double(seconds) + Double(number(20, 3)) / 1000)
    }
}
