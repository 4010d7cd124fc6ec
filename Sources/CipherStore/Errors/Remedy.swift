/// A way out that an error's message offers: an option of the call that failed.
///
/// The library's messages spell each one as the Swift API spells it (``swiftSpelling``). A
/// tool or an app that offers the same choice under its own name renders the same message
/// with its spelling, through ``ConversionError/message(spelling:)`` or
/// ``CipherStoreError/message(spelling:)``, rather than rewriting the text:
///
/// ```swift
/// let text = error.message { remedy in
///     switch remedy {
///     case .overwrite: return "tap Replace"
///     case .replaceThisNameOnly: return "save under a new name"
///     case .rawKey: return "Choose “Raw key” for raw keys"
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
    /// Give the key as a raw key rather than a passphrase. Begins a sentence that ends ", or
    /// choose another passphrase."
    case rawKey

    /// The library's spelling: the parameter or API of the Swift call.
    public var swiftSpelling: String {
        switch self {
        case .overwrite: return "pass `overwrite: true`"
        case .replaceThisNameOnly: return "write to a new file, or pass `replacingOtherLinks: true`"
        case .rawKey: return "Use DatabaseKey.rawKey(hex:) for raw keys"
        }
    }
}
