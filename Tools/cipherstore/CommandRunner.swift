import ArgumentParser
import CipherStore
import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a command body: turns errors into a message on standard error and the documented
/// exit code, and lets Ctrl-C cancel a conversion cleanly.
enum CommandRunner {
    /// With `json`, a failure is also printed as `--json`'s failure object on standard output.
    static func run(json: JSONOutput? = nil, _ body: () throws -> Void) throws {
        do {
            try body()
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
            let message = ErrorText.message(for: error)
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
            case .invalidKey, .invalidConfiguration, .unsupportedCipherSetting, .sqlcipher4Required: return 64
            default: return ExitCodes.ioFailure
            }
        case let error as ConversionError:
            switch error {
            case .alreadyEncrypted, .alreadyPlaintext, .sourceEmpty, .unreadableSchema, .missingModule: return ExitCodes.wrongFileKind
            case .verificationFailed, .damaged: return ExitCodes.verificationFailed
            case .outputExists, .outputIsSource, .backupExists, .sourceHasOtherNames: return 64
            case .cancelled: return ExitCodes.cancelled
            case .sourceMissing, .sourceIsDirectory, .outputDirectoryUnusable, .databaseInUse, .io: return ExitCodes.ioFailure
            }
        default:
            return ExitCodes.ioFailure
        }
    }

    static func report(_ message: String) {
        FileHandle.standardError.write(Data("cipherstore: error: \(message)\n".utf8))
    }

    /// Conversion options wired to a progress bar (when standard error is a terminal and not
    /// quiet) and to Ctrl-C, with `--full-check`.
    static func conversionOptions(_ output: OutputOptions, verb: String) -> (ConversionOptions, ProgressBar?) {
        let cancellation = ConversionCancellation()
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { cancellation.cancel() }
        source.resume()
        interruptSource = source
        let bar = (!output.quiet && isatty(STDERR_FILENO) == 1) ? ProgressBar(verb: verb) : nil
        var progress: (@Sendable (ConversionProgress) -> Void)?
        if let bar { progress = { bar.update($0) } }
        let options = ConversionOptions(progress: progress, cancellation: cancellation, fullReadBack: output.fullCheck)
        return (options, bar)
    }

    nonisolated(unsafe) private static var interruptSource: (any DispatchSourceSignal)?

    /// Prints a line to standard output unless quiet.
    static func say(_ line: String, quiet: Bool) {
        if !quiet { print(line) }
    }
}
