import ArgumentParser
import CipherStore
import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Runs a command body: turns errors into a message on standard error and the documented
/// exit code, and lets Ctrl-C, SIGTERM and SIGHUP cancel a conversion cleanly (see ``Interruption``).
enum CommandRunner {
    /// With `json`, a failure is also printed as `--json`'s failure object on standard output.
    /// `remedies` are the command's options for the ways out the library's messages offer.
    static func run(json: JSONOutput? = nil, remedies: ErrorText.Remedies = .conversions, _ body: () throws -> Void) throws {
        do {
            try body()
            // A result that did not reach standard output was not delivered.
            do throws(StandardStreams.OutputFailure) {
                try StandardStreams.flushOutput()
            } catch {
                throw error.error(consequence: "What the command printed there is incomplete.")
            }
        } catch let error as CLIError {
            report(error.message)
            json?.fail(error, message: error.message, exitCode: error.exitCode)
            throw ExitCode(error.exitCode)
        } catch let error as ExitCode {
            throw error
        } catch let error as ValidationError {
            json?.fail(CLIError(exitCode: 64, message: error.message), message: error.message, exitCode: 64)
            throw error
        } catch {
            var message = ErrorText.message(for: error, remedies: remedies)
            if case CipherStoreError.wrongKey(let path) = error, let settings = SlotDatabase.settingsMessage(for: path) { message = settings }
            report(message)
            json?.fail(error, message: message, exitCode: exitCode(for: error))
            throw ExitCode(exitCode(for: error))
        }
    }

    static func exitCode(for error: any Error) -> Int32 {
        switch error {
        case let error as CipherStoreError:
            switch error {
            case .wrongKey: return ExitCodes.wrongKey
            case .notEncrypted, .encryptedWithoutKey, .notADatabase: return ExitCodes.wrongFileKind
            case .invalidKey, .passphraseShapedLikeRawKey, .invalidConfiguration, .unsupportedCipherSetting, .sqlcipher4Required: return 64
            default: return ExitCodes.ioFailure
            }
        case let error as DatabaseFileError:
            switch error {
            case .alreadyEncrypted, .alreadyPlaintext, .sourceEmpty, .unreadableSchema, .missingModule, .missingFunction, .missingCollation: return ExitCodes.wrongFileKind
            case .verificationFailed, .damaged, .keysNotUnique, .indexesNotInAppOrder: return ExitCodes.verificationFailed
            case .outputExists, .outputIsSource, .outputIsDirectory, .backupExists, .sourceHasOtherNames: return 64
            case .cancelled: return Interruption.exitCode
            case .sourceMissing, .sourceIsDirectory, .notARegularFile, .outputDirectoryUnusable, .sourceDirectoryNotWritable, .databaseInUse, .replacedByAnotherConversion, .ownerCannotBeKept,
                 .io: return ExitCodes.ioFailure
            }
        case let error as KeySlotError:
            switch error {
            case .recoveryKeyMistyped: return ExitCodes.wrongKey
            case .notASlotFile, .unsupportedVersion, .belongsToAnotherDatabase: return ExitCodes.wrongFileKind
            case .damaged, .kdfParametersOutOfRange: return ExitCodes.verificationFailed
            case .slotFileMissing, .readBackFailed: return ExitCodes.ioFailure
            case .lastSlot, .noSuchSlot, .removalNeedsAnotherSlot, .slotFileExists, .leftoverSlotFile, .tooManySlots, .passphraseAlreadyInSlot, .invalidLabel,
                 .invalidKDF, .nothingToKeep, .changeWouldBeUnreadable, .noRoomForRotation: return 64
            case .rotationLeftOldSlots: return ExitCodes.notDurable
            }
        case let error as RepairError:
            switch error {
            case .nothingReadable: return ExitCodes.wrongKey
            case .notEncrypted: return ExitCodes.wrongFileKind
            }
        case let error as BackupError:
            switch error {
            case .plaintextRefused: return 64
            case .journalAndLogBeside: return ExitCodes.ioFailure
            case .sourceNotEncrypted: return ExitCodes.wrongFileKind
            case .targetUnreadable: return ExitCodes.wrongKey
            case .targetDamaged: return ExitCodes.verificationFailed
            case .copyFailed, .slotFileChanged: return ExitCodes.ioFailure
            case .restoredWithOldSlotFile: return ExitCodes.notDurable
            }
        case is NotDurableError:
            return ExitCodes.notDurable
        case let error as DatabaseError where [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode.primaryResultCode):
            // SQLite found the file damaged where the library could not say more.
            return ExitCodes.verificationFailed
        default:
            return ExitCodes.ioFailure
        }
    }

    static func report(_ message: String) {
        ProgressBar.endOpenLine()
        StandardStreams.writeError("cipherstore: error: \(message)\n")
    }

    /// Conversion options wired to a progress bar (when standard error is a terminal and not
    /// quiet) and to Ctrl-C, SIGTERM and SIGHUP, with `--full-check`.
    static func conversionOptions(_ output: OutputOptions, verb: String) -> (DatabaseFileOptions, ProgressBar?) {
        conversionOptions(quiet: output.quiet, fullCheck: output.fullCheck, verb: verb,
                          pageCacheBytes: output.pageCacheMib.map { $0 << 20 })
    }

    /// The same, for commands that rewrite a database without `OutputOptions` (`keys init`, `keys rotate`).
    static func conversionOptions(quiet: Bool, fullCheck: Bool, verb: String,
                                  pageCacheBytes: Int? = nil) -> (DatabaseFileOptions, ProgressBar?) {
        let cancellation = DatabaseFileCancellation()
        Interruption.cancelOnSignal(cancellation)
        let bar = (!quiet && isatty(STDERR_FILENO) == 1) ? ProgressBar(verb: verb) : nil
        var progress: (@Sendable (DatabaseFileProgress) -> Void)?
        if let bar { progress = { bar.update($0) } }
        let options = DatabaseFileOptions(progress: progress, cancellation: cancellation,
                                        pageCacheBytes: pageCacheBytes ?? DatabaseFileOptions.defaultPageCacheBytes,
                                        fullReadBack: fullCheck)
        return (options, bar)
    }

    /// Removes what conversions to the same output left when they were killed (SIGKILL, a
    /// crash) and says so: for a decryption, such a leftover is plaintext.
    static func removeLeftovers(source: String, destination: OutputDestination) {
        let removed = DatabaseFile.removeLeftoverTemporaryFiles(source: source, destination: destination)
        guard !removed.isEmpty else { return }
        warn("removed \(Summary.counted(removed.count, "leftover temporary file")) of an earlier interrupted run: \(removed.joined(separator: ", ")).")
    }

    /// Prints a line to standard output unless quiet.
    static func say(_ line: String, quiet: Bool) {
        if !quiet { print(line) }
    }
}
