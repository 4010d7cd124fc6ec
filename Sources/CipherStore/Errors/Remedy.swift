/// A way out that an error's message offers: an option of the call that failed.
///
/// The library's messages spell each one as the Swift API spells it (``swiftSpelling``). A
/// tool or an app that offers the same choice under its own name renders the same message
/// with its spelling, through ``DatabaseFileError/message(spelling:)`` or
/// ``CipherStoreError/message(spelling:)``, rather than rewriting the text; one that does not
/// offer it returns `nil`, and the message leaves that way out (``DatabaseError``,
/// ``BackupError`` and ``RepairError`` have the same `message(spelling:)`):
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
    /// Convert a file in place instead of into a new file. Ends a sentence that begins
    /// "Choose another output; a conversion replaces its source when you …".
    case inPlace
    /// Salvage the readable rows of a damaged database into a new one. Follows "or ".
    case repair
    /// Find the cipher settings that open a file with a given key. Follows "To find the
    /// settings that open it with this key, ".
    case findSettings
    /// Replace a database that does not open with the key given for it. Follows "then ".
    case replaceUnreadable
    /// Give the key a database opens with now, beside the key of what replaces it. Follows
    /// "give the one it opens with now: ".
    case currentKey
    /// Give a key the way the caller does, and change it with a verified rewrite instead of
    /// `PRAGMA rekey`. A sentence of its own.
    case keyAPI
    /// Give the salt of a file whose first 16 bytes are damaged. Follows "give the salt: ".
    case salt
    /// Make a plaintext copy of an encrypted database. Follows "For a plaintext copy, ".
    case plaintextCopy
    /// Wait longer for another connection's lock. Follows "retry later or ".
    case busyTimeout
    /// Open a file with SQLCipher 3's settings. Follows "which opens only with SQLCipher 3's
    /// settings: ".
    case sqlcipher3Settings
    /// Move a SQLCipher 3 file to SQLCipher 4's format. Follows "and moves to SQLCipher 4's
    /// format with ".
    case upgrade

    /// The library's spelling: the parameter or API of the Swift call.
    public var swiftSpelling: String {
        switch self {
        case .overwrite: return "pass `overwrite: true`"
        case .replaceThisNameOnly: return "write to a new file, or pass `replacingOtherLinks: true`"
        case .rawKey: return "use DatabaseKey.rawKey(hex:)"
        case .inPlace: return "write to `OutputDestination.inPlace()`"
        case .repair: return "salvage its readable rows with `DatabaseRepair`"
        case .findSettings: return "use `CipherSettingsFinder.find(path:key:)`"
        case .replaceUnreadable: return "restore with `replacingUnreadable: true`"
        case .currentKey: return "pass it as `currentKey`"
        case .keyAPI: return "Open with a DatabaseKey, and change keys with DatabaseFile.changeKey."
        case .salt: return "pass it as `CipherSettings.salt`"
        case .plaintextCopy: return "decrypt instead (`DatabaseFile.decrypt`)"
        case .busyTimeout: return "raise `Configuration.busyTimeout`"
        case .sqlcipher3Settings: return "CipherSettings.sqlcipher3"
        case .upgrade: return "DatabaseFile.upgrade"
        }
    }
}
