/// Keys read from key files, by the rule `cipherstore` uses for its key files, standard input,
/// environment variables and prompt.
///
/// **The rule:** the key is the whole content, minus one line ending at the very end — `"\n"`
/// or `"\r\n"`. Nothing else is trimmed: spaces, tabs, a second line ending and line endings
/// inside are part of the key. So `printf 'secret\n' > app.key` and `printf 'secret' > app.key`
/// hold the same key, and a database made with `cipherstore encrypt --key-file app.key` opens
/// in a program with:
///
/// ```swift
/// let key = try DatabaseKey.passphrase(keyFileContents: Data(contentsOf: keyFileURL))
/// ```
extension DatabaseKey {
    /// A passphrase from the content of a key file: the whole content minus one trailing
    /// `"\n"` or `"\r\n"` (see the rule above). ``passphrase(bytes:)`` takes its bytes as they are.
    ///
    /// The bytes are copied; wipe your own copy when done.
    /// - Throws: ``CipherStoreError/invalidKey(reason:)`` when nothing is left, or as ``passphrase(bytes:)``.
    public static func passphrase(keyFileContents: some BidirectionalCollection<UInt8>) throws -> DatabaseKey {
        let key = withoutTrailingLineEnd(keyFileContents)
        guard !key.isEmpty else { throw emptyKeyFile }
        return try passphrase(bytes: key)
    }

    /// A raw key from the content of a key file holding 64 (or 96) hexadecimal digits, read by
    /// the same rule as ``passphrase(keyFileContents:)``.
    ///
    /// - Throws: ``CipherStoreError/invalidKey(reason:)`` when nothing is left, or as ``rawKey(hex:)-(Collection<UInt8>)``.
    public static func rawKey(hexKeyFileContents: some BidirectionalCollection<UInt8>) throws -> DatabaseKey {
        let hex = withoutTrailingLineEnd(hexKeyFileContents)
        guard !hex.isEmpty else { throw emptyKeyFile }
        return try rawKey(hex: hex)
    }

    /// The content minus one trailing `"\n"` or `"\r\n"`; no copy.
    static func withoutTrailingLineEnd<Bytes: BidirectionalCollection<UInt8>>(_ bytes: Bytes) -> Bytes.SubSequence {
        var end = bytes.endIndex
        guard end > bytes.startIndex, bytes[bytes.index(before: end)] == UInt8(ascii: "\n") else { return bytes[...] }
        end = bytes.index(before: end)
        if end > bytes.startIndex, bytes[bytes.index(before: end)] == UInt8(ascii: "\r") { end = bytes.index(before: end) }
        return bytes[..<end]
    }

    private static var emptyKeyFile: CipherStoreError {
        .invalidKey(reason: "it is empty once its trailing line ending is dropped. Give a non-empty key.")
    }
}
