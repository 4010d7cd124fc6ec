import CipherStore
import Logging

/// Users of the feed: the seed app's `KCUserService`, on a ``CipherStore/DatabaseQueue`` or ``CipherStore/DatabasePool``.
///
/// ```swift
/// let users = UserService(queue: queue)
/// let lily = try users.add(User(name: "Lily", screenName: "丽丽", profileImageUrl: "lily.jpg", mbtype: "mbtype.png", city: "北京"))
/// ```
///
/// Safe to call from many tasks at once: every call is one read or one write of the queue or
/// pool. The `async` variants never block the caller's thread.
public struct UserService: Sendable {
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

    static let columns = "Id, name, screenName, profileImageUrl, mbtype, city"

    /// Adds a user and returns it with its id.
    /// - Throws: ``FeedError/duplicateUserName(_:)`` when the name is taken.
    @discardableResult
    public func add(_ user: User) throws -> User {
        try database.writeWithoutTransaction { try Self.add(user, db: $0, logger: logger) }
    }

    /// Removes a user by id, and with them their statuses. Returns whether the user existed.
    @discardableResult
    public func remove(id: Int64) throws -> Bool {
        try database.writeWithoutTransaction { db in
            try db.execute(sql: "DELETE FROM User WHERE Id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    /// Removes a user by name, and with them their statuses. Returns whether the user existed.
    @discardableResult
    public func remove(named name: String) throws -> Bool {
        try database.writeWithoutTransaction { db in
            try db.execute(sql: "DELETE FROM User WHERE name = ?", arguments: [name])
            logger?.info("removed user", metadata: ["name": "\(name)", "found": "\(db.changesCount > 0)"])
            return db.changesCount > 0
        }
    }

    /// Saves every field of a user that has an id.
    /// - Throws: ``FeedError/userNotFound(_:)``, ``FeedError/duplicateUserName(_:)``.
    public func modify(_ user: User) throws {
        guard let id = user.id else { throw FeedError.userNotFound("without an id") }
        try database.writeWithoutTransaction { db in
            do {
                try db.update(user, in: "User", primaryKey: "Id")
            } catch RecordError.rowNotFound {
                throw FeedError.userNotFound("with id \(id)")
            } catch ResultCode.SQLITE_CONSTRAINT {
                throw FeedError.duplicateUserName(user.name)
            }
        }
    }

    /// The user with this id, or `nil`.
    public func user(id: Int64) throws -> User? {
        try database.read { try $0.fetchOne(User.self, sql: "SELECT \(Self.columns) FROM User WHERE Id = ?", arguments: [id]) }
    }

    /// The user with this name, or `nil`.
    public func user(named name: String) throws -> User? {
        try database.read { try $0.fetchOne(User.self, sql: "SELECT \(Self.columns) FROM User WHERE name = ?", arguments: [name]) }
    }

    /// All users, by id.
    public func all() throws -> [User] {
        try database.read { try $0.fetchAll(User.self, sql: "SELECT \(Self.columns) FROM User ORDER BY Id") }
    }

    // MARK: async

    /// ``add(_:)`` without blocking the caller's thread.
    @discardableResult
    public func add(_ user: User) async throws -> User {
        let logger = self.logger
        return try await database.write { try Self.add(user, db: $0, logger: logger) }
    }

    /// ``remove(named:)`` without blocking the caller's thread.
    @discardableResult
    public func remove(named name: String) async throws -> Bool {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM User WHERE name = ?", arguments: [name])
            return db.changesCount > 0
        }
    }

    /// ``user(named:)`` without blocking the caller's thread.
    public func user(named name: String) async throws -> User? {
        try await database.read { try $0.fetchOne(User.self, sql: "SELECT \(Self.columns) FROM User WHERE name = ?", arguments: [name]) }
    }

    static func add(_ user: User, db: Connection, logger: Logger?) throws -> User {
        var stored = user
        stored.id = nil
        do {
            try db.execute(sql: "INSERT INTO User(name, screenName, profileImageUrl, mbtype, city) VALUES (?, ?, ?, ?, ?)",
                           arguments: [user.name, user.screenName, user.profileImageUrl, user.mbtype, user.city])
        } catch ResultCode.SQLITE_CONSTRAINT {
            throw FeedError.duplicateUserName(user.name)
        }
        stored.id = db.lastInsertedRowID
        logger?.debug("added user", metadata: ["id": "\(db.lastInsertedRowID)"])
        return stored
    }
}
