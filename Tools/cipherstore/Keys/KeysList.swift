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

        @Argument(help: "The slot database.", completion: .file())
        var database: String

        @OptionGroup var output: KeysOutputOptions

        func run() throws {
            let json = output.jsonOutput(command: "list", path: database)
            try CommandRunner.run(json: json) {
                let slots: [KeySlotInfo]
                do {
                    slots = try KeySlots.list(path: database)
                } catch CipherStoreError.notEncrypted {
                    // No key was asked for: the library's wording ("but a key was given") does not fit.
                    throw CLIError(exitCode: ExitCodes.wrongFileKind, message: "'\(database)' is a plaintext SQLite database: it has no key slots. Nothing was changed. Make it a slot database with `cipherstore keys init \(database)`.", kind: "notEncrypted")
                } catch KeySlotError.slotFileMissing {
                    throw SlotDatabase.missingSlotFile(database)
                }
                let slotFile = KeySlots.slotFilePath(forDatabase: database)
                output.finish(json, ["slotFile": slotFile, "slots": slots.map(Summary.fields)],
                              text: (["\(slotFile): \(Summary.counted(slots.count, "slot"))"] + slots.map { "  " + Summary.text($0) })
                                  .joined(separator: "\n"))
            }
        }
    }
}
