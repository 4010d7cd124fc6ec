import ArgumentParser
import CipherStore

extension CipherStoreCommand {
    /// `cipherstore rekey DATABASE`: key rotation.
    struct Rekey: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change the key of an encrypted database (key rotation).",
            discussion: """
                Rewrites the database under the new key (and, optionally, new KDF iterations or \
                page size), verifies it, and moves it into place atomically: a crash leaves the \
                file openable with exactly the old key or the new one. SQLCipher's in-place \
                `rekey` is not used: in SQLCipher 3 it can report success without doing anything.

                The old and new keys come from separate sources. With both on standard input, the \
                first line is the old key and the rest the new one (minus one trailing line ending).

                Examples:
                  cipherstore rekey app.db --in-place --old-key-file old.key --new-key-file new.key
                  printf '%s\\n%s\\n' "$OLD" "$NEW" | cipherstore rotate-key app.db --in-place --old-key-stdin --new-key-stdin

                \(SlotDatabase.help)

                \(JSONOutput.help)

                Exit codes: 0 success, 64 usage error, \(ExitCodes.summary).
                """,
            aliases: ["rotate-key"]
        )

        @Argument(help: "The encrypted database.", completion: .file())
        var database: String

        @OptionGroup var output: OutputOptions
        @OptionGroup(title: "Current key") var oldKey: OldKeyOptions
        @OptionGroup(title: "Cipher settings the database was made with") var oldCipher: OldCipherOptions
        @OptionGroup(title: "New key") var newKey: NewKeyOptions
        @OptionGroup(title: "Cipher settings of the result") var cipher: CipherOptions

        func run() throws {
            try ConversionCommand.run("rekey", path: database, output: output, progressVerb: "rekeying", checks: {
                try cipher.format.refuseForResult()
                try oldCipher.refuseInPlace(output.inPlace)
            }) { options, _ in
                // What the file is, before a key is asked for.
                try DatabaseFile.checkExistingDatabaseFile(database)
                if DatabaseFileInfo.inspect(path: database).kind == .plaintext {
                    // The library's wording (a key was given to open it) does not fit a rekey.
                    throw CLIError(exitCode: ExitCodes.wrongFileKind, message: "'\(database)' is not encrypted (a plaintext SQLite database): it has no key to change. Nothing was changed. Encrypt it with `cipherstore encrypt` (rekey changes the key of an encrypted database).", kind: "notEncrypted")
                }
                // Only an encrypted file: a slot file beside a plaintext one (left by a
                // decryption) is no reason to refuse, and rekey then says it is not encrypted.
                if output.inPlace && SlotDatabase.usesSlotFile(database) && DatabaseFileInfo.inspect(path: database).kind == .encrypted {
                    throw CLIError(exitCode: 64, message: "'\(database)' is a slot database: rekeying it in place would leave its slot file opening nothing. Nothing was changed. Change a passphrase with `cipherstore keys change`, replace the data key with `cipherstore keys rotate`, or write a passphrase database elsewhere with --output.")
                }
                let (old, new) = try KeyReader.readPair(current: oldKey.source, as: SlotDatabase.keyMaker(for: database),
                                                        new: newKey.source, as: KeyReader.key(from:_:))
                let report = try DatabaseFile.changeKey(
                    path: database, oldKey: old,
                    oldCipher: oldCipher.settings(),
                    newKey: new, newCipher: oldCipher.resultSettings(cipher.settings),
                    to: output.destination(backup: nil), options: options())
                return .init(report: report, verb: "Re-keyed")
            }
        }
    }
}
