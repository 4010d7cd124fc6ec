@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// The `cjk` tokenizer is on every connection the library opens, and registering it leaves
/// FTS3's dangerous two-argument `fts3_tokenizer()` as SQLite keeps it: disabled.
@Suite struct TokenizerRegistrationTests {
    @Test func everyConnectionOfAPoolSearchesWithIt() async throws {
        let key = try DatabaseKey.rawKey(hex: String(repeating: "6e", count: 32))
        let directory = try TemporaryDirectory()
        let pool = try DatabasePool(path: directory.path("pool.db"), key: key)
        try await pool.write { db in
            try db.create(virtualTable: "note", using: FTS4()) { t in
                t.column("body")
                t.tokenizer = .cjk
            }
            try db.execute(sql: "INSERT INTO note(body) VALUES ('一只雪猴在日本边泡温泉边玩iPhone的照片')")
        }
        // Concurrent reads open several readers; each needs the tokenizer for the MATCH.
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await pool.read { db in
                        try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM note WHERE note MATCH ?",
                                           arguments: [FTS3Pattern(matchingAllTokensIn: "温泉 iphone")]) ?? 0
                    }
                }
            }
            for try await count in group { #expect(count == 1) }
        }
        try pool.close()
        let queue = try DatabaseQueue(path: directory.path("pool.db"), key: key)
        #expect(try await queue.read { db in try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM note WHERE note MATCH '温泉'") } == 1)
    }

    @Test func theTwoArgumentFts3TokenizerStaysDisabled() throws {
        let db = try Connection(location: .inMemory, key: nil)
        #expect {
            try db.execute(sql: "SELECT fts3_tokenizer('simple', x'0000000000000000')")
        } throws: { error in
            (error as? DatabaseError)?.message == "fts3tokenize disabled"
        }
        try db.execute(sql: "CREATE VIRTUAL TABLE t USING fts4(body, tokenize=cjk)")
        try db.execute(sql: "INSERT INTO t(body) VALUES ('温泉')")
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM t WHERE t MATCH '温泉'") == 1)
    }

    /// Registration runs on every open; it must not show next to the open itself.
    @Test func registeringCostsMicroseconds() throws {
        let db = try Connection(location: .inMemory, key: nil)
        let clock = ContinuousClock()
        let rounds = 500
        let elapsed = try clock.measure { for _ in 0..<rounds { try db.registerFullTextSearch() } }
        let perRegistration = elapsed / rounds
        #expect(perRegistration < .milliseconds(1), "registration took \(perRegistration)")
        let opening = try clock.measure { for _ in 0..<50 { try Connection(location: .inMemory, key: nil).close() } } / 50
        print("cjk registration: \(perRegistration) per connection; an in-memory open: \(opening)")
    }
}
