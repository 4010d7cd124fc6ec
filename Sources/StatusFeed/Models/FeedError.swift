/// Why a feed operation was refused; nothing was written.
public enum FeedError: Error, Sendable, Equatable, CustomStringConvertible {
    case duplicateUserName(String)
    case userNotFound(String)
    case statusNotFound(Int64)
    case invalidText(String)
    case duplicateClientMessageId(String)

    public var description: String {
        switch self {
        case .duplicateUserName(let name): return "A user named '\(name)' already exists; names are unique. Nothing was written."
        case .userNotFound(let user): return "No user \(user). Add the user first. Nothing was written."
        case .statusNotFound(let id): return "No status with id \(id). Nothing was written."
        case .invalidText(let reason): return "Invalid status text: \(reason). Nothing was written."
        case .duplicateClientMessageId(let id): return "A status with client message id '\(id)' is already stored. Nothing was written."
        }
    }
}
