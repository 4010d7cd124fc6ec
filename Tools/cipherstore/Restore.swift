import ArgumentParser
import CipherStore
import Foundation

extension CipherStoreCommand {
    /// `cipherstore restore BACKUP --to DATABASE`.
    struct Restore: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace a database with a backup, after checking the backup.",
            discussion: """
                The backup must open with its key and pass the integrity check. Its pages are \
                then copied beside the database, checked again, and renamed over it as the \
                in-place conversions do: the database is locked against writers (a database in \
                WAL mode that another connection has open is refused), and a crash leaves the old \
                database or the restored one, never neither. The restored database opens with \
                the backup's key (a slot database: its data key, through the slot file beside \
                it). A missing database is created.

                A slot database: the passphrase opens the backup through its slot file \
                (BACKUP.keys). The database's own slot file is kept when it opens the restored \
                database (the same data key): its current passphrases open it then, not those \
                of the backup's time. Otherwise the backup's slot file is put beside it, and \
                the passphrases of the backup's time open it. The summary says which. A passphrase \
                that opens a slot of both slot files opens both files, also after `keys rotate` \
                changed the database's data key. When the database opens with another key \
                now, give that key with --old-key-*. With both keys on \
                standard input (--key-stdin and --old-key-stdin), the first line is the backup's \
                key and the rest the database's current key.

                A database that another process has open is refused (on Linux, which tells; the \
                message names the process): stop that program first. A database whose first \
                page does not open (damaged, or another key) cannot be locked: it is replaced \
                only with --force, when no app has it open.

                Examples:
                  cipherstore restore backups/app.db --to app.db --key-file app.key
                  cipherstore restore offsite.db --to app.db --key-file offsite.key --old-key-file app.key

                \(JSONOutput.help)

                Exit codes: 0 success, 64 usage error, \(ExitCodes.summary).
                """
        )

        @Argument(help: "The backup to restore.", completion: .file())
        var backup: String

        @Option(help: ArgumentHelp("The database to replace (created when missing).", valueName: "path"), completion: .file())
        var to: String

        @OptionGroup(title: "Key of the backup") var key: KeyOptions
        @OptionGroup(title: "Cipher settings the backup was made with") var cipher: CipherOptions
        @OptionGroup(title: "Key the database opens with now, when not the backup's") var currentKey: OldKeyOptions

        @Flag(help: "Replace a database that another process has open (that program then fails or loses its writes), or that does not open with its key (a damaged first page), without locking it: only when no app has it open. Also replaces this name of a database with other names (hard links), which keep the old contents.")
        var force = false

        @Flag(help: "Print nothing but errors and warnings; no progress bar.")
        var quiet = false

        @Flag(help: "Print the result as one JSON object on standard output, on failure too (see below).")
        var json = false

        @Flag(help: "Also read back and decrypt every page of the copy before it replaces the database.")
        var fullCheck = false

        func run() throws {
            let json = self.json ? JSONOutput(command: "restore", path: to) : nil
            try CommandRunner.run(json: json, remedies: .restore) {
                try DatabaseFile.checkExistingDatabaseFile(backup)
                try OtherProcesses.refuseReplacing(to, force: force)
                let isPlaintext = DatabaseFileInfo.inspect(path: backup).kind == .plaintext && !key.isGiven
                var backupKey: DatabaseKey?
                var current: DatabaseKey?
                if isPlaintext {
                    backupKey = nil
                } else if currentKey.source.isGiven {
                    (backupKey, current) = try KeyReader.readPair(current: key.source(role: "backup's key", confirm: false), as: SlotDatabase.keyMaker(for: backup),
                                                                  new: currentKey.source(role: "database's current key"), as: SlotDatabase.keyMaker(for: to))
                } else {
                    (backupKey, current) = try Self.keys(backup: backup, database: to, from: key.source(confirm: false))
                }
                let (options, _) = CommandRunner.conversionOptions(quiet: quiet, fullCheck: fullCheck, verb: "restoring")
                let report = try DatabaseBackup.restore(backup: backup, key: backupKey, cipher: isPlaintext ? .libraryDefaults : cipher.settings,
                                                        over: to, currentKey: current, replacingUnreadable: force, replacingOtherLinks: force,
                                                        options: options)
                var warnings: [String] = []
                let slotFile = KeySlots.slotFilePath(forDatabase: to)
                if report.slotFilePath == nil && FileManager.default.fileExists(atPath: slotFile) {
                    warnings.append("the slot file '\(slotFile)' belongs to the database that was replaced: it opens nothing now. The restored database opens with the backup's key; remove the slot file.")
                }
                Summary.conversionFinished(report, verb: "Restored", quiet: quiet, fullCheck: fullCheck, json: json, warnings: warnings)
                if let slotPath = report.slotFilePath, json == nil {
                    let fromBackup = FileManager.default.contentsEqual(atPath: KeySlots.slotFilePath(forDatabase: backup), andPath: slotPath)
                    CommandRunner.say(fromBackup
                        ? "The backup's slot file was put beside it: the passphrases of the backup's time open it."
                        : "Its own slot file was kept (it opens the restored database): its current passphrases open it.", quiet: quiet)
                }
            }
        }

        /// The backup's key and, for a slot database whose data key changed since the backup
        /// (`keys rotate`), the key the database opens with now: one passphrase opens both,
        /// each through its own slot file, so no --old-key-* is needed. `nil` for the second
        /// when the database has no slot file of its own, or the passphrase opens none of its
        /// slots (the backup's key is then tried on it, as without slots).
        static func keys(backup: String, database: String, from source: KeyReader.Source) throws -> (backup: DatabaseKey, current: DatabaseKey?) {
            let backupKey = SlotDatabase.keyMaker(for: backup)
            let databaseKey = SlotDatabase.keyMaker(for: database)
            let ownSlotFile = !source.raw && SlotDatabase.usesSlotFile(database)
                && !FileManager.default.contentsEqual(atPath: KeySlots.slotFilePath(forDatabase: backup), andPath: KeySlots.slotFilePath(forDatabase: database))
            return try KeyReader.read(source) { bytes, source in
                (try backupKey(bytes, source), ownSlotFile ? try? databaseKey(bytes, source) : nil)
            }
        }
    }
}
