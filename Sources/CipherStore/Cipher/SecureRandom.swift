/// Random bytes from the system's cryptographically secure generator: salts, data keys,
/// slot-file ids, recovery keys. The one place that draws them.
@_spi(Tools)
public enum SecureRandom {
    /// `count` random bytes.
    public static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// `count` random bytes written straight into `buffer`, never into an array that could be
    /// copied (for secrets kept in ``SecureBytes``).
    static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        var generator = SystemRandomNumberGenerator()
        for index in buffer.indices { buffer[index] = UInt8.random(in: .min ... .max, using: &generator) }
    }
}
