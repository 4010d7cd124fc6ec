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
        var inPlace: String? = "pass --in-place"
        var repair: String? = "salvage its readable rows with `cipherstore repair`"
        var findSettings: String? = "run `cipherstore settings` on it"
        var replaceUnreadable: String? = nil
        var currentKey: String? = nil
        var keyAPI: String? = "Give the key with --key-file, --key-env or --key-stdin; change it with `cipherstore rekey`."
        var salt: String? = "pass --salt"
        var plaintextCopy: String? = "run `cipherstore decrypt`"
        var busyTimeout: String? = nil
        var sqlcipher3Settings: String? = "--sqlcipher3"
        var upgrade: String? = "`cipherstore upgrade`"

        func spelling(_ remedy: Remedy) -> String? {
            switch remedy {
            case .overwrite: return overwrite
            case .replaceThisNameOnly: return replaceThisNameOnly
            case .rawKey: return rawKey
            case .inPlace: return inPlace
            case .repair: return repair
            case .findSettings: return findSettings
            case .replaceUnreadable: return replaceUnreadable
            case .currentKey: return currentKey
            case .keyAPI: return keyAPI
            case .salt: return salt
            case .plaintextCopy: return plaintextCopy
            case .busyTimeout: return busyTimeout
            case .sqlcipher3Settings: return sqlcipher3Settings
            case .upgrade: return upgrade
            }
        }

        /// encrypt, decrypt, rekey, upgrade: `--output`, `--force` and `--in-place`.
        static let conversions = Remedies()
        /// backup: always another file.
        static let backup = Remedies(inPlace: nil)
        /// repair: another file, and it is the salvage itself.
        static let repairing = Remedies(inPlace: nil, repair: nil)
        /// restore: `--force` replaces this name of a database with other names, or a
        /// database its key does not open; `--old-key-*` gives that database's key.
        static let restore = Remedies(overwrite: nil, replaceThisNameOnly: "pass --force", inPlace: nil,
                                      replaceUnreadable: "run the restore again with --force",
                                      currentKey: "give it with --old-key-file, --old-key-stdin or --old-key-env")
        /// keys init, keys rotate and encrypt --key-slots rewrite in place, without `--force`.
        static let inPlaceOnly = Remedies(overwrite: nil, replaceThisNameOnly: nil, inPlace: nil)
    }

    static func message(for error: any Error, remedies: Remedies = .conversions) -> String {
        switch error {
        case let error as CLIError:
            return error.message
        case let error as DatabaseFileError:
            return error.message(spelling: remedies.spelling)
        case let error as CipherStoreError:
            return error.message(spelling: remedies.spelling)
        case let error as BackupError:
            return error.message(spelling: remedies.spelling)
        case let error as RepairError:
            return error.message(spelling: remedies.spelling)
        case let error as DatabaseError:
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
