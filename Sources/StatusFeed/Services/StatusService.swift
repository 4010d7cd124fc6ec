import CipherStore
import Foundation
import Logging

/// Statuses and the timeline: the seed app's `KCStatusService`, on a
/// ``CipherStore/DatabaseQueue``. The timeline comes from one JOIN query, not the seed app's
/// 2N+1 queries.
///
/// ```swift
/// let statuses = StatusService(queue: queue)
/// try statuses.add(Status(source: "iPhone 6", createdAt: Date(), text: "你好", user: lily.id!))
/// for entry in try statuses.timeline() { print(entry.user.screenName, entry.status.text) }
/// ```
///
/// Safe to call from many tasks at once; the `async` variants never block the caller's thread.
public struct StatusService: Sendable {
    let database: any DatabaseWriter
    let logger: Logger?

    /// A service on a queue or pool whose database has the feed schema (see
    /// ``FeedSchema/migrate(_:)``).
    public init(database: any DatabaseWriter, logger: Logger? = nil) {
        self.database = database
        self.logger = logger
    }

    /// A service on a queue. See ``init(database:logger:)``.
    public init(queue: DatabaseQueue, logger: Logger? = nil) {
        self.init(database: queue, logger: logger)
    }

    static let timelineSQL = """
        SELECT s.Id, s.source, s.createdAt, s."text", s.user, s.clientMessageId,
               u.name, u.screenName, u.profileImageUrl, u.mbtype, u.city
        FROM Status s JOIN User u ON u.Id = s.user
        """
    static let newestFirst = " ORDER BY s.createdAt DESC, s.Id DESC"

    /// Adds a status and returns it with its id.
    /// - Throws: ``FeedError/userNotFound(_:)``, ``FeedError/invalidText(_:)``,
    ///   ``FeedError/duplicateClientMessageId(_:)``.
    @discardableResult
    public func add(_ status: Status) throws -> Status {
        try database.writeWithoutTransaction { try Self.add(status, db: $0) }
    }

    /// Adds many statuses in one transaction: all of them, or none when one is refused.
    /// - Returns: how many were added.
    @discardableResult
    public func importStatuses(_ statuses: [Status]) throws -> Int {
        try database.inTransaction(.immediate) { db in
            for status in statuses { _ = try Self.add(status, db: db) }
            return .commit
        }
        logger?.info("imported statuses", metadata: ["count": "\(statuses.count)"])
        return statuses.count
    }

