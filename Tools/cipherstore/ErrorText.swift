import CipherStore
import Foundation

/// The text the tool prints for an error: the library's message, with each way out it offers
/// (a ``Remedy``) spelled as the running command's option for it, or left out where the
/// command has none.
enum ErrorText {
    /// The options a command offers for the library's remedies (WordingTests run the tool into
    /// each); `nil` where the command has none.
    struct Remedies {
        var overwrite: String? = "pass --force"
        var replaceThisNameOnly: String? = "write to a new file with --output, or pass --force"
        var rawKey: String? = "pass --raw-key"

        func spelling(_ remedy: Remedy) -> String? {
            switch remedy {
            case .overwrite: return overwrite
            case .replaceThisNameOnly: return replaceThisNameOnly
            case .rawKey: return rawKey
            }
        }

        /// encrypt, decrypt, rekey, upgrade, backup, repair: `--output` and `--force`.
        static let conversions = Remedies()
        /// restore: `--force` replaces this name of a database with other names.
        static let restore = Remedies(overwrite: nil, replaceThisNameOnly: "pass --force")
        /// keys init, keys rotate and encrypt --key-slots rewrite in place, without `--force`.
        static let inPlaceOnly = Remedies(overwrite: nil, replaceThisNameOnly: nil)
    }

    static func message(for error: any Error, remedies: Remedies = .conversions) -> String {
        switch error {
        case let error as CLIError:
            return error.message
        case let error as ConversionError:
            return error.message(spelling: remedies.spelling)
        case let error as CipherStoreError:
            return error.message(spelling: remedies.spelling)
        default:
            return String(describing: error)
        }
    }

    /// What is wrong with a key the user gave with `source`'s options, worded for the tool;
    /// `nil` when the error is not about the key itself.
    static func keyProblem(_ error: any Error, rawKeyOption: String) -> String? {
        let remedies = Remedies(rawKey: "pass \(rawKeyOption)")
        return (error as? CipherStoreError)?.keyProblem(spelling: remedies.spelling)
    }
}
