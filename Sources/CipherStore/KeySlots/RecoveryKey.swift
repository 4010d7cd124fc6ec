import Crypto

/// Recovery keys: 184 random bits and a 16-bit checksum, written as 40 base32 characters in
/// eight groups of five (`ABCDE-FGHIJ-…`), which a person can copy by hand.
enum RecoveryKey {
    static let secretByteCount = 23
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// What a text typed as a passphrase is, read as a recovery key.
    enum Reading {
        /// A recovery key with a matching checksum: its secret.
        case valid(SecureBytes)
        /// The form of a recovery key, but the checksum does not match.
        case mistyped
        /// Not the form of a recovery key.
        case notARecoveryKey
    }

    /// A new random secret and its text.
    static func generate() -> (secret: SecureBytes, text: String) {
        let secret = SecureBytes(count: secretByteCount) { SecureRandom.fill($0) }
        var bytes = secret.withUnsafeBytes { Array($0) } + checksum(secret)
        defer { bytes.withUnsafeMutableBytes { SecureMemory.wipe($0) } }
        var characters: [UInt8] = []
        var buffer = 0, bits = 0
        for byte in bytes {
            buffer = buffer << 8 | Int(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                characters.append(alphabet[(buffer >> bits) & 31])
            }
        }
        let groups = stride(from: 0, to: characters.count, by: 5).map { String(decoding: characters[$0..<($0 + 5)], as: UTF8.self) }
        return (secret, groups.joined(separator: "-"))
    }

    /// Digits that are read as the letters they are mistaken for (the alphabet has no 0, 1, 8).
    private static let lookalikes: [UInt8: UInt8] = [UInt8(ascii: "0"): UInt8(ascii: "O"), UInt8(ascii: "1"): UInt8(ascii: "I"),
                                                      UInt8(ascii: "8"): UInt8(ascii: "B")]

    /// Reads typed text as a recovery key: case, spaces and dashes do not matter, and 0, 1
    /// and 8 are read as O, I and B. Text in groups like a recovery key's but with a character
    /// too many or too few is `.mistyped`.
    static func read(_ typed: UnsafeRawBufferPointer) -> Reading {
        var values: [UInt8] = []
        defer { values.withUnsafeMutableBytes { SecureMemory.wipe($0) } }
        var separators = 0
        for byte in typed {
            if byte == UInt8(ascii: "-") || byte == UInt8(ascii: " ") {
                separators += 1
                continue
            }
            let upper = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) ? byte - 32 : byte
            guard let value = alphabet.firstIndex(of: lookalikes[upper] ?? upper) else { return .notARecoveryKey }
            values.append(UInt8(value))
        }
        guard values.count == 40 else {
            // Seven separators and about 40 characters: a recovery key with a slip of the hand.
            return separators >= 7 && (36...44).contains(values.count) ? .mistyped : .notARecoveryKey
        }
        var bytes: [UInt8] = []
        defer { bytes.withUnsafeMutableBytes { SecureMemory.wipe($0) } }
        var buffer = 0, bits = 0
        for value in values {
            buffer = (buffer << 5 | Int(value)) & 0xFFFF
            bits += 5
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8((buffer >> bits) & 0xFF))
            }
        }
        let secret = SecureBytes(count: secretByteCount) { $0.copyBytes(from: bytes[0..<secretByteCount]) }
        guard checksum(secret) == Array(bytes[secretByteCount...]) else { return .mistyped }
        return .valid(secret)
    }

    private static func checksum(_ secret: SecureBytes) -> [UInt8] {
        var hash = SHA256()
        hash.update(data: Array("cipherstore recovery key".utf8))
        secret.withUnsafeBytes { hash.update(bufferPointer: $0) }
        return Array(hash.finalize().prefix(2))
    }
}
