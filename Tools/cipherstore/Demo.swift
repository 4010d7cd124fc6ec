import ArgumentParser
import CipherStore
import Foundation
import StatusFeed

extension CipherStoreCommand {
    /// `cipherstore demo`: the seed app's story, end to end, on real files.
    struct Demo: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the StatusFeed demo: upgrade a plaintext app database to an encrypted one and use it.",
            discussion: """
                Creates a plaintext database as the old app did (five users, ten statuses), \
                encrypts it, runs the app's flows on it through the services, prints the \
                timeline, shows that the file is ciphertext and that a wrong key is refused, \
                rotates the key and reopens. Keys are random and never printed.

                Example:
                  cipherstore demo --directory /tmp/feed-demo
                """
        )

        @Option(help: "The directory for the demo's files (created; default: a new temporary directory).")
        var directory: String?

        func run() throws {
            try CommandRunner.run { try runDemo() }
        }

        private func runDemo() throws {
            let folder = directory ?? FileManager.default.temporaryDirectory
                .appendingPathComponent("cipherstore-demo-\(UUID().uuidString.prefix(8))").path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let legacy = folder + "/legacy.db"
            let feed = folder + "/feed.db"
            // A second run starts over with its own files.
            for path in [legacy, feed, legacy + ".plaintext-backup"] {
                for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            }

            // 1. The old app: plaintext tables, values spliced in as it did not — bound here.
            let old = try Connection(path: legacy, key: nil)
            try old.executeScript("""
                CREATE TABLE User (Id integer PRIMARY KEY AUTOINCREMENT, name text, screenName text, profileImageUrl text, mbtype text, city text);
                CREATE TABLE Status (Id integer PRIMARY KEY AUTOINCREMENT, source text, createdAt date, "text" text, user integer REFERENCES User (Id));
                """)
            try old.inTransaction {
                for user in SampleData.users {
                    try old.insert(UserRow(user), into: "User")
                }
                for status in SampleData.statuses {
                    try old.insert(StatusRow(status), into: "Status")
                }
                return .commit
            }
            try old.close()
            step(1, "created plaintext \(legacy) the old app's way: \(SampleData.users.count) users, \(SampleData.statuses.count) statuses")

            // 2. Upgrade: encrypt with the export tool, verified before it replaces anything.
            let key = try randomKey()
            let report = try DatabaseMaintenance.encrypt(path: legacy, key: key, to: .file(feed))
            let rows = report.verification.tables.reduce(0) { $0 + $1.rowCount }
            step(2, "encrypted it into \(feed) with a random 256-bit key: \(rows) rows verified in \(String(format: "%.2f", report.seconds)) s, \(report.verification.pageSize)-byte pages as in the original")
            // The encrypted file keeps the original's page size: every open names it.
            let settings = Configuration(cipher: CipherSettings(pageSize: report.verification.pageSize))

            // 3. The app on the encrypted file: migrate, run the seed flows, show the timeline.
            let queue = try DatabaseQueue(path: feed, key: key, configuration: settings)
            try FeedSchema.migrate(queue)
            let users = UserService(queue: queue)
            let statuses = StatusService(queue: queue)
            try users.remove(named: "Yanyue")
            for (name, city) in [("Xiaona", "上海"), ("Lily", "深圳")] {
                guard var user = try users.user(named: name) else { throw FeedError.userNotFound(name) }
                user.city = city
                try users.modify(user)
            }
            let timeline = try statuses.timeline()
            step(3, "migrated to schema v3, removed Yanyue, moved Xiaona to 上海 and Lily to 深圳; the timeline (\(timeline.count) statuses, one query):")
            print(TimelineTable.render(timeline))
            try queue.close()

            // 4. At rest: ciphertext, wrong key refused, key rotated.
            let header = bytes(of: feed, count: 16)
            let looksLikeSQLite = header.starts(with: Array("SQLite format 3".utf8))
            step(4, "first 16 bytes of feed.db: \(header.map { String(format: "%02x", $0) }.joined(separator: " ")) — \(looksLikeSQLite ? "PLAINTEXT HEADER" : "random salt, no 'SQLite format 3' header")")
            do {
                _ = try DatabaseQueue(path: feed, key: randomKey(), configuration: settings)
                throw CLIError(exitCode: ExitCodes.verificationFailed, message: "a wrong key opened the database")
            } catch CipherStoreError.wrongKey {
                step(5, "a wrong key is refused: \"Cannot decrypt …: the key is wrong\"")
            }
            let newKey = try randomKey()
            try DatabaseMaintenance.changeKey(path: feed, oldKey: key, oldCipher: settings.cipher, newKey: newKey)
            let reopened = try DatabaseQueue(path: feed, key: newKey, configuration: settings)
            let count = try StatusService(queue: reopened).timeline().count
            let oldKeyRefused = (try? DatabaseQueue(path: feed, key: key, configuration: settings)) == nil
            step(6, "rotated the key: reopened with the new key (\(count) statuses); the old key \(oldKeyRefused ? "is refused" : "STILL OPENS IT")")
            print("Files are in \(folder). The plaintext legacy.db is kept for comparison: delete it when done.")
        }

        private func step(_ number: Int, _ text: String) {
            print("[\(number)] \(text)")
        }

        private func randomKey() throws -> DatabaseKey {
            var generator = SystemRandomNumberGenerator()
            var bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
            defer { secureWipe(&bytes) }
            return try DatabaseKey.rawKey(bytes)
        }

        private func bytes(of path: String, count: Int) -> [UInt8] {
            guard let handle = FileHandle(forReadingAtPath: path) else { return [] }
            defer { try? handle.close() }
            return Array(handle.readData(ofLength: count))
        }
    }
}

/// The seed app's User row, as its SQL inserted it.
private struct UserRow: Encodable {
    let name, screenName, profileImageUrl, mbtype, city: String
    init(_ user: User) {
        (name, screenName, profileImageUrl, mbtype, city) = (user.name, user.screenName, user.profileImageUrl, user.mbtype, user.city)
    }
}

/// The seed app's Status row.
private struct StatusRow: Encodable {
    let source: String
    let createdAt: Date
    let text: String
    let user: Int64
    init(_ status: Status) {
        (source, createdAt, text, user) = (status.source, status.createdAt, status.text, status.user)
    }
}
