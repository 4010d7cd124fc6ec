import CipherStore
import Foundation
import StatusFeed
import Testing

@Suite struct UserServiceTests {
    @Test func addFindModifyRemove() throws {
        let feed = try FeedFixture()
        let lily = try #require(try feed.users.user(named: "Lily"))
        #expect(lily.id == 3)
        #expect(try feed.users.user(id: 3) == lily)
        var moved = lily
        moved.city = "深圳"
        try feed.users.modify(moved)
        #expect(try feed.users.user(named: "Lily")?.city == "深圳")
        #expect(try feed.users.remove(id: 3))
        #expect(try feed.users.user(id: 3) == nil)
        #expect(try !feed.users.remove(named: "nobody"))
    }

    @Test func duplicateNamesAreRefusedAndWriteNothing() throws {
        let feed = try FeedFixture()
        #expect(throws: FeedError.duplicateUserName("Lily")) {
            try feed.users.add(User(name: "Lily", screenName: "x", profileImageUrl: "", mbtype: "", city: ""))
        }
        var xiaona = try #require(try feed.users.user(named: "Xiaona"))
        xiaona.name = "Binger"
        #expect(throws: FeedError.duplicateUserName("Binger")) { try feed.users.modify(xiaona) }
        #expect(try feed.users.all().count == 5)
        #expect(throws: FeedError.self) {
            try feed.users.modify(User(id: 99, name: "ghost", screenName: "", profileImageUrl: "", mbtype: "", city: ""))
        }
    }

    @Test func removingAUserRemovesTheirStatuses() throws {
        let feed = try FeedFixture()
        #expect(try feed.statuses.statuses(ofUserNamed: "Lily").count == 3)
        try feed.users.remove(named: "Lily")
        #expect(try feed.statuses.statuses(ofUserNamed: "Lily").isEmpty)
        #expect(try feed.statuses.timeline().count == 7)
    }
}

@Suite struct StatusServiceTests {
    @Test func timelineAfterTheSeedFlowsMatchesTheArticle() throws {
        let feed = try FeedFixture()
        try feed.users.remove(named: "Yanyue")
        for (name, city) in [("Xiaona", "上海"), ("Lily", "深圳")] {
            var user = try #require(try feed.users.user(named: name))
            user.city = city
            try feed.users.modify(user)
        }
        let timeline = try feed.statuses.timeline()
        #expect(timeline.count == 10)
        #expect(timeline.map(\.user.name) == ["Lily", "Lily", "Xiaona", "Xiaona", "Binger", "Qianmo", "Lily", "Xiaona", "Binger", "Binger"])
        #expect(timeline.first?.user.city == "深圳")
        #expect(timeline.first { $0.user.name == "Xiaona" }?.user.city == "上海")
        #expect(timeline.last?.status.text.contains("\"2014年野生动物摄影师\"") == true)
        #expect(timeline.first?.status.createdAt == SampleData.date(at: "13:26"))
    }

    @Test func timelineIsOneQuery() throws {
        let feed = try FeedFixture()
        var statements: [String] = []
        let box = StatementLog()
        try feed.queue.inDatabase { db in try db.trace { box.append($0) } }
        _ = try feed.statuses.timeline()
        try feed.queue.inDatabase { db in try db.trace(nil) }
        // The read transaction's own statements (BEGIN, query_only, the snapshot start, COMMIT)
        // are the same for every read; what counts is the feed's queries.
        let readTransaction = ["BEGIN", "PRAGMA query_only", "SELECT 1 FROM sqlite_master", "COMMIT"]
        statements = box.lines.filter { line in !readTransaction.contains { line.hasPrefix($0) } }
        #expect(statements.count == 1, "\(statements)")
        #expect(statements.first?.contains("JOIN User") == true)
    }

