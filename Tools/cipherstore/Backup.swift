import ArgumentParser
import CipherStore
import Foundation

extension CipherStoreCommand {
    /// `cipherstore backup DATABASE --output COPY`.
    struct Backup: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a verified, encrypted copy of a database while apps keep using it.",
            discussion: """
                The copy holds one committed state of the database, read in one read \
                transaction: a database in WAL mode keeps accepting commits meanwhile; in a \
                rollback-journal mode writers wait until the copy is read. It is encrypted with \
                the database's key (or the one given with --new-key-*), keeps the database's \
                page size and cipher settings, is checked (integrity check, schema and row \
                counts against the state copied) and only then takes its name. A slot \
                database's backup comes with a copy of its slot file (COPY.keys): keep the two \
                together. A passphrase given with --new-key-* makes the copy an ordinary \
                passphrase database instead; with --slot-database as well, the copy is a slot \
                database of its own: a new data key, and a new slot file COPY.keys with one slot \
                for that passphrase.

                Never plaintext unless --plaintext is given: that writes a decrypted copy, and \
                holds the write lock while it does (writers wait).

                Examples:
                  cipherstore backup app.db --output backups/app.db --key-file app.key
                  cipherstore backup app.db -o offsite.db --key-file app.key --new-key-file offsite.key
                  cipherstore backup app.db -o offsite.db --key-file app.key --new-key-file offsite.pass --slot-database

                \(SlotDatabase.help)

                \(JSONOutput.help)

                Exit codes: 0 success, 64 usage error, \(ExitCodes.summary).
                """
        )

        @Argument(help: "The database to back up.", completion: .file())
        var database: String

        @Option(name: [.short, .long], help: ArgumentHelp("Write the backup to this new file.", valueName: "path"), completion: .file())
        var output: String

        @OptionGroup(title: "Key") var key: KeyOptions
        @OptionGroup(title: "Cipher settings the database was made with") var cipher: CipherOptions
        @OptionGroup(title: "Key of the backup (default: the database's)") var newKey: NewKeyOptions

        @Flag(help: "Write a PLAINTEXT copy (decrypted; writers wait while it is written).")
        var plaintext = false

        @Flag(help: "Make the backup a slot database: a new data key, and a new slot file COPY.keys with one slot for the passphrase given with --new-key-*.")
        var slotDatabase = false

        @OptionGroup(title: "Key derivation of the backup's slot (with --slot-database)") var kdf: SlotKDFOptions

        @Flag(help: "Replace an existing file at the output.")
        var force = false

        @Flag(help: "Print nothing but errors and warnings; no progress bar.")
        var quiet = false

        @Flag(help: "Print the result as one JSON object on standard output, on failure too (see below).")
        var json = false

        @Flag(help: "Also read back and decrypt every page of the copy before it takes its name.")
        var fullCheck = false

        func run() throws {
            let json = self.json ? JSONOutput(command: "backup", path: database) : nil
            try CommandRunner.run(json: json, remedies: .backup) {
                if plaintext && newKey.source.isGiven {
                    throw CLIError(exitCode: 64, message: "--plaintext and --new-key-* exclude each other: a plaintext copy has no key. Nothing was written.")
                }
                if slotDatabase && (!newKey.source.isGiven || newKey.raw) {
                    throw CLIError(exitCode: 64, message: "--slot-database needs the backup's passphrase: give it with --new-key-file, --new-key-env or --new-key-stdin (not --new-raw-key). Nothing was written.")
                }
                if slotDatabase && force {
                    throw CLIError(exitCode: 64, message: "--slot-database writes a new database and slot file and replaces neither: leave out --force, and move the old backup away first. Nothing was written.")
                }
                try DatabaseFile.checkExistingDatabaseFile(database)
                let isPlaintext = DatabaseFileInfo.inspect(path: database).kind == .plaintext && !key.isGiven
                if isPlaintext && newKey.source.isGiven {
                    throw CLIError(exitCode: ExitCodes.wrongFileKind, message: "'\(database)' is not encrypted, and a backup keeps the database's encryption: it cannot take a new key. Nothing was written. For an encrypted copy, run `cipherstore encrypt \(database) --output COPY` with the key options.")
                }
                let (options, _) = CommandRunner.conversionOptions(quiet: quiet, fullCheck: fullCheck, verb: "backing up")
                let report: DatabaseFileReport
                var warnings: [String] = []
                if isPlaintext {
                    report = try DatabaseBackup.backup(path: database, key: nil, to: output, overwrite: force, options: options)
                    warnings.append("'\(database)' is not encrypted, and neither is its backup.")
                } else if slotDatabase {
                    if FileManager.default.fileExists(atPath: output) {
                        throw CLIError(exitCode: 64, message: "'\(output)' exists: --slot-database writes a new database and slot file and replaces neither. Nothing was written. Move it (and its slot file) away, or choose another --output.")
                    }
                    let (current, passphrase) = try KeyReader.readPair(current: key.source(confirm: false), as: SlotDatabase.keyMaker(for: database),
                                                                       new: newKey.source, as: KeyReader.passphrase(from:_:))
                    report = try KeySlots.backup(path: database, key: current, cipher: cipher.settings, to: output,
                                                 passphrase: passphrase, kdf: kdf.kdf, options: options)
                } else if newKey.source.isGiven {
                    let (current, new) = try KeyReader.readPair(current: key.source(confirm: false), as: SlotDatabase.keyMaker(for: database),
                                                                new: newKey.source, as: KeyReader.key(from:_:))
                    report = try DatabaseBackup.backup(path: database, key: current, cipher: cipher.settings, to: output,
                                                       newKey: new, overwrite: force, options: options)
                } else {
                    let current = try SlotDatabase.openingKey(for: database, from: key.source(confirm: false))
                    if plaintext {
                        report = try DatabaseFile.decrypt(path: database, key: current, cipher: cipher.settings,
                                                                 to: .file(output, overwrite: force), options: options)
                        warnings.append("'\(report.outputPath)' is PLAINTEXT: anyone who can read the file can read the data.")
                    } else {
                        report = try DatabaseBackup.backup(path: database, key: current, cipher: cipher.settings, to: output,
                                                           overwrite: force, options: options)
                    }
                }
                let staleSlots = KeySlots.slotFilePath(forDatabase: output)
                if report.slotFilePath == nil && FileManager.default.fileExists(atPath: staleSlots) {
                    warnings.append("the slot file '\(staleSlots)' beside the output belongs to the file it replaced: it opens nothing now; remove it.")
                }
                Summary.conversionFinished(report, verb: "Backed up to", quiet: quiet, fullCheck: fullCheck, json: json, warnings: warnings)
            }
        }
    }
}
