/// The key of an encrypted database: a passphrase or a raw 256-bit key.
///
/// A passphrase is used as the exact UTF-8 bytes given — no Unicode normalisation, no trimming —
/// so "é" typed as one code point and as "e" + combining accent are different keys. SQLCipher
/// derives the encryption key from it with PBKDF2 (64,000 iterations by default in SQLCipher 3),
/// which costs tens of milliseconds per open. A raw key skips the derivation.
///
/// ```swift
/// let key = try DatabaseKey.passphrase("correct horse battery staple")
/// let raw = try DatabaseKey.rawKey(hex: "2DD29CA851E7B56E4697B0E1F08507293D761A05CE4D1B628663F411A8086D99")
/// ```
///
/// Key bytes are kept in one buffer that is wiped when the key is released, and reach SQLCipher
/// only through `sqlite3_key_v2` / `sqlite3_rekey_v2`, never through SQL text. A Swift `String`
/// passed to ``passphrase(_:)`` cannot be wiped by CipherStore; read keys into a byte array and
/// use ``passphrase(bytes:)`` where that matters. A key stored in a key file (as `cipherstore`
/// reads it: the whole content minus one trailing line ending) comes from
/// ``passphrase(keyFileContents:)`` or ``rawKey(hexKeyFileContents:)``.
///
/// `description` and `debugDescription` never show key material.
public final class DatabaseKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// What kind of key this is.
    public enum Kind: String, Sendable {
        /// A passphrase, stretched by SQLCipher's KDF.
        case passphrase
        /// A raw 256-bit key, used directly (the salt is read from the file).
        case rawKey
        /// A raw 256-bit key with its 128-bit salt.
        case rawKeyWithSalt
    }

    /// The kind of key.
    public let kind: Kind

    /// The bytes handed to `sqlite3_key_v2`: the passphrase, or `x'<hex>'` for raw keys.
    let material: SecureBytes

    private init(kind: Kind, material: SecureBytes) {
        self.kind = kind
        self.material = material
    }

    /// A passphrase, as its UTF-8 bytes.
    ///
    /// - Throws: ``CipherStoreError/invalidKey(reason:)`` when the passphrase is empty (SQLCipher
    ///   would silently create a plaintext file); ``CipherStoreError/passphraseShapedLikeRawKey``
    ///   when it has the form `x'…'` of a raw key (SQLCipher would read it as a raw key, not as
    ///   a passphrase).
    public static func passphrase(_ passphrase: String) throws -> DatabaseKey {
        var utf8 = Array(passphrase.utf8)
        defer { utf8.withUnsafeMutableBytes { SecureMemory.wipe($0) } }
        return try Self.passphrase(bytes: utf8)
    }

    /// A passphrase given as raw bytes (usually UTF-8), used exactly as given: a line ending at
    /// the end is part of the passphrase. For the content of a key file, use
    /// ``passphrase(keyFileContents:)``, which drops one trailing line ending as `cipherstore` does.
    ///
    /// The bytes are copied; wipe your own copy when done.
    /// - Throws: ``CipherStoreError/invalidKey(reason:)`` or
    ///   ``CipherStoreError/passphraseShapedLikeRawKey``, as ``passphrase(_:)``.
    public static func passphrase(bytes: some Collection<UInt8>) throws -> DatabaseKey {
        guard !bytes.isEmpty else {
            throw CipherStoreError.invalidKey(reason: "the passphrase is empty; SQLCipher would create an unencrypted database with it. Choose a non-empty passphrase.")
        }
        if looksLikeRawKey(bytes) {
            throw CipherStoreError.passphraseShapedLikeRawKey
        }
        let material = SecureBytes(count: bytes.count) { buffer in
            buffer.copyBytes(from: bytes)
        }
        return DatabaseKey(kind: .passphrase, material: material)
    }

    /// A raw 256-bit key, optionally with the 128-bit salt of the database.
    ///
    /// - Throws: ``CipherStoreError/invalidKey(reason:)`` when the key is not 32 bytes or the
    ///   salt not 16 bytes.
    public static func rawKey(_ key: some Collection<UInt8>, salt: (some Collection<UInt8>)? = [UInt8]?.none) throws -> DatabaseKey {
        guard key.count == 32 else {
            throw CipherStoreError.invalidKey(reason: "a raw key must be 32 bytes (256 bits), got \(key.count). Generate one with a secure random source.")
        }
        if let salt, salt.count != 16 {
            throw CipherStoreError.invalidKey(reason: "a raw key's salt must be 16 bytes (128 bits), got \(salt.count).")
        }
        let hexCount = (key.count + (salt?.count ?? 0)) * 2
        let material = SecureBytes(count: hexCount + 3) { buffer in
            var position = 0
            func put(_ byte: UInt8) { buffer[position] = byte; position += 1 }
            put(UInt8(ascii: "x")); put(UInt8(ascii: "'"))
            for byte in key { put(hexDigit(byte >> 4)); put(hexDigit(byte & 0x0F)) }
            if let salt { for byte in salt { put(hexDigit(byte >> 4)); put(hexDigit(byte & 0x0F)) } }
            put(UInt8(ascii: "'"))
        }
        return DatabaseKey(kind: salt == nil ? .rawKey : .rawKeyWithSalt, material: material)
    }

    /// A raw key written as 64 hexadecimal digits (key), or 96 (key then salt).
    ///
    /// - Throws: ``CipherStoreError/invalidKey(reason:)`` when the text is not 64 or 96 hex digits.
    public static func rawKey(hex: some Collection<UInt8>) throws -> DatabaseKey {
        guard hex.count == 64 || hex.count == 96 else {
            throw CipherStoreError.invalidKey(reason: "a raw key must be 64 hexadecimal digits (or 96 with its salt), got \(hex.count) characters.")
        }
        var bytes = [UInt8](repeating: 0, count: hex.count / 2)
        defer { bytes.withUnsafeMutableBytes { SecureMemory.wipe($0) } }
        var high: UInt8? = nil
        var index = 0
        for character in hex {
            guard let nibble = hexValue(character) else {
                throw CipherStoreError.invalidKey(reason: "a raw key must contain only hexadecimal digits (0-9, a-f).")
            }
            if let h = high {
                bytes[index] = h << 4 | nibble
                index += 1
                high = nil
            } else {
                high = nibble
            }
        }
        if bytes.count == 48 {
            return try rawKey(bytes[0..<32], salt: bytes[32..<48])
        }
        return try rawKey(bytes)
    }

    /// A raw key written as hexadecimal text. See ``rawKey(hex:)-(Collection<UInt8>)``.
    public static func rawKey(hex: String) throws -> DatabaseKey {
        var utf8 = Array(hex.utf8)
        defer { utf8.withUnsafeMutableBytes { SecureMemory.wipe($0) } }
        return try rawKey(hex: utf8)
    }

    public var description: String { "DatabaseKey(\(kind.rawValue), redacted)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [:]) }

    /// Calls `body` with the bytes to give `sqlite3_key_v2`.
    func withKeyBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try material.withUnsafeBytes(body)
    }

    /// A raw key's 32 bytes, in a buffer of their own, and its salt if it has one. Throws
    /// ``CipherStoreError/invalidKey(reason:)`` for a passphrase.
    func rawKeyBytes() throws -> (key: SecureBytes, salt: [UInt8]?) {
        guard kind != .passphrase else {
            throw CipherStoreError.invalidKey(reason: "a passphrase has no raw key bytes; derive them from it first.")
        }
        // The material is x'<64 hex digits of the key><32 of the salt, if any>'.
        return material.withUnsafeBytes { text in
            let digits = text.dropFirst(2).dropLast()
            func byte(at index: Int) -> UInt8 {
                let start = digits.startIndex + index * 2
                return (Self.hexValue(digits[start]) ?? 0) << 4 | (Self.hexValue(digits[start + 1]) ?? 0)
            }
            let key = SecureBytes(count: 32) { buffer in
                for index in 0..<32 { buffer[index] = byte(at: index) }
            }
            let salt = digits.count == 96 ? (32..<48).map(byte(at:)) : nil
            return (key, salt)
        }
    }

    /// SQLCipher 3 reads a key of the form x'<64 or 96 hex>' as raw key material.
    private static func looksLikeRawKey(_ bytes: some Collection<UInt8>) -> Bool {
        let count = bytes.count
        guard count >= 3 else { return false }
        for (position, byte) in bytes.enumerated() {
            let fits: Bool
            switch position {
            case 0: fits = byte == UInt8(ascii: "x") || byte == UInt8(ascii: "X")
            case 1, count - 1: fits = byte == UInt8(ascii: "'")
            default: fits = hexValue(byte) != nil
            }
            if !fits { return false }
        }
        return true
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    private static func hexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return character - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
