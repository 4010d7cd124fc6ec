import CipherStore
import Foundation

/// What the `keys` commands print about slots: never a secret.
extension Summary {
    /// "slot 2: passphrase 'laptop', scrypt(N=2^15, r=8, p=1), created 2026-11-22T22:10:04Z".
    static func text(_ slot: KeySlotInfo) -> String {
        var text = "slot \(slot.id): \(slot.kind.rawValue)"
        if !slot.label.isEmpty { text += " '\(printable(slot.label))'" }
        text += ", \(slot.kdf), created \(timestamp(slot.created))"
        if !slot.opensCurrentDatabase { text += " (opens no longer: left by an interrupted data-key rotation)" }
        return text
    }

    /// `text` with control characters shown as `\u{…}` escapes: a label never reaches the
    /// terminal as an escape sequence or a line break (the parser refuses such labels too).
    static func printable(_ text: String) -> String {
        String(text.unicodeScalars.flatMap { scalar -> [Character] in
            [.control, .format, .lineSeparator, .paragraphSeparator].contains(scalar.properties.generalCategory)
                ? Array("\\u{\(String(scalar.value, radix: 16))}") : [Character(scalar)]
        })
    }

    /// A slot as a `--json` object.
    static func fields(_ slot: KeySlotInfo) -> [String: Any] {
        ["id": slot.id, "kind": slot.kind == .passphrase ? "passphrase" : "recoveryKey", "label": slot.label,
         "kdf": slot.kdf, "created": timestamp(slot.created), "opensCurrentDatabase": slot.opensCurrentDatabase]
    }

    /// The slots that open the database now: what `info` counts.
    static func openingSlots(_ slots: [KeySlotInfo]) -> Int {
        slots.filter(\.opensCurrentDatabase).count
    }

    static func timestamp(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }

    /// "12.3 ms".
    static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.1f ms", millisecondsValue(duration))
    }

    /// Milliseconds to one decimal, for `--json`.
    static func millisecondsValue(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return ((Double(seconds) * 1000 + Double(attoseconds) / 1e15) * 10).rounded() / 10
    }
}
