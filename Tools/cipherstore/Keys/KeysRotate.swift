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
                and every old copy of the slot file, opens nothing afterwards: the summary names \
                each slot dropped, and a recovery key's slot is dropped only with \
                --drop-recovery-key (keep it with --keep-key-file). A crash at any \
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

        @Flag(help: "Drop a recovery key's slot that no passphrase given opens: without this flag, such a rotation is refused.")
        var dropRecoveryKey = false

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
                let dropped = try Self.slotsDropped(database, keeping: keep)
                if !dropRecoveryKey, dropped.contains(where: { $0.kind == .recoveryKey }) {
                    throw CLIError(exitCode: 64, message: "The rotation would drop \(Self.list(dropped)), and a recovery key's slot among them: the recovery key would open nothing afterwards. Nothing was changed. Keep it with --keep-key-file FILE (a file holding the recovery key), or pass --drop-recovery-key to drop it.")
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
                output.finish(json, ["slots": slots.map(Summary.fields), "dropped": dropped.map(Summary.fields), "milliseconds": Summary.millisecondsValue(elapsed), "warnings": [warning]],
                              text: (["Rotated the data key in \(Summary.milliseconds(elapsed)): the database was rewritten and verified; \(Summary.counted(slots.count, "slot")) kept:"]
                                     + slots.map { "  " + Summary.text($0) }
                                     + (dropped.isEmpty ? [] : ["\(Summary.counted(dropped.count, "slot")) dropped (they open nothing now):"] + dropped.map { "  " + Summary.text($0) }))
                                    .joined(separator: "\n"))
                warn(warning)
            }
        }

        /// The slots of the current database that none of `keep` opens: the rotation drops them.
        /// One key derivation per slot tried, before anything is changed.
        static func slotsDropped(_ database: String, keeping keep: [Passphrase]) throws -> [KeySlotInfo] {
            var kept = Set<Int>()
            for passphrase in keep { kept.formUnion(try KeySlots.slots(openedBy: passphrase, path: database).map(\.id)) }
            return try KeySlots.list(path: database).filter { $0.opensCurrentDatabase && !kept.contains($0.id) }
        }

        /// "slot 2 (recovery key, “laptop”)", joined.
        static func list(_ slots: [KeySlotInfo]) -> String {
            slots.map { "slot \($0.id) (\($0.kind == .recoveryKey ? "recovery key" : "passphrase"), “\(Summary.printable($0.label))”)" }.joined(separator: ", ")
        }
    }
}
