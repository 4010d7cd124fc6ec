import BenchSupport
import CCJKTokenizer
import CipherStore
import CSQLCipher
import Foundation
import StatusFeed

/// Workload 12: a full-text search over `count` statuses (StatusFeed's FTS4 index, `cjk`
/// tokenizer): the 50 newest that mention 温泉, with their users.
func searchWorkload(_ bench: Benchmark, directory: String, statuses count: Int, key: DatabaseKey, rawKey: [UInt8]) throws -> [String] {
    let path = directory + "/search.db"
    let queue = try DatabaseQueue(path: path, key: key)
    try FeedSchema.migrate(queue)
    let users = UserService(queue: queue)
    for index in 0..<100 {
        try users.add(User(name: "user\(index)", screenName: "用户\(index)", profileImageUrl: "\(index).jpg", mbtype: "mbtype.png", city: "北京"))
    }
    // Varied text from a vocabulary; about one status in 50 mentions 温泉.
    let words = ["今天", "天气", "不错", "我们", "一起", "去", "公园", "散步", "手机", "新买的", "照片", "朋友", "周末", "吃饭", "北京", "上海",
                 "地铁", "加班", "咖啡", "电影", "音乐", "猴子", "雪山", "日本", "旅行", "iPhone", "Android", "sony", "相机", "微博",
                 "转发", "关注", "抽奖", "奖品", "摄影师", "大赛", "野生动物", "客户端", "代理", "价格", "行货", "全国", "联保", "到货"]
    var random = TextGenerator(state: 12)
    let start = Date(timeIntervalSince1970: 1_416_000_000)
    let statuses = (0..<count).map { index -> Status in
        var text = (0..<Int.random(in: 8...20, using: &random)).map { _ in words[Int.random(in: 0..<words.count, using: &random)] }
        if index % 50 == 7 { text.insert("泡温泉", at: Int.random(in: 0...text.count, using: &random)) }
        return Status(source: "iPhone 6", createdAt: start.addingTimeInterval(Double(index)), text: text.joined(separator: index % 3 == 0 ? " " : ""),
                      user: Int64(index % 100 + 1))
    }
    for chunk in stride(from: 0, to: count, by: 10_000) {
        try StatusService(queue: queue).importStatuses(Array(statuses[chunk..<min(chunk + 10_000, count)]))
    }
    let service = StatusService(queue: queue)
    let matches = count / 50

    let raw = Raw.open(path, key: rawKey)
    defer { sqlite3_close(raw) }
    precondition(cipherstore_cjk_register(raw) == SQLITE_OK)
    let (baseline, library) = try bench.compare("raw C: MATCH 温泉, 50 newest of \(count) statuses", "StatusFeed: search(\"温泉\")", baseline: {
        let statement = Raw.prepare(raw, """
            SELECT s.Id, s.source, s.createdAt, s."text", s.user, s.clientMessageId, u.name, u.screenName, u.profileImageUrl, u.mbtype, u.city
            FROM Status s JOIN User u ON u.Id = s.user WHERE s.Id IN (SELECT docid FROM StatusSearch WHERE StatusSearch MATCH ?)
            ORDER BY s.createdAt DESC, s.Id DESC LIMIT 50
            """)
        // SQLITE_TRANSIENT: SQLite copies the text.
        sqlite3_bind_text(statement, 1, "\"温泉\"", -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        var rows: [(Int64, String, String, String, Int64, String, String, String, String, String)] = []
        func text(_ column: Int32) -> String { sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "" }
        while sqlite3_step(statement) == SQLITE_ROW {
            rows.append((sqlite3_column_int64(statement, 0), text(1), text(2), text(3), sqlite3_column_int64(statement, 4),
                         text(6), text(7), text(8), text(9), text(10)))
        }
        sqlite3_finalize(statement)
        precondition(rows.count == 50)
    }) {
        let found = try service.search("温泉")
        precondition(found.count == 50)
    }
    return [Benchmark.row("12. StatusFeed search (FTS4, `cjk` tokenizer): the 50 newest of \(matches) statuses with 温泉 among \(count)",
                          baseline: baseline, library: library, target: "≤ 1.10×")]
}

/// A deterministic generator (SplitMix64), so every run indexes the same text.
private struct TextGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
