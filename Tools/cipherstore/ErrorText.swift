import CipherStore
import Foundation

/// The text the tool prints for an error: the error's own description, with the library's
/// Swift spelling of a choice replaced by the tool's option for it.
enum ErrorText {
    /// Library wording → the tool's (WordingTests run the tool into each).
    static let optionSpellings: [(library: String, tool: String)] = [
        ("pass `overwrite: true`", "pass --force"),
        ("write to a new file, or pass `replacingOtherLinks: true`", "write to a new file with --output, or pass --force"),
        ("Use DatabaseKey.rawKey(hex:) for raw keys", "Give a raw key with --raw-key"),
    ]

    /// `text` with the library's spellings replaced by the tool's options.
    static func toolWording(_ text: String) -> String {
        optionSpellings.reduce(text) { $0.replacingOccurrences(of: $1.library, with: $1.tool) }
    }

    static func message(for error: any Error) -> String {
        switch error {
        case let error as CLIError:
            return error.message
        case let error as ConversionError:
            return toolWording(error.description)
        default:
            return String(describing: error)
        }
    }
}
