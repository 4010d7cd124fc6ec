import ArgumentParser
@_spi(Tools) import CipherStore
import Foundation
import StatusFeed

extension CipherStoreCommand {
    /// `cipherstore demo`: the seed app's story, end to end, on real files.
    struct Demo: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the StatusFeed demo: upgrade a plaintext app database to an encrypted one and use it.",
            discussion: """
                Creates a plaintext database as the old app did (five users, ten statuses), \
                encrypts it into a slot database (a random data key, wrapped under a passphrase \
                in feed.db.keys), runs the app's flows on it through the services, prints the \
                timeline, shows that the file is ciphertext and that a wrong key is refused, \
                changes the passphrase in milliseconds without rewriting the file, rotates the \
                data key and reopens. Keys and passphrases are random and never printed.

                Example:
                  cipherstore demo --directory /tmp/feed-demo
                """
        )

        @Option(help: "The directory for the demo's files (created; default: a new temporary directory).", completion: .directory)
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
                for suffix in ["", "-journal", "-wal", "-shm", ".keys"] { try? FileManager.default.removeItem(atPath: path + suffix) }
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

            // 2. Upgrade: a copy of the old file becomes a slot database, verified before it
            //    replaces the copy; the original stays for comparison.
            try FileManager.default.copyItem(atPath: legacy, toPath: feed)
            let passphrase = try randomPassphrase()
            let clock = ContinuousClock()
            var start = clock.now
            let slot = try KeySlots.encrypt(path: feed, passphrase: passphrase, kdf: Self.kdf)
            step(2, "encrypted a copy into \(feed), verified, in \(Summary.milliseconds(clock.now - start)): a random 256-bit data key, wrapped under a random passphrase in feed.db.keys (\(slot.kdf)); \(SQLCipherLibrary.defaultPageSize)-byte pages, the linked SQLCipher's default, so the slot key opens it with default settings")
            let settings = Configuration()

            // 3. The app on the encrypted file: migrate, run the seed flows, show the timeline.
            start = clock.now
            let key = try DatabaseKey.slots(passphrase: passphrase, path: feed)
            let derivation = clock.now - start
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
            step(3, "unlocked the data key with the passphrase (one key derivation, \(Summary.milliseconds(derivation)); connections then open with no KDF), migrated to schema v4, removed Yanyue, moved Xiaona to 上海 and Lily to 深圳; the timeline (\(timeline.count) statuses, one query):")
            print(TimelineTable.render(timeline))
            try showSearch(statuses)
            try queue.close()

            // 4. The timeline as an observation on a pool: a status added by another task
            //    reaches the observer without anybody asking.
            try observeTimeline(feed: feed, key: key, settings: settings)

            // 5. At rest: ciphertext; a wrong passphrase refused.
            let header = bytes(of: feed, count: 16)
            let looksLikeSQLite = header.starts(with: Array("SQLite format 3".utf8))
            step(5, "first 16 bytes of feed.db: \(header.map { String(format: "%02x", $0) }.joined(separator: " ")) — \(looksLikeSQLite ? "PLAINTEXT HEADER" : "random salt, no 'SQLite format 3' header")")
            do {
                _ = try DatabaseKey.slots(passphrase: randomPassphrase(), path: feed)
                throw CLIError(exitCode: ExitCodes.verificationFailed, message: "a wrong passphrase opened the database")
            } catch CipherStoreError.wrongKey {
                step(6, "a wrong key is refused: \"Cannot decrypt …: the key is wrong\"")
            }

            // 7. A passphrase change re-wraps the data key: the database file is not touched.
            let before = try Data(contentsOf: URL(fileURLWithPath: feed))
            let newPassphrase = try randomPassphrase()
            start = clock.now
            try KeySlots.changePassphrase(path: feed, from: passphrase, to: newPassphrase)
            let change = clock.now - start
            let untouched = try Data(contentsOf: URL(fileURLWithPath: feed)) == before
            let oldPassphraseRefused = (try? DatabaseKey.slots(passphrase: passphrase, path: feed)) == nil
            let newKey = try DatabaseKey.slots(passphrase: newPassphrase, path: feed)
            let changed = try DatabaseQueue(path: feed, key: newKey, configuration: settings)
            let changedCount = try StatusService(queue: changed).timeline().count
            try changed.close()
            step(7, "changed the passphrase in \(Summary.milliseconds(change)) — key derivations of about \(Summary.milliseconds(derivation)) each, not the size of the file: feed.db (\(before.count / 1024) KiB) was \(untouched ? "not rewritten" : "REWRITTEN"); the new passphrase opens it (\(changedCount) statuses), the old passphrase \(oldPassphraseRefused ? "is refused" : "STILL OPENS IT")")

            // 8. After a suspected leak: a new data key, the whole file rewritten like rekey.
            start = clock.now
            try KeySlots.rotateDataKey(path: feed, keeping: [newPassphrase], cipher: settings.cipher)
            let rotation = clock.now - start
            let reopened = try DatabaseQueue(path: feed, key: DatabaseKey.slots(passphrase: newPassphrase, path: feed), configuration: settings)
            let count = try StatusService(queue: reopened).timeline().count
            try reopened.close()
            let oldKeyRefused = (try? DatabaseQueue(path: feed, key: newKey, configuration: settings)) == nil
            step(8, "rotated the data key in \(Summary.milliseconds(rotation)) (a verified rewrite of the whole file, as rekey does): reopened with the passphrase (\(count) statuses); the old key \(oldKeyRefused ? "is refused" : "STILL OPENS IT")")
            print("Files are in \(folder) (feed.db and its slot file feed.db.keys go together). The plaintext legacy.db is kept for comparison: delete it when done.")
        }

        /// Searches the statuses as a user would type: Chinese without spaces, English in any case.
        private func showSearch(_ statuses: StatusService) throws {
            let searches = ["温泉", "IPHONE", "猴", "北海道"]
            let counts = try searches.map { "\"\($0)\" → \(try statuses.search($0).count)" }
            let onsen = try statuses.search("温泉").first?.status.text ?? ""
            print("    full-text search (FTS4, the cjk tokenizer; schema v4 indexed the statuses): \(counts.joined(separator: ", ")) statuses; "
                  + "the newest for 温泉: \"\(onsen.prefix(24))…\"")
        }

        /// Observes the timeline on a pool, adds a status from another task, and waits for the
        /// new timeline to arrive.
        private func observeTimeline(feed: String, key: DatabaseKey, settings: Configuration) throws {
            let pool = try DatabasePool(path: feed, key: key, configuration: settings)
            defer { try? pool.close() }
            let statuses = StatusService(database: pool)
            let arrivals = TimelineArrivals()
            let watcher = Task {
                for try await timeline in statuses.observeTimeline() { arrivals.record(timeline) }
            }
            defer { watcher.cancel() }
            guard let initial = arrivals.next(timeout: 10) else {
                throw CLIError(exitCode: ExitCodes.verificationFailed, message: "the observed timeline did not arrive")
            }
            guard let lily = try UserService(database: pool).user(named: "Lily") else { throw FeedError.userNotFound("Lily") }
            let clock = ContinuousClock()
            let added = clock.now
            let writer = Task {
                try await statuses.add(Status(source: "cipherstore demo", createdAt: Date(), text: "从另一个任务发出 — sent from another task", user: lily.id!))
            }
            guard let updated = arrivals.next(timeout: 10) else {
                throw CLIError(exitCode: ExitCodes.verificationFailed, message: "the observed timeline did not change after an insert")
            }
            let latency = clock.now - added
            _ = try awaitResult(of: writer)
            step(4, "observed the timeline on a DatabasePool (WAL, one writer, readers in parallel): \(initial.count) statuses; another task added one, and the observer received \(updated.count) statuses \(Summary.milliseconds(latency)) later, newest first: \"\(updated.first?.status.text ?? "")\" by \(updated.first?.user.screenName ?? "")")
        }

        private func step(_ number: Int, _ text: String) {
            print("[\(number)] \(text)")
        }

        /// Slots calibrated to about 0.1 s here, to keep the demo quick (the library's default is 0.25 s).
        private static let kdf = KeySlotKDF.scrypt(targetDuration: .milliseconds(100))

        /// 24 random letters and digits.
        private func randomPassphrase() throws -> Passphrase {
            let alphabet = Array("abcdefghijkmnpqrstuvwxyz23456789".utf8)
            // 256 is a multiple of the alphabet's 32 letters: every one is as likely.
            var random = SecureRandom.bytes(24)
            var bytes = random.map { alphabet[Int($0) % alphabet.count] }
            defer {
                SecureMemory.wipe(&bytes)
                SecureMemory.wipe(&random)
            }
            return try Passphrase(bytes: bytes)
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
