/// A user of the timeline, as in the seed app's `User` table.
public struct User: Codable, Sendable, Hashable {
    /// The row id (`Id`); `nil` before the user is added.
    public var id: Int64?
    /// The unique login name, e.g. "Binger".
    public var name: String
    /// The display name, e.g. "冰儿".
    public var screenName: String
    public var profileImageUrl: String
    public var mbtype: String
    public var city: String

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
