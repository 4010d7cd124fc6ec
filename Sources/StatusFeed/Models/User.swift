/// A user of the timeline, as in the seed app's `User` table.
public struct User: Codable, Sendable, Hashable {
    /// The row id (`Id`); `nil` before the user is added.
    public var id: Int64?
    /// The unique login name, e.g. "Binger".
    public var name: String
    /// The display name, e.g. "冰儿".
    public var screenName: String
    /// The avatar image name or URL.
    public var profileImageUrl: String
    /// The member-type badge image.
    public var mbtype: String
    /// The city the user lives in, e.g. "北京".
    public var city: String

    /// Creates a user; leave `id` nil for one not yet added.
    public init(id: Int64? = nil, name: String, screenName: String, profileImageUrl: String, mbtype: String, city: String) {
        self.id = id
        self.name = name
        self.screenName = screenName
        self.profileImageUrl = profileImageUrl
        self.mbtype = mbtype
        self.city = city
    }

    enum CodingKeys: String, CodingKey {
        case id = "Id", name, screenName, profileImageUrl, mbtype, city
    }
}