    @Test func addModifyRemoveAndBadInput() throws {
        let feed = try FeedFixture()
        let status = try feed.statuses.add(Status(source: "Web", createdAt: Date(timeIntervalSince1970: 1_500_000_000),
                                                   text: #"含 "quotes" 'and' emoji 🐒"#, user: 2))
        let id = try #require(status.id)
        #expect(try feed.statuses.status(id: id) == status)
        var edited = status
        edited.text = "edited ✓"
        try feed.statuses.modify(edited)
        #expect(try feed.statuses.status(id: id)?.text == "edited ✓")
        #expect(throws: FeedError.userNotFound("with id 42")) {
            try feed.statuses.add(Status(source: "", createdAt: Date(), text: "hi", user: 42))
        }
        for bad in ["", "   \n", String(repeating: "x", count: Status.maximumTextLength + 1), "nul\u{0}"] {
            #expect(throws: FeedError.self) { try feed.statuses.add(Status(source: "", createdAt: Date(), text: bad, user: 1)) }
        }
        edited.text = ""
        #expect(throws: FeedError.self) { try feed.statuses.modify(edited) }
        #expect(try feed.statuses.remove(id: id))
        #expect(try feed.statuses.status(id: id) == nil)
        #expect(try feed.statuses.timeline().count == 10)
    }

    @Test func clientMessageIdIsUnique() throws {
        let feed = try FeedFixture()
        try feed.statuses.add(Status(source: "", createdAt: Date(), text: "once", user: 1, clientMessageId: "m-1"))
        #expect(throws: FeedError.duplicateClientMessageId("m-1")) {
            try feed.statuses.add(Status(source: "", createdAt: Date(), text: "twice", user: 1, clientMessageId: "m-1"))
        }
    }

    @Test func queriesByUserNameAndByTextAndScreenName() throws {
        let feed = try FeedFixture()
        #expect(try feed.statuses.statuses(ofUserNamed: "Xiaona").map(\.status.createdAt) ==
                ["13:00", "11:20", "09:30"].map(SampleData.date(at:)))
        #expect(try feed.statuses.users(postingText: "iPhone", screenName: "丽丽").map(\.name) == ["Lily"])
        #expect(try feed.statuses.users(postingText: "雪猴", screenName: "丽丽").isEmpty)
    }

    @Test func keysetPagingWalksTheWholeTimelineOnce() throws {
        let feed = try FeedFixture()
        var pages: [[TimelineEntry]] = []
        var last: TimelineEntry?
        repeat {
            let page = try feed.statuses.timelinePage(after: last, limit: 3)
            if page.isEmpty { break }
            pages.append(page)
            last = page.last
        } while true
        #expect(pages.map(\.count) == [3, 3, 3, 1])
        #expect(pages.flatMap { $0 } == (try feed.statuses.timeline()))
    }

    @Test func sixteenConcurrentTasksAddingStatusesAllLand() async throws {
        let feed = try FeedFixture()
        let statuses = feed.statuses
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<16 {
                group.addTask {
                    for n in 0..<25 {
                        try await statuses.add(Status(source: "task", createdAt: Date(), text: "task \(task) #\(n)", user: Int64(task % 5 + 1)))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await statuses.timeline().count == 10 + 16 * 25)
    }

    @Test func batchImportOfAHundredThousandIsAllOrNothing() throws {
        let feed = try FeedFixture()
        let start = Date(timeIntervalSince1970: 1_600_000_000)
        let batch = (0..<100_000).map { Status(source: "import", createdAt: start.addingTimeInterval(Double($0)), text: "imported \($0)", user: Int64($0 % 5 + 1)) }
        #expect(try feed.statuses.importStatuses(batch) == 100_000)
        #expect(try feed.statuses.timeline().count == 100_010)
        var broken = Array(batch.prefix(1000))
        broken[500].user = 999
        #expect(throws: FeedError.userNotFound("with id 999")) { try feed.statuses.importStatuses(broken) }
        #expect(try feed.statuses.timeline().count == 100_010)
    }
}

/// Collects traced statements (the trace closure runs on the queue).
final class StatementLog: @unchecked Sendable {
    // @unchecked: every access holds `lock`.
    private let lock = NSLock()
    private var storage: [String] = []
    func append(_ line: String) { lock.lock(); storage.append(line); lock.unlock() }
    var lines: [String] { lock.lock(); defer { lock.unlock() }; return storage }
}
