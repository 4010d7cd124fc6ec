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

            Exit codes: 0 success, 64 usage error, \(ExitCodes.summary).
            """,
        version: "CipherStore 0.1 (SQLCipher \(SQLCipherLibrary.sqlcipherVersion ?? "missing"), SQLite \(SQLCipherLibrary.sqliteVersion))",
        subcommands: [Demo.self, Info.self, Encrypt.self, Decrypt.self, Rekey.self, Upgrade.self, Verify.self, Query.self, Keys.self]
    )

    /// Handles signals from the first moment, refuses arguments the parser would misread, then parses and runs.
    static func main() {
        Interruption.install()
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let problem = DashedArguments.problem(in: arguments) {
            CommandRunner.report(problem)
            Self.exit(withError: ExitCode(64))
        }
        // No path, SQL or option value can be empty; an unset shell variable is the usual cause.
        if arguments.contains("") {
            CommandRunner.report("An argument is empty (''): no path, SQL or option value can be. Nothing was done. Check for an unset shell variable, such as \"$DB\".")
            Self.exit(withError: ExitCode(64))
        }
        main(arguments)
    }
}