    /// Removes a status; returns whether it existed.
    @discardableResult
    public func remove(id: Int64) throws -> Bool {
        try database.writeWithoutTransaction { db in
            try db.execute(sql: "DELETE FROM Status WHERE Id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    /// Saves every field of a status that has an id.
    public func modify(_ status: Status) throws {
        guard let id = status.id else { throw FeedError.statusNotFound(0) }
        try Self.validate(status.text)
        try database.writeWithoutTransaction { db in
            do {
                try db.update(status, in: "Status", primaryKey: "Id")
            } catch RecordError.rowNotFound {
                throw FeedError.statusNotFound(id)
            } catch ResultCode.SQLITE_CONSTRAINT {
                if try db.fetchOne(sql: "SELECT 1 FROM User WHERE Id = ?", arguments: [status.user]) == nil {
                    throw FeedError.userNotFound("with id \(status.user)")
                }
                throw FeedError.duplicateClientMessageId(status.clientMessageId ?? "")
            }
        }
    }

    /// The status with this id, or `nil`.
    public func status(id: Int64) throws -> Status? {
        try database.read { db in
            try db.fetchOne(Status.self, sql: #"SELECT Id, source, createdAt, "text", user, clientMessageId FROM Status WHERE Id = ?"#, arguments: [id])
        }
    }

    /// Every status with its user, newest first, in one query.
    public func timeline() throws -> [TimelineEntry] {
        try database.read { db in try Self.entries(db, sql: Self.timelineSQL + Self.newestFirst) }
    }

    /// The timeline, observed: the current one first, then a new one after each committed
    /// change to statuses or users, whichever task or process of this queue or pool made it.
    ///
    /// ```swift
    /// for try await timeline in statuses.observeTimeline() { show(timeline) }
    /// ```
    ///
    /// On a ``CipherStore/DatabasePool`` the timeline is fetched on a reader, so writers never
    /// wait for it. Equal timelines in a row are passed over.
    public func observeTimeline() -> DatabaseObservation<[TimelineEntry]> {
        database.observe { db in try Self.entries(db, sql: Self.timelineSQL + Self.newestFirst) }.removingDuplicates()
    }

    /// At most `limit` timeline entries older than `entry` (newest first); from the top when `entry` is nil.
    public func timelinePage(after entry: TimelineEntry?, limit: Int) throws -> [TimelineEntry] {
        try database.read { db in
            guard let status = entry?.status, let id = status.id else {
                return try Self.entries(db, sql: Self.timelineSQL + Self.newestFirst + " LIMIT ?", arguments: [limit])
            }
            return try Self.entries(db, sql: Self.timelineSQL + """
                 WHERE s.createdAt < :at OR (s.createdAt = :at AND s.Id < :id)
                """ + Self.newestFirst + " LIMIT :limit", arguments: ["at": status.createdAt, "id": id, "limit": limit])
        }
    }

    /// The statuses of the user with this name, newest first (the seed's `user.name == name`).
    public func statuses(ofUserNamed name: String) throws -> [TimelineEntry] {
        try database.read { db in
            try Self.entries(db, sql: Self.timelineSQL + " WHERE u.name = ?" + Self.newestFirst, arguments: [name])
        }
    }

    /// The statuses whose text holds every word of `text`, newest first, with their users: at
    /// most `limit`. Empty when `text` has no word.
    ///
    /// ```swift
    /// let found = try statuses.search("温泉 iPhone")
    /// ```
    ///
    /// The search reads the full-text index of schema v4 (``FeedSchema``), with the `cjk`
    /// tokenizer: a Chinese or Japanese word is found inside a sentence without spaces (温泉 in
    /// 泡温泉边玩), English words whatever their case (iphone finds iPhone6 and Iphone4S), and a
    /// word is matched as its characters in a row. What a user types is never read as query
    /// syntax: quotes, `OR`, `-`, `*` are separators or plain words. A single Chinese
    /// character finds the statuses where it starts a two-character sequence (猴 finds 猴子,
    /// not 雪猴): FTS4 indexes Chinese text as character pairs.
    public func search(_ text: String, limit: Int = 50) throws -> [TimelineEntry] {
        guard let pattern = FTS3Pattern(matchingAllTokensIn: text) else { return [] }
        return try database.read { db in try Self.entries(db, sql: Self.searchSQL, arguments: [pattern, limit]) }
    }

    static let searchSQL = timelineSQL + " WHERE s.Id IN (SELECT docid FROM StatusSearch WHERE StatusSearch MATCH ?)" + newestFirst + " LIMIT ?"

    /// Users with this screen name who posted a status containing `text`.
    public func users(postingText text: String, screenName: String) throws -> [User] {
        try database.read { db in
            try db.fetchAll(User.self, sql: """
                SELECT \(UserService.columns) FROM User u WHERE u.screenName = ?
                AND EXISTS (SELECT 1 FROM Status s WHERE s.user = u.Id AND instr(s."text", ?) > 0) ORDER BY u.Id
                """, arguments: [screenName, text])
        }
    }

    // MARK: async

    /// ``add(_:)`` without blocking the caller's thread.
    @discardableResult
    public func add(_ status: Status) async throws -> Status {
        try await database.write { try Self.add(status, db: $0) }
    }

    /// ``timeline()`` without blocking the caller's thread.
    public func timeline() async throws -> [TimelineEntry] {
        try await database.read { db in try Self.entries(db, sql: Self.timelineSQL + Self.newestFirst) }
    }

    /// ``search(_:limit:)`` without blocking the caller's thread.
    public func search(_ text: String, limit: Int = 50) async throws -> [TimelineEntry] {
        guard let pattern = FTS3Pattern(matchingAllTokensIn: text) else { return [] }
        return try await database.read { db in try Self.entries(db, sql: Self.searchSQL, arguments: [pattern, limit]) }
    }

    /// ``importStatuses(_:)`` without blocking the caller's thread.
    @discardableResult
    public func importStatuses(_ statuses: [Status]) async throws -> Int {
        try await database.write { db in
            for status in statuses { _ = try Self.add(status, db: db) }
            return statuses.count
        }
    }

    // MARK: Shared

    static func validate(_ text: String) throws {
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { throw FeedError.invalidText("it is empty") }
        if text.count > Status.maximumTextLength { throw FeedError.invalidText("it is longer than \(Status.maximumTextLength) characters") }
        if text.contains("\u{0}") { throw FeedError.invalidText("it contains a NUL character") }
    }

    static func add(_ status: Status, db: Connection) throws -> Status {
        try validate(status.text)
        guard try db.fetchOne(sql: "SELECT 1 FROM User WHERE Id = ?", arguments: [status.user]) != nil else {
            throw FeedError.userNotFound("with id \(status.user)")
        }
        do {
            try db.execute(sql: #"INSERT INTO Status(source, createdAt, "text", user, clientMessageId) VALUES (?, ?, ?, ?, ?)"#,
                           arguments: [status.source, status.createdAt, status.text, status.user, status.clientMessageId])
        } catch ResultCode.SQLITE_CONSTRAINT where status.clientMessageId != nil {
            throw FeedError.duplicateClientMessageId(status.clientMessageId ?? "")
        }
        var stored = status
        stored.id = db.lastInsertedRowID
        return stored
    }

    /// The entries of a timeline query, each row read in place (``CipherStore/RowView``): no
    /// row is copied on its way to the entry built from it.
    static func entries(_ db: Connection, sql: String, arguments: StatementArguments = .none) throws -> [TimelineEntry] {
        var entries: [TimelineEntry] = []
        try db.forEachRow(sql: sql, arguments: arguments) { row in
            let status = Status(id: try row.value(at: 0), source: try row.value(String?.self, at: 1) ?? "",
                                createdAt: try row.value(Date.self, at: 2), text: try row.value(at: 3), user: try row.value(at: 4),
                                clientMessageId: try row.value(at: 5))
            let user = User(id: status.user, name: try row.value(at: 6), screenName: try row.value(String?.self, at: 7) ?? "",
                            profileImageUrl: try row.value(String?.self, at: 8) ?? "", mbtype: try row.value(String?.self, at: 9) ?? "",
                            city: try row.value(String?.self, at: 10) ?? "")
            entries.append(TimelineEntry(status: status, user: user))
        }
        return entries
    }
}
