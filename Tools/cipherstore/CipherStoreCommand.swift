import ArgumentParser
import CipherStore

/// The `cipherstore` command-line tool.
@main
struct CipherStoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cipherstore",
        abstract: "Inspect, encrypt and maintain SQLCipher-encrypted SQLite databases.",
        discussion: """
            Keys are never taken on the command line: argv is visible to every user in `ps` \
            and in shell history. A key file, standard input or environment variable holds the \
            key as its whole content minus one trailing line ending ("\\n" or "\\r\\n"); \
            DatabaseKey.passphrase(keyFileContents:) reads it the same way in a program.

            A file name that starts with "-" is written ./-name.db, or after --.

            Exit codes: \(ExitCodes.everyCode).
            """,
        version: "CipherStore 0.1 (SQLCipher \(SQLCipherLibrary.sqlcipherVersion ?? "missing"), SQLite \(SQLCipherLibrary.sqliteVersion))",
        subcommands: [Demo.self, Info.self, Encrypt.self, Decrypt.self, Rekey.self, Upgrade.self, Verify.self, Settings.self, Query.self, Backup.self, Restore.self, Repair.self, Keys.self]
    )

    /// Handles signals from the first moment, refuses arguments the parser would misread, then parses and runs.
    static func main() {
        Interruption.install()
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let problem = DashedArguments.problem(in: arguments) {
            usageError(problem, arguments: arguments)
        }
        // No path, SQL or option value can be empty; an unset shell variable is the usual cause.
        if arguments.contains("") {
            usageError("An argument is empty (''): no path, SQL or option value can be. Nothing was done. Check for an unset shell variable, such as \"$DB\".",
                       arguments: arguments)
        }
        var command: ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            // Help and --version are "errors" that exit 0; real usage errors honour --json.
            let code = exitCode(for: error)
            if code != .success, JSONOutput.isRequested(in: arguments) {
                JSONOutput.usageFailure(arguments: arguments, message: fullMessage(for: error), exitCode: code.rawValue)
            }
            exit(withError: error)
        }
        do {
            try command.run()
        } catch {
            exit(withError: error)
        }
    }

    /// Reports a usage error (exit 64): on standard error, and as `--json`'s failure object when asked.
    private static func usageError(_ message: String, arguments: [String]) -> Never {
        CommandRunner.report(message)
        if JSONOutput.isRequested(in: arguments) {
            JSONOutput.usageFailure(arguments: arguments, message: message, exitCode: 64)
        }
        Self.exit(withError: ExitCode(64))
    }
}
