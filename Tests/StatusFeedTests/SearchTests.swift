import CipherStore
import Foundation
import StatusFeed
import Testing

/// The feed's full-text search (schema v4), on the seed's Chinese statuses.
@Suite struct StatusSearchTests {
    @Test func findsAChineseWordInsideASentenceNewestFirst() throws {
        let feed = try FeedFixture()
        let found = try feed.statuses.search("温泉")
        #expect(found.map(\.status.id) == [2, 1])   // both at 09:00: the later id first
        #expect(found.first?.user.name == "Binger")
        #expect(try feed.statuses.search("猴子").map(\.status.id) == [2, 1])
        #expect(try feed.statuses.search("北海道").isEmpty)
    }

    @Test func englishWordsMatchWhateverTheirCaseAndWhatTouchesThem() throws {
        let feed = try FeedFixture()
        // iPhone的, iPhone6了, Iphone4S, 音悦台iPhone客户端, iphone。: every status names one.
        #expect(try feed.statuses.search("IPHONE").count == 10)
        #expect(try feed.statuses.search("ipod").map(\.status.id) == [7])
        #expect(try feed.statuses.search("iPhone 7 Plus").map(\.status.id) == [8])
        #expect(try feed.statuses.search("iphone6").map(\.status.id) == [9, 3])
        #expect(try feed.statuses.search("ＳＯＮＹ").map(\.status.id) == [7])
        #expect(try feed.statuses.search("iphone", limit: 3).map(\.status.id) == [10, 9, 8])
    }

    @Test func aLoneCharacterFindsWhereItStartsAPair() throws {
        let feed = try FeedFixture()
        // 雪猴在 (猴在), 猴子, 猴哥.
        #expect(try feed.statuses.search("猴").map(\.status.id) == [10, 2, 1])
    }

    @Test func japaneseKanaIsFound() throws {
        let feed = try FeedFixture()
        let added = try feed.statuses.add(Status(source: "Web", createdAt: SampleData.date(at: "14:00"), text: "日本の温泉へようこそ、カタカナも", user: 2))
        #expect(try feed.statuses.search("ようこそ").map(\.status.id) == [added.id])
        #expect(try feed.statuses.search("カタカナ").map(\.status.id) == [added.id])
        #expect(try feed.statuses.search("温泉").map(\.status.id) == [added.id, 2, 1])
    }

    @Test func whatUsersTypeIsNeverQuerySyntax() throws {
        let feed = try FeedFixture()
        #expect(try feed.statuses.search(#"温泉" OR "iPhone"#).isEmpty)   // "or" is a word no status holds
        #expect(try feed.statuses.search("温泉 -iPhone").map(\.status.id) == [2, 1])
        #expect(try feed.statuses.search("text:温泉").isEmpty)
        for nothing in ["", "   ", "！？", "\"", "*", "()"] {
            #expect(try feed.statuses.search(nothing).isEmpty)
        }
    }

    @Test func searchesWithoutBlockingTheCallersThread() async throws {
        let feed = try FeedFixture()
        #expect(try await feed.statuses.search("温泉 (iPhone)").map(\.status.id) == [2, 1])
    }

    @Test func theIndexFollowsAddsChangesAndRemovals() throws {
        let feed = try FeedFixture()
        var status = try feed.statuses.add(Status(source: "Web", createdAt: SampleData.date(at: "15:00"), text: "北海道的温泉", user: 3))
        #expect(try feed.statuses.search("北海道").map(\.status.id) == [status.id])
        status.text = "冲绳的海滩"
        try feed.statuses.modify(status)
        #expect(try feed.statuses.search("北海道").isEmpty)
        #expect(try feed.statuses.search("海滩").map(\.status.id) == [status.id])
        try feed.statuses.remove(id: status.id!)
        #expect(try feed.statuses.search("海滩").isEmpty)
        // Removing a user removes their statuses, from the index too.
        try feed.users.remove(named: "Binger")
        #expect(try feed.statuses.search("温泉").isEmpty)
        try feed.queue.inDatabase { db in try db.execute(sql: "INSERT INTO StatusSearch(StatusSearch) VALUES ('integrity-check')") }
        // A refused import leaves the index as it was.
        #expect(throws: FeedError.self) {
            try feed.statuses.importStatuses([Status(source: "", createdAt: Date(), text: "海滩", user: 2),
                                              Status(source: "", createdAt: Date(), text: "x", user: 99)])
        }
        #expect(try feed.statuses.search("海滩").isEmpty)
    }

    @Test func aVersion3DatabaseGetsItsStatusesIndexed() throws {
        let queue = try DatabaseQueue(location: .inMemory, key: .passphrase("k"))
        try FeedSchema.migrator(upTo: 3).migrate(queue)
        for user in SampleData.users { try UserService(queue: queue).add(user) }
        try StatusService(queue: queue).importStatuses(SampleData.statuses)
        #expect(throws: DatabaseError.self) { try StatusService(queue: queue).search("温泉") }
        try FeedSchema.migrate(queue)
        #expect(try StatusService(queue: queue).search("温泉").map(\.status.id) == [2, 1])
        #expect(try queue.inDatabase { try $0.userVersion() } == 4)
    }
}
