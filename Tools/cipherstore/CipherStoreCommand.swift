import ArgumentParser
import CipherStore

/// The `cipherstore` command-line tool.
@main
struct CipherStoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cipherstore",
        abstract: "Inspect, encrypt and maintain SQLCipher-encrypted SQLite databases.",
        discussion: """
            Keys are never taken on the command line: argv is visible to every user in `ps` \
            and in shell history.

            Exit codes: 0 success, 64 usage error, \(ExitCodes.summary).
            """,
        version: "CipherStore 0.1 (SQLCipher \(SQLCipherLibrary.sqlcipherVersion ?? "missing"), SQLite \(SQLCipherLibrary.sqliteVersion))",
        subcommands: [Demo.self, Info.self, Encrypt.self, Decrypt.self, Rekey.self, Upgrade.self, Verify.self, Query.self]
    )
}
