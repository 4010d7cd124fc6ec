import CipherStore
import Foundation
import StatusFeed

/// An encrypted feed database in its own directory, migrated to the current schema.
final class FeedFixture {
    let directory: URL
    let path: String
    let queue: DatabaseQueue
    let users: UserService
    let statuses: StatusService

    init(seeded: Bool = true) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("statusfeed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("feed.db").path
        queue = try DatabaseQueue(path: path, key: .rawKey(hex: String(repeating: "7e", count: 32)))
        try FeedSchema.migrate(queue)
        users = UserService(queue: queue)
        statuses = StatusService(queue: queue)
        if seeded {
            for user in SampleData.users { try users.add(user) }
            try statuses.importStatuses(SampleData.statuses)
        }
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}
