import ArgumentParser
import CipherStore
import Foundation

extension CipherStoreCommand.Keys {
    /// `cipherstore keys init DATABASE`: a plaintext or passphrase database into a slot database.
    struct KeysInit: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "init",
            abstract: "Make a database a slot database, in place, with a first passphrase.",
            discussion: """
                A plaintext database is encrypted under a new random data key; an encrypted one \
                (opened with --key-file, --key-env or --key-stdin, and its cipher settings) is \
                rewritten under it. Either way the rewrite is verified and atomic, and the slot \
                file DATABASE.keys is written first; if anything fails, both are as they were. \
                The first passphrase comes from --new-key-file, --new-key-env, --new-key-stdin or \
                the prompt (asked twice). An encrypted database is rewritten with the linked \
                SQLCipher's own settings, whatever the ones it is read with (an older format, \
                another page size): the slot database opens with its passphrase alone.

                Examples:
                  cipherstore keys init legacy.db --new-key-file first.key
                  cipherstore keys init app.db --key-file old.key --new-key-file first.key

                \(CipherStoreCommand.Keys.exitCodes)
                """
        )

        @Argument(help: "The plaintext or encrypted database.", completion: .file())
        var database: String

        @OptionGroup(title: "Current key (an encrypted database only)") var key: KeyOptions
        @OptionGroup(title: "First passphrase") var newKey: NewKeyOptions
        @OptionGroup(title: "Cipher settings the database was made with") var cipher: CipherOptions
        @OptionGroup(title: "Key derivation of the slot") var kdf: SlotKDFOptions

        @Option(help: "A name for the slot, shown by `keys list`.")
        var label = "passphrase"

        @Flag(help: "Before replacing the database, also read back and decrypt every page of the result.")
        var fullCheck = false

        @Flag(help: "Print nothing but errors and warnings; no progress bar.")
        var quiet = false

        @Flag(help: "Replace the database even though another process has it open (that program then fails or loses its writes).")
        var force = false

        @OptionGroup var output: KeysOutputOptions

        func run() throws {
            let json = output.jsonOutput(command: "init", path: database)
            try CommandRunner.run(json: json, remedies: .inPlaceOnly) {
                let slotFile = KeySlots.slotFilePath(forDatabase: database)
                if SlotDatabase.hasSlotFile(database) { throw KeySlotError.slotFileExists(path: slotFile) }
                try cipher.settings.refuseWriting("converted in place (as keys init does)", option: "--hmac-salt-mask")
                try OtherProcesses.refuseReplacing(database, force: force)
                let (options, _) = CommandRunner.conversionOptions(quiet: quiet || json != nil, fullCheck: fullCheck, verb: "converting")
                let slot: KeySlotInfo
                switch DatabaseFileInfo.inspect(path: database).kind {
                case .plaintext:
                    if key.isGiven {
                        throw CLIError(exitCode: 64, message: "'\(database)' is plaintext: it has no current key. Leave out --key-file, --key-env and --key-stdin; give the first passphrase with --new-key-file, --new-key-env or --new-key-stdin.")
                    }
                    let passphrase = try KeyReader.readPassphrase(newKey.newPassphrase)
                    slot = try KeySlots.encrypt(path: database, passphrase: passphrase, label: label, kdf: kdf.kdf,
                                                cipher: cipher.settings(encrypting: database), options: options)
                case .encrypted:
                    let (current, passphrase) = try KeyReader.readPair(
                        current: key.source(role: "current key", confirm: false), as: KeyReader.key(from:_:),
                        new: newKey.newPassphrase, as: KeyReader.passphrase(from:_:))
                    slot = try KeySlots.convert(path: database, currentKey: current, currentCipher: cipher.settings, passphrase: passphrase,
                                                label: label, kdf: kdf.kdf, cipher: CipherSettings.linkedDefaults, options: options)
                case .missing, .directory, .notARegularFile, .unreadable:
                    throw CLIError.unusablePath(database, DatabaseFileInfo.inspect(path: database), nothingChanged: true)
                case .empty, .notADatabase:
                    let kind = DatabaseFileInfo.inspect(path: database).kindDescription
                    throw CLIError(exitCode: ExitCodes.wrongFileKind, message: "'\(database)' is \(kind), not a SQLite or SQLCipher database. Nothing was changed.")
                }
                let schemaCopy = DatabaseFile.schemaCopyPath(forDatabase: database)
                let hasSchemaCopy = FileManager.default.fileExists(atPath: schemaCopy)
                output.finish(json, quiet: quiet, ["slotFile": slotFile, "slot": Summary.fields(slot), "schemaCopy": hasSchemaCopy ? schemaCopy : NSNull()], text: """
                    \(database) is now a slot database; its slot file is \(slotFile).
                      \(Summary.text(slot))
                    Back up \(database) and \(slotFile) together\(hasSchemaCopy ? " (and \(schemaCopy), its schema copy for `repair`)" : ""). Add a recovery key with `cipherstore keys recovery \(database)`.
                    """)
            }
        }
    }
}
