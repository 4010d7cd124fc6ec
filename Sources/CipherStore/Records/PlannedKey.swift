/// A coding key seen on a record's first row (or first insert), recognised again on the next
/// ones without its name: a synthesized `init(from:)` or `encode(to:)` names the same keys in
/// the same order every time, so the n-th key of a plan is usually the n-th key asked for.
///
/// A key of a trivial type (a synthesized `CodingKeys` enum is one byte) is recognised by its
/// bytes, with no `stringValue` and no string comparison; any other key by its name.
struct PlannedKey {
    let keyType: ObjectIdentifier
    /// The key's bytes, when its type is trivial and at most 16 bytes long.
    let bits: KeyBits?
    let name: String

    init<Key: CodingKey>(_ key: Key) {
        self.init(key, name: key.stringValue)
    }

    init<Key: CodingKey>(_ key: Key, name: String) {
        keyType = ObjectIdentifier(Key.self)
        bits = KeyBits(key)
        self.name = name
    }

    /// Whether `key` is this key: the same type and bytes, or, for a key that is not
    /// trivial, the same name.
    @inline(__always)
    func matches<Key: CodingKey>(_ key: Key) -> Bool {
        if let bits { return keyType == ObjectIdentifier(Key.self) && bits == KeyBits(key) }
        return name == key.stringValue
    }
}

/// The bytes of a coding key whose type is trivial (no references, so equal bytes are an equal
/// value) and at most 16 bytes long: a synthesized `CodingKeys` enum, an integer key.
/// Padding bytes may differ between equal values: that only makes a match fail, and the key is
/// then recognised by its name.
struct KeyBits: Equatable {
    private var first: UInt64 = 0
    private var second: UInt64 = 0

    @inline(__always)
    init?<Key>(_ key: Key) {
        let size = MemoryLayout<Key>.size
        guard _isPOD(Key.self), size <= 16 else { return nil }
        withUnsafeBytes(of: key) { bytes in
            for index in 0..<min(size, 8) { first |= UInt64(bytes[index]) << (8 * UInt64(index)) }
            for index in min(size, 8)..<size { second |= UInt64(bytes[index]) << (8 * UInt64(index - 8)) }
        }
    }
}
