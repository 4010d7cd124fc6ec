import CipherStore
import Foundation

/// The text the tool prints for an error: the library's message, with each way out it offers
/// (a ``Remedy``) spelled as the tool's option for it.
enum ErrorText {
    /// The tool's spelling of a remedy (WordingTests run the tool into each).
    static func spelling(_ remedy: Remedy) -> String {
        switch remedy {
        case .overwrite: return "pass --force"
        case .replaceThisNameOnly: return "write to a new file with --output, or pass --force"
        case .rawKey: return "Give a raw key with --raw-key"
        }
    }

    static func message(for error: any Error) -> String {
        switch error {
        case let error as CLIError:
            return error.message
        case let error as ConversionError:
            return error.message(spelling: spelling)
        case let error as CipherStoreError:
            return error.message(spelling: spelling)
        default:
            return String(describing: error)
        }
    }

    /// What is wrong with a key the user gave, worded for the tool; `nil` when the error is
    /// not about the key itself.
    static func keyProblem(_ error: any Error) -> String? {
        (error as? CipherStoreError)?.keyProblem(spelling: spelling)
    }
}
