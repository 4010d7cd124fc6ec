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

        @Flag(help: "Replace the database even though another process has it open (that program then fails or loses its writes).")
        var force = false

        @Flag(help: "Print nothing but errors and warnings; no progress bar.")
        var quiet = false

        @OptionGroup var output: KeysOutputOptions

        func run() throws {
            let json = output.jsonOutput(command: "rotate", path: database)
            try CommandRunner.run(json: json, remedies: .inPlaceOnly) {
                try SlotDatabase.requireSlotFile(database)
                try cipher.refuseInPlace(true)
                try OtherProcesses.refuseReplacing(database, force: force)
                var keep = [try KeyReader.readPassphrase(key.currentPassphrase())]
                var kept = Set<Int>()
                for file in keepKeyFiles {
                    let passphrase = try KeyReader.readPassphrase(KeyReader.Source(
                        file: file, environment: nil, standardInput: false, raw: false,
                        role: "passphrase to keep", optionPrefix: "--keep-key", confirm: false))
                    let opened = try KeySlots.slots(openedBy: passphrase, path: database)
                    if opened.isEmpty { throw Self.opensNoSlot(file, database: database) }
                    kept.formUnion(opened.map(\.id))
                    keep.append(passphrase)
                }
                let openedByFirst = try KeySlots.slots(openedBy: keep[0], path: database)
                if openedByFirst.isEmpty { throw CipherStoreError.wrongKey(path: database) }
                kept.formUnion(openedByFirst.map(\.id))
                let dropped = try KeySlots.list(path: database).filter { $0.opensCurrentDatabase && !kept.contains($0.id) }
                if !dropRecoveryKey, dropped.contains(where: { $0.kind == .recoveryKey }) {
                    throw CLIError(exitCode: 64, message: "The rotation would drop \(Self.list(dropped)), and a recovery key's slot among them: the recovery key would open nothing afterwards. Nothing was changed. Keep it with --keep-key-file FILE (a file holding the recovery key), or pass --drop-recovery-key to drop it.")
                }
                let (options, _) = CommandRunner.conversionOptions(quiet: quiet || json != nil, fullCheck: fullCheck, verb: "rotating")
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
                output.finish(json, quiet: quiet, ["slots": slots.map(Summary.fields), "dropped": dropped.map(Summary.fields), "milliseconds": Summary.millisecondsValue(elapsed), "warnings": [warning]],
                              text: (["Rotated the data key in \(Summary.milliseconds(elapsed)): the database was rewritten and verified; \(Summary.counted(slots.count, "slot")) kept:"]
                                     + slots.map { "  " + Summary.text($0) }
                                     + (dropped.isEmpty ? [] : ["\(Summary.counted(dropped.count, "slot")) dropped (they open nothing now):"] + dropped.map { "  " + Summary.text($0) }))
                                    .joined(separator: "\n"))
                warn(warning)
            }
        }

        /// A `--keep-key-file` whose content opens no slot: said before anything changes, and
        /// not as a wrong key of the database (the passphrase of --key-file may well be right).
        static func opensNoSlot(_ file: String, database: String) -> CLIError {
            let lines = ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(whereSeparator: \.isNewline).count
            let hint = lines > 1
                ? " It holds \(lines) lines: a key file holds the passphrase or the recovery key alone (`keys recovery` prints words around the key; save the key line only)."
                : " Check that it holds the passphrase or recovery key of a slot that `keys list` shows."
            return CLIError(exitCode: ExitCodes.wrongKey, message: "'\(file)' (--keep-key-file) opens no slot of '\(KeySlots.slotFilePath(forDatabase: database))'. Nothing was changed.\(hint)", kind: "wrongKey")
        }

        /// "slot 2 (recovery key, “laptop”)", joined.
        static func list(_ slots: [KeySlotInfo]) -> String {
            slots.map { "slot \($0.id) (\($0.kind == .recoveryKey ? "recovery key" : "passphrase"), “\(Summary.printable($0.label))”)" }.joined(separator: ", ")
        }
    }
}
