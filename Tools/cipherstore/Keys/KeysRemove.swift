import ArgumentParser
import CipherStore

extension CipherStoreCommand.Keys {
    /// `cipherstore keys remove DATABASE --slot N`.
    struct KeysRemove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a slot, authorised by the passphrase of a slot that stays.",
            discussion: """
                Never removes the last slot. Rewrites only the slot file; old copies of it \
                (backups) still hold the removed slot: rotate the data key with `cipherstore keys \
                rotate` if its passphrase may be known to someone.

                Example:
                  cipherstore keys list app.db
                  cipherstore keys remove app.db --slot 2 --key-file first.key

                \(CipherStoreCommand.Keys.exitCodes)
                """
        )

        @Argument(help: "The slot database.", completion: .file())
        var database: String

        @Option(help: ArgumentHelp("The number of the slot to remove, as `keys list` shows it.", valueName: "number"))
        var slot: Int

        @OptionGroup(title: "The passphrase of a slot that stays") var key: KeyOptions

        @OptionGroup var output: KeysOutputOptions

        func run() throws {
            let json = output.jsonOutput(command: "remove", path: database)
            try CommandRunner.run(json: json) {
                try SlotDatabase.requireSlotFile(database)
                let remaining = try KeyReader.readPassphrase(key.currentPassphrase())
                try KeySlots.removeSlot(path: database, id: slot, remaining: remaining)
                let slots = try KeySlots.list(path: database)
                output.finish(json, ["removed": slot, "slots": slots.map(Summary.fields)],
                              text: "Removed slot \(slot); \(Summary.counted(slots.count, "slot")) left.")
            }
        }
    }
}
