import ArgumentParser
import CipherStore
import Foundation

extension CipherStoreCommand.Keys {
    /// `cipherstore keys change DATABASE`: a passphrase change that rewrites only the slot file.
    struct KeysChange: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "change",
            abstract: "Change a passphrase in the time of one key derivation (about 0.25 s), whatever the size of the database.",
            discussion: """
                The data key is wrapped under the new passphrase in a new slot, which is written, \
                read back and opened; only then is the old passphrase's slot removed. The \
                database is not rewritten: the time is the key derivation that makes a \
                passphrase slow to guess (--slot-kdf-ms, 250 ms by default), one per passphrase \
                slot tried, the new slot's running meanwhile. A recovery key given as the current one is kept, and \
                the new passphrase gets a slot of its own.

                Old copies of the slot file (backups) still open with the old passphrase: if it \
                may be known to someone, replace the data key with `cipherstore keys rotate`.

                Example:
                  cipherstore keys change app.db --key-file old.key --new-key-file new.key

                \(CipherStoreCommand.Keys.exitCodes)
                """
        )

        @Argument(help: "The slot database.", completion: .file())
        var database: String

        @OptionGroup(title: "The passphrase to change") var key: KeyOptions
        @OptionGroup(title: "The new passphrase") var newKey: NewKeyOptions
        @OptionGroup(title: "Key derivation of the new slot (default: the old slot's)") var kdf: SlotKDFOptions

        @OptionGroup var output: KeysOutputOptions

        func run() throws {
            let json = output.jsonOutput(command: "change", path: database)
            try CommandRunner.run(json: json) {
                try SlotDatabase.requireSlotFile(database)
                let (old, new) = try KeyReader.readPair(current: key.currentPassphrase(), as: KeyReader.passphrase(from:_:),
                                                        new: newKey.newPassphrase, as: KeyReader.passphrase(from:_:))
                let slotsBefore = try KeySlots.list(path: database).count
                let clock = ContinuousClock()
                let start = clock.now
                let slot = try KeySlots.changePassphrase(path: database, from: old, to: new, kdf: kdf.given)
                let elapsed = clock.now - start
                // A recovery key given as the current one adds the new passphrase and removes nothing.
                let added = try KeySlots.list(path: database).count > slotsBefore
                let size = DatabaseFileInfo.inspect(path: database).size
                let warning = added
                    ? "the current key given was the recovery key: it is kept, and so is every passphrase slot (a forgotten passphrase's slot still opens the database). Remove the old passphrase's slot with `cipherstore keys remove \(database) --slot N` (numbers in `cipherstore keys list`)."
                    : "old copies of \(KeySlots.slotFilePath(forDatabase: database)) (backups) still open with the old passphrase; if it may be known to someone, run `cipherstore keys rotate \(database)`."
                output.finish(json, ["slot": Summary.fields(slot), "milliseconds": Summary.millisecondsValue(elapsed),
                                     "databaseBytes": size, "warnings": [warning]],
                              text: added
                                  ? "Added the new passphrase in \(Summary.milliseconds(elapsed)): now \(Summary.text(slot))."
                                  : String(format: "Changed the passphrase in %@, the time of its key derivation (the database, %.1f MiB, was not rewritten): now %@.",
                                           Summary.milliseconds(elapsed), Double(size) / 1_048_576, Summary.text(slot)))
                warn(warning)
            }
        }
    }
}
