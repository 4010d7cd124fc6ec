/// Where a conversion writes its result.
public enum OutputDestination: Sendable, Hashable {
    /// A new file. An existing file is replaced only when `overwrite` is true; the source
    /// itself is never accepted.
    case file(String, overwrite: Bool = false)
    /// Replace the source: the result is written beside it, verified, and renamed over it in
    /// one atomic step. With `backup`, the original stays under that path (a hard link, no
    /// copy) — for `encrypt`, that backup is plaintext.
    ///
    /// A symbolic link is followed: the file it names is replaced. A file with other names
    /// (hard links) is refused, since those names would keep the old contents — plaintext, or
    /// readable with the old key — unless `replacingOtherLinks` is true, which replaces this
    /// name only.
    case inPlace(backup: String? = nil, replacingOtherLinks: Bool = false)
}
