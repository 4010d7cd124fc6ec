import ArgumentParser
@_spi(Tools) import CipherStore
import Foundation

extension CipherStoreCommand.Keys {
    /// `cipherstore keys export-raw-key DATABASE`: the recovery path without the slot file.
    struct KeysExportRawKey: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export-raw-key",
            abstract: "Write the raw data key and salt (96 hexadecimal digits), for recovery without the slot file.",
            discussion: """
                Whoever has the raw key reads the database, with no passphrase and no slot file. \
                Keep it offline. It is written only where asked: --to-file writes a new file \
                (mode 600, never over an existing one), --to-stdout prints it.

                It opens the database with --raw-key in every command, and in the sqlcipher \
                shell with PRAGMA key = "x'<the 96 digits>'" (typed at its prompt).

                Examples:
                  cipherstore keys export-raw-key app.db --key-file first.key --to-file /media/usb/app.rawkey
                  cipherstore verify app.db --raw-key --key-file /media/usb/app.rawkey

                \(CipherStoreCommand.Keys.exitCodes)
                """
        )

        @Argument(help: "The slot database.", completion: .file())
        var database: String

        @OptionGroup(title: "A passphrase or recovery key that opens the database now") var key: KeyOptions

        @Option(name: .customLong("to-file"), help: ArgumentHelp("Write the raw key into this new file (mode 600).", valueName: "path"), completion: .file())
        var file: String?

        @Flag(name: .customLong("to-stdout"), help: "Print the raw key on standard output.")
        var standardOutput = false

        @OptionGroup var output: KeysOutputOptions

        func validate() throws {
            if !output.json { try check() }
        }

        private func check() throws {
            if (file == nil) == !standardOutput {
                throw ValidationError("Say where the raw key goes, once: --to-file PATH or --to-stdout.")
            }
        }

        func run() throws {
            let json = output.jsonOutput(command: "export-raw-key", path: database)
            try CommandRunner.run(json: json) {
                try check()
                try SlotDatabase.requireSlotFile(database)
                if let file, FileManager.default.fileExists(atPath: file) {
                    throw CLIError(exitCode: 64, message: "'\(file)' already exists. Nothing was written. Choose a new file name.")
                }
                let passphrase = try KeyReader.readPassphrase(key.currentPassphrase())
                let rawKey = try KeySlots.exportRawKey(path: database, passphrase: passphrase)
                if let file {
                    try Self.store(rawKey + "\n", inNewFile: file)
                    output.finish(json, ["file": file], text: "Wrote the raw key of \(database) to \(file) (mode 600).")
                } else {
                    output.finish(json, ["rawKey": rawKey], text: rawKey)
                }
                warn("the raw key opens \(database) without any passphrase or slot file: keep it offline, and delete every other copy.")
            }
        }

        /// Writes `text` into a new file at `path` (mode 0600, never replacing a file), synced
        /// with its directory, so that the name survives a power cut too.
        private static func store(_ text: String, inNewFile path: String) throws {
            var bytes = Array(text.utf8)
            defer { SecretInput.wipe(&bytes) }
            do {
                try NewFileWrite.write(bytes, to: path)
            } catch NewFileWrite.Failure.cannotCreate(let reason) {
                throw CLIError(exitCode: ExitCodes.ioFailure, message: "Cannot create '\(path)': \(reason). Nothing was written.")
            } catch NewFileWrite.Failure.cannotWrite(let reason) {
                throw CLIError(exitCode: ExitCodes.ioFailure, message: "Cannot write '\(path)': \(reason). Nothing was kept.")
            } catch NewFileWrite.Failure.unsynced(let reason) {
                throw CLIError(exitCode: ExitCodes.notDurable, message: "Wrote the raw key to '\(path)', but syncing its directory failed (\(reason)): after a power cut the file could be gone. Check the disk, then run `sync` or export the key again.")
            }
        }
    }
}
