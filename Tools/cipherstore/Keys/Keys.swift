import ArgumentParser
import CipherStore

extension CipherStoreCommand {
    /// `cipherstore keys …`: the key slots of a slot database.
    struct Keys: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Manage the key slots of a database: several passphrases, a recovery key, a passphrase change that rewrites only the slot file.",
            discussion: """
                A slot database is encrypted with a random data key, kept wrapped under each \
                passphrase (and recovery key) in the slot file DATABASE.keys beside it. Changing, \
                adding or removing a passphrase rewrites only that small file, whatever the size \
                of the database. Back up the database and its slot file together: without the \
                slot file (and without the raw key of `keys export-raw-key`), the data is lost.

                In every keys command, --key-file, --key-env, --key-stdin (or the prompt) give a \
                passphrase or recovery key that opens the database now, and --new-key-file, \
                --new-key-env, --new-key-stdin (or the prompt, asked twice) the passphrase being \
                set. With both on standard input, the first line is the current one and the rest \
                the new one. Secrets are never taken on the command line nor printed, except the \
                recovery key, printed once when it is made.

                Examples:
                  cipherstore keys init app.db --new-key-file first.key
                  cipherstore keys change app.db --key-file first.key --new-key-file second.key
                  cipherstore keys recovery app.db --key-file second.key
                  cipherstore keys list app.db --json

                \(exitCodes)
                """,
            subcommands: [KeysInit.self, KeysList.self, KeysAdd.self, KeysChange.self, KeysRemove.self, KeysRecovery.self,
                          KeysRotate.self, KeysExportRawKey.self]
        )

        static let exitCodes = """
            Exit codes: 0 success, 64 usage error (also: removing the last slot, a slot number \
            that does not exist, a slot file already there for `init`), 65 wrong passphrase or \
            mistyped recovery key, 66 not a database / not a slot file / the slot file of another \
            database / a slot file of an unknown format version, 67 damaged slot file or database, \
            74 I/O failure (also: the slot file is missing; the message says where it was \
            expected), 130 cancelled by Ctrl-C (143 by SIGTERM, 129 by SIGHUP).
            """
    }
}

/// `--json` of the `keys` commands.
struct KeysOutputOptions: ParsableArguments {
    @Flag(help: "Print the result as one JSON object on standard output, and on failure {\"ok\": false, \"error\": {\"kind\", \"message\", \"exitCode\"}}; nothing else goes to standard output.")
    var json = false

    func jsonOutput(command: String, path: String) -> JSONOutput? {
        json ? JSONOutput(command: "keys " + command, path: path) : nil
    }

    /// Prints `fields` as JSON, or `text` as lines unless `quiet`.
    func finish(_ json: JSONOutput?, quiet: Bool = false, _ fields: [String: Any], text: @autoclosure () -> String) {
        if let json { json.succeed(fields) } else if !quiet { print(text()) }
    }
}

extension KeyOptions {
    /// A passphrase or recovery key that opens a slot now.
    func currentPassphrase() -> KeyReader.Source {
        source(role: "passphrase", confirm: false)
    }
}

extension NewKeyOptions {
    /// The passphrase being set, asked twice at the prompt.
    var newPassphrase: KeyReader.Source {
        var source = self.source
        source.role = "new passphrase"
        return source
    }
}
