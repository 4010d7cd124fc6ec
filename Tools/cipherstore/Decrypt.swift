import ArgumentParser
import CipherStore

extension CipherStoreCommand {
    /// `cipherstore decrypt SOURCE`: an encrypted database into a plaintext one.
    struct Decrypt: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decrypt an encrypted database into a plaintext SQLite database.",
            discussion: """
                The result is plaintext: anyone who can read the file reads the data. Written, \
                verified and moved into place like `encrypt`.

                Examples:
                  cipherstore decrypt app.db --output export.db --key-file app.key
                  cipherstore decrypt app.db --output export.db --raw-key --key-env APP_DB_RAW_KEY

                \(SlotDatabase.help)

                \(JSONOutput.help)

                Exit codes: 0 success, 64 usage error, \(ExitCodes.summary).
                """
        )

        @Argument(help: "The encrypted database.", completion: .file())
        var source: String

        @OptionGroup var output: OutputOptions
        @OptionGroup var key: KeyOptions
        @OptionGroup(title: "Cipher settings the source was made with") var cipher: CipherOptions

        func run() throws {
            try ConversionCommand.run("decrypt", path: source, output: output, progressVerb: "decrypting") { options, _ in
                // What the file is, before a key is asked for.
                try DatabaseFile.checkExistingDatabaseFile(source)
                let databaseKey = try SlotDatabase.openingKey(for: source, from: key.source(confirm: false))
                let report = try DatabaseFile.decrypt(
                    path: source, key: databaseKey, cipher: cipher.settings,
                    to: output.destination(backup: nil), options: options())
                var warnings = ["\(report.outputPath) is PLAINTEXT. Keep it only as long as you need it."]
                if output.inPlace && SlotDatabase.hasSlotFile(source) {
                    warnings.append("the slot file \(KeySlots.slotFilePath(forDatabase: source)) belongs to the encrypted database that was replaced and opens nothing now; delete it.")
                }
                return .init(report: report, verb: "Decrypted", warnings: warnings)
            }
        }
    }
}
