import ArgumentParser
import CipherStore

extension CipherStoreCommand.Keys {
    /// `cipherstore keys list DATABASE`.
    struct KeysList: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the slots of a slot database: number, kind, label, key derivation, creation date.",
            discussion: """
                Needs no key and shows no secret.

                Example:
                  cipherstore keys list app.db --json

                \(CipherStoreCommand.Keys.exitCodes)
                """
        )

        @Argument(help: "The slot database.")
        var database: String

        @OptionGroup var output: KeysOutputOptions

        func run() throws {
            let json = output.jsonOutput(command: "list", path: database)
            try CommandRunner.run(json: json) {
                let slots = try KeySlots.list(path: database)
                let slotFile = KeySlots.slotFilePath(forDatabase: database)
                output.finish(json, ["slotFile": slotFile, "slots": slots.map(Summary.fields)],
                              text: (["\(slotFile): \(Summary.counted(slots.count, "slot"))"] + slots.map { "  " + Summary.text($0) })
                                  .joined(separator: "\n"))
            }
        }
    }
}
