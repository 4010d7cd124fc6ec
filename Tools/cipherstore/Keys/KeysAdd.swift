import ArgumentParser
import CipherStore

extension CipherStoreCommand.Keys {
    /// `cipherstore keys add DATABASE`.
    struct KeysAdd: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a passphrase, authorised by one that opens the database now.",
            discussion: """
                Rewrites only the slot file; the database is not touched.

                Example:
                  cipherstore keys add app.db --key-file first.key --new-key-file laptop.key --label laptop

                \(CipherStoreCommand.Keys.exitCodes)
                """
        )

        @Argument(help: "The slot database.", completion: .file())
        var database: String

        @OptionGroup(title: "A passphrase or recovery key that opens the database now") var key: KeyOptions
        @OptionGroup(title: "The passphrase to add") var newKey: NewKeyOptions
        @OptionGroup(title: "Key derivation of the new slot") var kdf: SlotKDFOptions

        @Option(help: "A name for the new slot, shown by `keys list`.")
        var label = "passphrase"

        @OptionGroup var output: KeysOutputOptions

        func run() throws {
            let json = output.jsonOutput(command: "add", path: database)
            try CommandRunner.run(json: json) {
                try SlotDatabase.requireSlotFile(database)
                let (existing, new) = try KeyReader.readPair(current: key.currentPassphrase(), as: KeyReader.passphrase(from:_:),
                                                             new: newKey.newPassphrase, as: KeyReader.passphrase(from:_:))
                let slot = try KeySlots.addPassphrase(path: database, existing: existing, new: new, label: label, kdf: kdf.kdf)
                output.finish(json, ["slot": Summary.fields(slot)], text: "Added \(Summary.text(slot)).")
            }
        }
    }
}
