/// A way out that an error's message offers: an option of the call that failed.
///
/// The library's messages spell each one as the Swift API spells it (``swiftSpelling``). A
/// tool or an app that offers the same choice under its own name renders the same message
/// with its spelling, through ``ConversionError/message(spelling:)`` or
/// ``CipherStoreError/message(spelling:)``, rather than rewriting the text; one that does not
/// offer it returns `nil`, and the message leaves that way out:
///
/// ```swift
/// let text = error.message { remedy in
///     switch remedy {
///     case .overwrite: return "tap Replace"
///     case .replaceThisNameOnly: return nil       // not offered here
///     case .rawKey: return "switch “Raw key” on"
///     }
/// }
/// ```
public enum Remedy: Sendable, Hashable, CaseIterable {
    /// Replace the file already at the output path. Ends a sentence that begins "Choose
    /// another output, or …".
    case overwrite
    /// Write to a new file, or replace only this name of a file that has other names (hard
    /// links). Ends a sentence that begins "Remove the other names first, …".
    case replaceThisNameOnly
    /// Give the key as a raw key (its hex digits alone, without `x'…'`) rather than a
    /// passphrase. Follows "If it is a raw key, ".
    case rawKey

    /// The library's spelling: the parameter or API of the Swift call.
    public var swiftSpelling: String {
        switch self {
        case .overwrite: return "pass `overwrite: true`"
        case .replaceThisNameOnly: return "write to a new file, or pass `replacingOtherLinks: true`"
        case .rawKey: return "use DatabaseKey.rawKey(hex:)"
        }
    }
}
