import ArgumentParser
import CipherStore
import Foundation

extension CipherStoreCommand {
    /// `cipherstore verify DATABASE`.
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Open a database with its key, run an integrity check and list its tables.",
            discussion: """
                Never changes the content. As any SQLite open, it rolls back a hot journal left \
                by a crash and checkpoints a pending WAL log when it closes. A plaintext \
                database is checked without a key when none is given.

                Examples:
                  cipherstore verify app.db --key-file app.key
                  cipherstore verify app.db --key-env APP_DB_KEY --json

                \(SlotDatabase.help)

                \(JSONOutput.help)

                Exit codes: 0 success, 64 usage error, \(ExitCodes.summary).
                """
        )

        @Argument(help: "The database to check.", completion: .file())
        var database: String

        @OptionGroup var key: KeyOptions
        @OptionGroup(title: "Cipher settings the database was made with") var cipher: CipherOptions

        @Flag(help: "Print nothing but errors and warnings: the exit code says whether the check passed.")
        var quiet = false

        @Flag(help: "Print one JSON object on standard output, on failure too (see below).")
        var json = false

        func run() throws {
            let output = json ? JSONOutput(command: "verify", path: database) : nil
            try CommandRunner.run(json: output) {
                // No key is asked for a plaintext file, nor for one that is not there to open.
                let kind = DatabaseFileInfo.inspect(path: database).kind
                let plaintext = !key.isGiven && [.plaintext, .missing, .directory, .empty, .notARegularFile].contains(kind)
                let databaseKey = plaintext ? nil : try SlotDatabase.openingKey(for: database, from: key.source(confirm: false))
                let report = try DatabaseFile.verify(path: database, key: databaseKey, cipher: plaintext ? .libraryDefaults : cipher.settings)
                if let output { output.succeed(Summary.fields(report)) } else { CommandRunner.say(Summary.text(report), quiet: quiet) }
                Summary.placeholderWarning(report.placeholderCollations, .check).map(warn)
                Summary.functionWarning(report.functionsNotChecked).map(warn)
                Summary.sideFileWarning(report).map(warn)
            }
        }
    }
}
