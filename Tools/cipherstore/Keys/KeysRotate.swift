import ArgumentParser
import CipherStore
import Foundation

extension CipherStoreCommand.Keys {
    /// `cipherstore keys rotate DATABASE`: a new data key.
    struct KeysRotate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate",
            abstract: "Replace the data key, after a passphrase or the key may have leaked.",
            discussion: """
                Rewrites the database under a new random data key (verified, atomic) and keeps \
                only the slots of the passphrases given: the one of --key-file, --key-env, \
                --key-stdin or the prompt, and one more per --keep-key-file. Every other slot, \
                and every old copy of the slot file, opens nothing afterwards. A crash at any \
                moment leaves a database and a slot file that still open together. Takes as long \
                as `rekey`, and keeps the database's cipher settings: give the ones it was made \
                with as rekey takes them (--old-page-size, --old-kdf-iterations). Back up the \
                database and its slot file again afterwards.

                Example:
                  cipherstore keys rotate app.db --key-file first.key --keep-key-file recovery.txt

                \(CipherStoreCommand.Keys.exitCodes)
                """
        )

        @Argument(help: "The slot database.", completion: .file())
        var database: String

        @OptionGroup(title: "A passphrase to keep") var key: KeyOptions

        @Option(name: .customLong("keep-key-file"), help: ArgumentHelp("Also keep the slot this file's passphrase or recovery key opens (repeatable).", valueName: "path"), completion: .file())
        var keepKeyFiles: [String] = []

        @OptionGroup(title: "Cipher settings the database was made with (kept), as rekey's") var cipher: OldCipherOptions

        @Flag(help: "Before replacing the database, also read back and decrypt every page of the result.")
        var fullCheck = false

        @OptionGroup var output: KeysOutputOptions

        func run() throws {
            let json = output.jsonOutput(command: "rotate", path: database)
            try CommandRunner.run(json: json, remedies: .inPlaceOnly) {
                try SlotDatabase.requireSlotFile(database)
                var keep = [try KeyReader.readPassphrase(key.currentPassphrase())]
                for file in keepKeyFiles {
                    keep.append(try KeyReader.readPassphrase(KeyReader.Source(
                        file: file, environment: nil, standardInput: false, raw: false,
                        role: "passphrase to keep", optionPrefix: "--keep-key", confirm: false)))
                }
                let (options, _) = CommandRunner.conversionOptions(quiet: json != nil, fullCheck: fullCheck, verb: "rotating")
                let clock = ContinuousClock()
                let start = clock.now
                let slots: [KeySlotInfo]
                do {
                    slots = try KeySlots.rotateDataKey(path: database, keeping: keep, cipher: cipher.settings(), options: options)
                } catch CipherStoreError.wrongKey {
                    // A passphrase that opens a slot is right: the settings given are what is wrong.
                    if let dataKey = try? KeySlots.unlock(path: database, passphrase: keep[0]) {
                        SlotDatabase.recordUnlocked(database, dataKey: dataKey, oldOptions: true)
                    }
                    throw CipherStoreError.wrongKey(path: database)
                }
                let elapsed = clock.now - start
                let warning = "back up \(database) and \(KeySlots.slotFilePath(forDatabase: database)) again, together (and \(DatabaseFile.schemaCopyPath(forDatabase: database)), its schema copy for `repair`): older backups hold the old data key."
                output.finish(json, ["slots": slots.map(Summary.fields), "milliseconds": Summary.millisecondsValue(elapsed), "warnings": [warning]],
                              text: (["Rotated the data key in \(Summary.milliseconds(elapsed)): the database was rewritten and verified; \(Summary.counted(slots.count, "slot")) kept:"]
                                     + slots.map { "  " + Summary.text($0) }).joined(separator: "\n"))
                warn(warning)
            }
        }
    }
}
