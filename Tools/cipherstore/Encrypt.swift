import ArgumentParser
import CipherStore
import Foundation

extension CipherStoreCommand {
    /// `cipherstore encrypt SOURCE`: a plaintext database into an encrypted one.
    struct Encrypt: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Encrypt an existing plaintext SQLite database.",
            discussion: """
                Copies the database into a new encrypted file (schema, every row with its rowid, \
                user_version, application_id), verifies it against the source, syncs it and \
                moves it into place with one atomic rename: if anything fails, the source is \
                unchanged and nothing partial remains. With --output the result is a snapshot, \
                and writers to the source wait while it is read (the run says so when another \
                process has the source open). --in-place replaces the source, and is refused \
                while another process has it open (--force). The key comes from --key-file, \
                --key-env, --key-stdin or the prompt (asked twice), never the command line. \
                --key-slots (with --in-place) makes a slot database (see `cipherstore keys`).

                The rarer options (SQLCipher 4's plaintext header and hashes, SQLCipher 2.0's \
                HMAC variants, the page cache, the slot's key derivation) are listed by \
                --help-hidden; the README's "Command-line tool" section has the details.

                Examples:
                  cipherstore encrypt legacy.db --output app.db --key-file app.key
                  cipherstore encrypt app.db --in-place --keep-backup --key-env APP_DB_KEY
                  cipherstore encrypt app.db --in-place --key-slots --key-file first.key

                \(JSONOutput.help)

                Exit codes: 0 success, 64 usage error, \(ExitCodes.summary).
                """,
            aliases: ["encrypt-existing-db"]
        )

        @Argument(help: "The plaintext database to encrypt.", completion: .file())
        var source: String

        @OptionGroup var output: OutputOptions
        @OptionGroup var key: KeyOptions
        @OptionGroup var cipher: CipherOptions

        @Flag(help: "With --in-place: keep the plaintext original as SOURCE.plaintext-backup.")
        var keepBackup = false

        @Flag(help: "Make a slot database (with --in-place): a random data key, wrapped under the passphrase in SOURCE.keys.")
        var keySlots = false

        @OptionGroup(title: "Key derivation of the slot (with --key-slots)", visibility: .hidden) var kdf: SlotKDFOptions

        func validate() throws {
            // With --json, checked in run(), where a refusal is printed as JSON.
            if !output.json { try checkOptions() }
        }

        private func checkOptions() throws {
            try cipher.format.refuseForResult()
            if keepBackup && !output.inPlace { throw ValidationError("--keep-backup applies to --in-place only; with --output the source stays as it is.") }
            if keySlots && (!output.inPlace || keepBackup) {
                throw ValidationError("--key-slots encrypts in place, with the slot file beside the database: use it with --in-place and without --keep-backup (copy the plaintext first to keep it).")
            }
        }

        func run() throws {
            try ConversionCommand.run("encrypt", path: source, output: output, progressVerb: "encrypting",
                                      remedies: keySlots ? .inPlaceOnly : .conversions, checks: checkOptions) { options, json in
                if keySlots {
                    try encryptWithKeySlots(json: json, options: options)
                    return nil
                }
                let databaseKey = try KeyReader.read(key.source(confirm: true))
                if output.output != nil, let notice = OtherProcesses.writersWaitNotice(source: source) { warn(notice) }
                let started = ContinuousClock.now
                let sourceSize = SourceSize(source)
                let backup = keepBackup ? source + ".plaintext-backup" : nil
                // Other names of the file (hard links, allowed with --force) keep the plaintext.
                let original = try? FileManager.default.attributesOfItem(atPath: URL(fileURLWithPath: source).resolvingSymlinksInPath().path)
                let otherNames = output.inPlace ? ((original?[.referenceCount] as? Int) ?? 1) - 1 : 0
                let report = try DatabaseFile.encrypt(
                    path: source, key: databaseKey, cipher: cipher.settings(encrypting: source),
                    to: output.destination(backup: backup), options: options())
                var warnings: [String] = []
                if let note = sourceSize.pageSizeNote(given: cipher.pageSize, resultPageSize: report.verification.pageSize, resultBytes: report.outputBytes) {
                    warnings.append(note)
                }
                if let backup = report.backupPath {
                    warnings.append("the backup \(backup) is PLAINTEXT: anyone who can read it reads your data. Delete it once you no longer need it.")
                } else if output.inPlace {
                    if otherNames > 0, let inode = original?[.systemFileNumber] as? Int {
                        warnings.append("\(otherNames) other name(s) of the original (hard links) still hold the PLAINTEXT: anyone who can read them reads your data. Find them with `find / -xdev -inum \(inode)` and delete them.")
                    }
                    warnings.append("the plaintext original was replaced. Its old blocks may survive on SSDs, in file-system snapshots and in backups: deleting is best effort there.")
                } else {
                    if let snapshot = OtherProcesses.snapshotWarning(source: source, heldFor: ContinuousClock.now - started) { warnings.append(snapshot) }
                    warnings.append("the plaintext original \(source) is still there (with any \(source)-journal or \(source)-wal beside it). Delete them once the encrypted copy is in use; on SSDs, snapshots and backups, deletion is best effort.")
                }
                return .init(report: report, verb: "Encrypted", warnings: warnings)
            }
        }

        /// `--key-slots`: the library makes the slot file, then encrypts in place under the data key.
        private func encryptWithKeySlots(json: JSONOutput?, options: () -> DatabaseFileOptions) throws {
            if SlotDatabase.hasSlotFile(source) { throw KeySlotError.slotFileExists(path: KeySlots.slotFilePath(forDatabase: source)) }
            let passphrase = try KeyReader.readPassphrase(key.source(role: "passphrase", confirm: true))
            let sourceSize = SourceSize(source)
            let slot = try KeySlots.encrypt(path: source, passphrase: passphrase, kdf: kdf.kdf, cipher: cipher.settings(encrypting: source), options: options())
            let slotFile = KeySlots.slotFilePath(forDatabase: source)
            var warnings = ["the plaintext original was replaced. Its old blocks may survive on SSDs, in file-system snapshots and in backups: deleting is best effort there."]
            let resultPageSize = cipher.settings(encrypting: source).pageSize ?? SQLCipherLibrary.defaultPageSize
            let resultBytes = SourceSize(source).bytes  // The result has the source's name now.
            if let note = sourceSize.pageSizeNote(given: cipher.pageSize, resultPageSize: resultPageSize, resultBytes: resultBytes) {
                warnings.append(note)
            }
            if let json {
                json.succeed(["output": source, "slotFile": slotFile, "slot": Summary.fields(slot), "warnings": warnings])
            } else {
                CommandRunner.say("Encrypted \(source) in place into a slot database, verified; its slot file is \(slotFile) (\(Summary.text(slot))). Back up the two together.", quiet: output.quiet)
            }
            warnings.forEach(warn)
        }
    }
}

/// A plaintext source's page size and bytes (its WAL's too), taken before it is encrypted.
private struct SourceSize {
    let pageSize: Int?
    let bytes: Int64

    init(_ path: String) {
        pageSize = DatabaseFileInfo.inspect(path: path).plaintextPageSize
        let size = { (path: String) in ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0 }
        bytes = size(path) + size(path + "-wal")
    }

    /// The default page size keeps the result opening with its key alone; when it is smaller
    /// than the source's, this says what that costs in size, from 5% up.
    func pageSizeNote(given: PageSizeOption?, resultPageSize: Int, resultBytes: Int64) -> String? {
        guard given == nil, let pageSize, resultPageSize < pageSize, bytes > 0 else { return nil }
        let growth = Int((Double(resultBytes) / Double(bytes) - 1) * 100)
        guard growth >= 5 else { return nil }
        return "the result has \(resultPageSize)-byte pages, the linked SQLCipher's default (so it opens with its key alone), where the source had \(pageSize)-byte pages; it is \(growth)% larger than the source was. --page-size source keeps the source's pages (the result then opens only with that page size)."
    }
}
