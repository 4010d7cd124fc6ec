/// Names found by their ``StringBits``: a small open-addressing hash table from a name's two
/// words to its position, built once (per statement, or per result layout) and read on every
/// lookup.
///
/// A column or parameter named with the same literal on every row is found with one multiply,
/// one or two loads and two integer compares, whatever its position: no string comparison, no
/// hashing of the characters, no scan. A miss says nothing (another `String` may hold the same
/// characters), so callers fall back to comparing strings.
@usableFromInline
struct StringBitsIndex: Sendable {
    @usableFromInline
    struct Slot: Sendable {
        @usableFromInline let bits: StringBits
        /// The position; negative in a vacant slot.
        @usableFromInline let position: Int

        init(bits: StringBits, position: Int) {
            self.bits = bits
            self.position = position
        }
    }

    /// Power-of-two many slots, at most half of them taken, so a probe always ends.
    @usableFromInline let slots: [Slot]
    /// `64 - log2(slots.count)`: a hash's top bits pick the slot.
    @usableFromInline let shift: UInt64

    /// The names' bits and positions; where two names have the same bits, the first wins.
    init(_ entries: some Sequence<(bits: StringBits, position: Int)>) {
        let entries = Array(entries)
        var count = 4
        while count < entries.count * 2 { count *= 2 }
        var slots = [Slot](repeating: Slot(bits: .vacant, position: -1), count: count)
        let shift = UInt64(64 - count.trailingZeroBitCount)
        for entry in entries {
            var slot = entry.bits.slot(shift: shift)
            while slots[slot].position >= 0 && slots[slot].bits != entry.bits { slot = (slot + 1) & (count - 1) }
            if slots[slot].position < 0 { slots[slot] = Slot(bits: entry.bits, position: entry.position) }
        }
        self.slots = slots
        self.shift = shift
    }

    /// The position of the name whose bits these are, or `nil` (see the type's note on misses).
    @inlinable
    func position(of bits: StringBits) -> Int? {
        slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var slot = bits.slot(shift: shift)
            while true {
                let entry = slots[slot]
                if entry.position < 0 { return nil }
                if entry.bits == bits { return entry.position }
                slot = (slot + 1) & mask
            }
        }
    }
}

/// The two words a `String` is made of, on 64-bit platforms. Equal words are the same string:
/// the same inline bytes of a short string (up to 15 UTF-8 bytes, stored in the words
/// themselves), or the same storage of a long one. Unequal words say nothing, so a match is
/// only ever a shortcut.
@usableFromInline
struct StringBits: Equatable, Sendable {
    @usableFromInline let first: UInt64
    @usableFromInline let second: UInt64

    /// `nil` where a `String` is not two 64-bit words (32-bit platforms such as arm64_32).
    @inlinable
    init?(_ string: String) {
        #if _pointerBitWidth(_64)
        (first, second) = unsafeBitCast(string, to: (UInt64, UInt64).self)
        #else
        return nil
        #endif
    }

    private init(first: UInt64, second: UInt64) {
        self.first = first
        self.second = second
    }

    /// The bits of an empty slot: no `String` is two zero words (an empty string's second
    /// word has its small-string flags set). Vacant slots also carry a negative position.
    static let vacant = StringBits(first: 0, second: 0)

    /// A slot among `1 << (64 - shift)`: both words mixed by multiplying (Fibonacci hashing),
    /// the top bits kept.
    @inlinable
    func slot(shift: UInt64) -> Int {
        Int(truncatingIfNeeded: ((first ^ (second &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9) >> shift)
    }
}
