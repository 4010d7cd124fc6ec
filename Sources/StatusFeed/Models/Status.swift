import Foundation

/// A status (a post) of the timeline, as in the seed app's `Status` table.
public struct Status: Codable, Sendable, Hashable {
    /// The row id (`Id`); `nil` before the status is added.
    public var id: Int64?
    /// The client that posted it, e.g. "iPhone 6".
    public var source: String
    /// When it was posted.
    public var createdAt: Date
    /// The text: not empty, at most ``Status/maximumTextLength`` characters.
    public var text: String
    /// The id of the user who posted it.
    public var user: Int64
    /// An id the client chose, unique when set, so a retried post is not stored twice (schema v2).
    public var clientMessageId: String?

    /// The longest text accepted.
    public static let maximumTextLength = 2000

    /// Creates a status; leave `id` nil for one not yet added.
    public init(id: Int64? = nil, source: String, createdAt: Date, text: String, user: Int64, clientMessageId: String? = nil) {
        self.id = id
        self.source = source
        self.createdAt = createdAt
        self.text = text
        self.user = user
        self.clientMessageId = clientMessageId
    }

    enum CodingKeys: String, CodingKey {
        case id = "Id", source, createdAt, text, user, clientMessageId
    }
}

/// A status with the user who posted it: one row of the timeline.
public struct TimelineEntry: Sendable, Hashable {
    /// The status.
    public let status: Status
    /// The user who posted it.
    public let user: User
}
