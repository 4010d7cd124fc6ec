import ArgumentParser
import CipherStore

extension CipherStoreCommand.Keys {
    /// `cipherstore keys recovery DATABASE`: a recovery key, printed once.
    struct KeysRecovery: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "recovery",
            abstract: "Add a random recovery key and print it, once.",
            discussion: """
                The recovery key — 40 characters in eight groups of five, with a checksum — is \
                printed on standard output (in the JSON object with --json) and nowhere else; no \
                copy is kept. Write it down and keep it offline. It opens the database like a \
                passphrase (with or without the dashes, in any case), as long as the slot file \
                holding its slot exists.

                Example:
                  cipherstore keys recovery app.db --key-file first.key

                \(CipherStoreCommand.Keys.exitCodes)
                """
        )

        @Argument(help: "The slot database.", completion: .file())
        var database: String

        @OptionGroup(title: "A passphrase that opens the database now") var key: KeyOptions

        @Option(help: "A name for the new slot, shown by `keys list`.")
        var label = "recovery key"

        @OptionGroup var output: KeysOutputOptions

        func run() throws {
            let json = output.jsonOutput(command: "recovery", path: database)
            try CommandRunner.run(json: json) {
                try SlotDatabase.requireSlotFile(database)
                let existing = try KeyReader.readPassphrase(key.currentPassphrase())
                let recovery = try KeySlots.addRecoveryKey(path: database, existing: existing, label: label)
                output.finish(json, ["slot": Summary.fields(recovery.slot), "recoveryKey": recovery.text], text: """
                    Added \(Summary.text(recovery.slot)).
                    Recovery key (shown only now; write it down and keep it offline):

                        \(recovery.text)

                    """)
                do throws(StandardStreams.OutputFailure) {
                    try StandardStreams.flushOutput()
                } catch {
                    // Nobody has the key: a slot that opens the database with it must not stay.
                    try KeySlots.removeSlot(path: database, id: recovery.slot.id, remaining: existing)
                    throw error.error(consequence: "The recovery key was not delivered, so its slot was removed again: no recovery key was added.")
                }
                warn("the recovery key above is not stored anywhere: whoever does not write it down loses it. Anyone who has it, and the slot file, can read the database.")
            }
        }
    }
}
