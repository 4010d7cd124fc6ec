import ArgumentParser
import CipherStore
import Foundation

extension CipherStoreCommand {
    /// `cipherstore verify DATABASE`.
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Open a database with its key, run an integrity check and list its tables.",
            discussion: """
                Never writes. A plaintext database is checked without a key when none is given.

                Examples:
                  cipherstore verify app.db --key-file app.key
                  cipherstore verify app.db --key-env APP_DB_KEY --json

                Exit codes: 0 success, 64 usage error, \(ExitCodes.summary).
                """
        )

        @Argument(help: "The database to check.")
        var database: String

        @OptionGroup var key: KeyOptions
        @OptionGroup(title: "Cipher settings the database was made with") var cipher: CipherOptions

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() throws {
            try CommandRunner.run {
                let plaintext = !key.isGiven && DatabaseFileInfo.inspect(path: database).kind == .plaintext
                let databaseKey = plaintext ? nil : try KeyReader.read(key.source(confirm: false))
                let report = try DatabaseMaintenance.verify(path: database, key: databaseKey, cipher: plaintext ? .libraryDefaults : cipher.settings)
                print(json ? try Summary.json(report) : Summary.text(report))
            }
        }
    }
}
