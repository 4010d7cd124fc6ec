import Foundation
import TestSupport
import Testing

@Suite struct DemoTests {
    @Test func demoTellsTheWholeStoryAndRunsTwice() throws {
        let workspace = try TemporaryDirectory()
        for _ in 0..<2 {
            let result = try CLI.run(["demo", "--directory", workspace.path("demo")])
            #expect(result.status == 0, "\(result.errorOutput)")
            for expected in ["[1] created plaintext", "[2] encrypted", "上海", "深圳", "丽丽", "no 'SQLite format 3' header",
                             "a wrong key is refused", "the old key is refused", "unlocked the data key with the passphrase",
                             "feed.db.keys", "was not rewritten", "the old passphrase is refused", "rotated the data key",
                             "[4] observed the timeline on a DatabasePool", "sent from another task"] {
                #expect(result.output.contains(expected), "missing: \(expected)")
            }
            #expect(!result.output.contains("炎月"), "the removed user still shows in the timeline")
            // The search: 温泉 inside a sentence, iPhone in every case and glued to Chinese.
            #expect(result.output.contains(#"full-text search (FTS4, the cjk tokenizer; schema v4 indexed the statuses): "温泉" → 2, "IPHONE" → 10, "猴" → 3, "北海道" → 0 statuses"#),
                    "\(result.output)")
            // The observer saw the timeline grow by the status another task added.
            let observed = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("[4] observed") })
            #expect(observed.contains("10 statuses; another task added one, and the observer received 11 statuses"), "\(observed)")
            // The passphrase change is timed, and the time is that of key derivations, not of the file.
            let change = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("[7] changed the passphrase in ") })
            let milliseconds = try #require(Double(change.dropFirst("[7] changed the passphrase in ".count).prefix { $0 != " " }))
            #expect(milliseconds > 0 && milliseconds < 5000, "\(change)")
        }
    }
}
