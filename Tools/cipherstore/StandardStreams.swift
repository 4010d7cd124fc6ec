// The C streams are global variables: they are used here, from whichever thread, as C
// programs use them (each call locks the stream).
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// Standard output and standard error, written through the C streams `print` uses, so that
/// output keeps its order and a failed write is noticed (a full disk, a closed pipe's reader
/// gone) instead of trapping, as `FileHandle.write(_:)` does.
///
/// Standard output's failures are reported by ``flushOutput()``: a command that printed a
/// result it could not deliver exits 74, never 0. Standard error's are not reported anywhere
/// (there is nowhere left to say them); the command still ends with its own exit code.
enum StandardStreams {
    /// Writes `text` to standard output (buffered).
    static func writeOutput(_ text: String) {
        fputs(text, stdout)
    }

    /// Writes `text` to standard error.
    static func writeError(_ text: String) {
        fputs(text, stderr)
    }

    /// Standard output could not take what was written to it.
    struct OutputFailure: Error {
        /// The system's reason.
        let reason: String

        /// The command's error (exit 74), with what the failure means.
        func error(consequence: String) -> CLIError {
            CLIError(exitCode: ExitCodes.ioFailure,
                     message: "Cannot write to standard output: \(reason). \(consequence) Send the output to a file or pipe with room and run the command again.")
        }
    }

    /// Pushes what standard output holds to its file.
    /// - Throws: ``OutputFailure`` when this or any earlier write to it failed.
    static func flushOutput() throws(OutputFailure) {
        let flushed = fflush(stdout) == 0
        let reason = String(cString: strerror(errno))
        guard flushed, ferror(stdout) == 0 else {
            clearerr(stdout)
            throw OutputFailure(reason: flushed ? "a write failed" : reason)
        }
    }
}
