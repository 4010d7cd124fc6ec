import ArgumentParser
import CipherStore

extension CipherStoreCommand {
    /// `cipherstore upgrade DATABASE`: a SQLCipher 3 file into SQLCipher 4's format.
    struct Upgrade: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Upgrade a SQLCipher 3 database to SQLCipher 4's format (needs SQLCipher 4).",
            discussion: """
                Reads the database with SQLCipher 3's settings (1024-byte pages, 64000 \
                PBKDF2-HMAC-SHA1 iterations, HMAC-SHA1; a custom page size or iteration count \
                with --old-page-size and --old-kdf-iterations) and rewrites it with SQLCipher 4's \
                (4096-byte pages, 256000 PBKDF2-HMAC-SHA512 iterations, HMAC-SHA512), under the \
                same key. Like rekey, it verifies the result against the source (integrity check, \
                schema with triggers and FTS tables, every row with its rowid, sqlite_sequence, user_version, \
                application_id), syncs it and moves it into place atomically: a crash leaves the \
                complete old file or the complete new one. SQLCipher's in-place cipher_migrate is \
                not used: it checks nothing. Afterwards the file opens with SQLCipher 4's \
                defaults, and no longer with SQLCipher 3.

                Linked with SQLCipher 3, it changes nothing and exits with 64.

                Examples:
                  cipherstore upgrade app.db --in-place --key-file app.key
                  cipherstore upgrade old.db --output new.db --key-env APP_DB_KEY --old-page-size 4096

                \(JSONOutput.help)

                Exit codes: 0 success, 64 usage error or SQLCipher 3 linked, \(ExitCodes.summary).
                """
        )

        @Argument(help: "The SQLCipher 3 database.", completion: .file())
        var database: String

        @OptionGroup var output: OutputOptions
        @OptionGroup var key: KeyOptions
        @OptionGroup(title: "Cipher settings the database was made with (SQLCipher 3's unless given)") var oldCipher: OldCipherOptions

        func run() throws {
            try ConversionCommand.run("upgrade", path: database, output: output, progressVerb: "upgrading", checks: {
                // Before asking for a key: SQLCipher 3 cannot write the result at all.
                guard SQLCipherLibrary.sqlcipherMajorVersion >= 4 else {
                    throw CipherStoreError.sqlcipher4Required(operation: "cipherstore upgrade",
                                                              sqlcipherVersion: SQLCipherLibrary.sqlcipherVersion ?? "none")
                }
                try oldCipher.refuseInPlace(output.inPlace)
            }) { options, _ in
                let databaseKey = try SlotDatabase.openingKey(for: database, from: key.source(confirm: false))
                let report: DatabaseFileReport
                do {
                    report = try DatabaseFile.upgrade(
                        path: database, key: databaseKey, oldCipher: oldCipher.settings(base: .sqlcipher3),
                        to: output.destination(backup: nil), options: options())
                } catch CipherStoreError.wrongKey {
                    // The key may be right for a file that is in SQLCipher 4's format already.
                    if let db = try? DatabaseFile.openForReading(path: database, key: databaseKey) {
                        try? db.close()
                        throw CLIError(exitCode: ExitCodes.wrongFileKind, message: "'\(database)' is in SQLCipher 4's format already: it opens with this key and the linked SQLCipher's defaults. Nothing was changed; there is nothing to upgrade.", kind: "alreadyUpgraded")
                    }
                    throw CipherStoreError.wrongKey(path: database)
                }
                return .init(report: report, verb: "Upgraded to SQLCipher 4's format")
            }
        }
    }
}
