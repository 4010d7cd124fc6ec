import ArgumentParser
import CipherStore
import Foundation

extension CipherStoreCommand {
    /// `cipherstore settings DATABASE`: which cipher settings open a file with its key.
    struct Settings: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Find the cipher settings an encrypted file was made with, given its key.",
            discussion: """
                For "file is not a database" / "the key is wrong" when the key is right: after an \
                upgrade, a port or a change of library, the page size, KDF iterations or HMAC may \
                differ from the defaults. Tries what SQLCipher 1 to 4 write: page sizes 512 to \
                65536, every KDF iteration count from 1 to 1000000 (and those given above that), \
                PBKDF2 with SHA-1, SHA-256 or SHA-512, HMAC on and off, SQLCipher 2.0's \
                big-endian page numbers and 0x00 HMAC salt mask, a plaintext header when --salt \
                is given, and prints the settings that open the file: as options for the other \
                commands, and as a CipherSettings value for the library. A passphrase is \
                stretched once per KDF hash, every count tested on the way (about a second for \
                the whole range); reads only the first pages, changes nothing, never prints the \
                key. The rarer options it may print are listed by `--help-hidden` of each command.

                Examples:
                  cipherstore settings app.db --key-file app.key
                  cipherstore settings app.db --key-env APP_DB_KEY --kdf-iterations 100000 --json

                \(SlotDatabase.help)

                Exit codes: 0 found, 64 usage error, 65 no known setting opens the file with this \
                key (the key is wrong, or the file is damaged), 66 not encrypted, 67 the first \
                page opens but the file is damaged further on, 74 I/O failure.
                """
        )

        @Argument(help: "The encrypted database.", completion: .file())
        var database: String

        @OptionGroup var key: KeyOptions

        @Option(name: .customLong("kdf-iterations"), help: "Also try this many KDF iterations (repeatable).")
        var kdfIterations: [Int] = []

        @Option(name: .customLong("max-kdf-iterations"),
                help: ArgumentHelp("Try every KDF iteration count from 1 to this one (0: only SQLCipher's defaults and those given).", valueName: "count"))
        var maxKDFIterations = CipherSettingsFinder.defaultMaxKDFIterations

        @Option(help: ArgumentHelp("The 16-byte salt of a file with a plaintext header, as 32 hexadecimal digits.", valueName: "hex"))
        var salt: String?

        @Flag(help: "Print one JSON object on standard output, on failure too.")
        var json = false

        func validate() throws {
            if let salt, CipherOptions.bytes(hex: salt) == nil {
                throw ValidationError("--salt must be 32 hexadecimal digits (16 bytes).")
            }
            if kdfIterations.contains(where: { $0 < 1 }) { throw ValidationError("--kdf-iterations must be at least 1.") }
            if !(0...Int(Int32.max)).contains(maxKDFIterations) {
                throw ValidationError("--max-kdf-iterations must be from 0 to 2147483647.")
            }
        }

        func run() throws {
            let output = json ? JSONOutput(command: "settings", path: database) : nil
            try CommandRunner.run(json: output) {
                try DatabaseFile.checkExistingDatabaseFile(database)
                if DatabaseFileInfo.inspect(path: database).kind == .plaintext { throw CipherStoreError.notEncrypted(path: database) }
                let databaseKey = try SlotDatabase.openingKey(for: database, from: key.source(confirm: false))
                let clock = ContinuousClock()
                let start = clock.now
                guard let found = try CipherSettingsFinder.find(path: database, key: databaseKey, kdfIterations: kdfIterations,
                                                                salt: salt.flatMap(CipherOptions.bytes(hex:)),
                                                                maxKDFIterations: maxKDFIterations) else {
                    let searched = maxKDFIterations > 0 ? "every KDF iteration count up to \(maxKDFIterations) was tried" : "only the defaults were tried"
                    throw CLIError(exitCode: ExitCodes.wrongKey, message: "No known setting opens '\(database)' with this key (\(searched)): the key is wrong, or the file is damaged (or it was made with settings outside the ones tried: give a higher count with --kdf-iterations or --max-kdf-iterations, its salt with --salt). Nothing was changed.", kind: "wrongKey")
                }
                let elapsed = clock.now - start
                if found.saltFromSchemaCopy {
                    throw DatabaseFileError.damaged(path: database, detail: "its first 16 bytes, the salt, are damaged: with the salt its schema copy keeps, its pages open with \(Summary.text(found.settings)). `cipherstore repair` reads it with that salt")
                }
                if found.firstPageDamaged {
                    throw DatabaseFileError.damaged(path: database, detail: "its first page opens with no setting, but its second page opens with \(Summary.text(found.settings)), so the key is right and page 1 is damaged. `cipherstore repair` reads every other page with these settings (\(Self.options(for: found.settings).map { $0.isEmpty ? "no options needed" : $0.joined(separator: " ") } ?? "see the Swift value in the README"))")
                }
                let size = DatabaseFileInfo.inspect(path: database).size
                if let pageSize = found.settings.pageSize, size % Int64(pageSize) != 0 {
                    throw DatabaseFileError.damaged(path: database, detail: "its first page opens with \(Summary.text(found.settings)), but it is \(size) bytes, not a whole number of \(pageSize)-byte pages: it was cut short. `cipherstore repair` reads the pages it has")
                }
                if found.linkedSQLCipherSupportsThem && !found.opensWithLinkedSQLCipher {
                    throw DatabaseFileError.damaged(path: database, detail: "its first page opens with \(Summary.text(found.settings)), but SQLite cannot read the file with them: it is damaged or cut short after the first page")
                }
                let options = Self.options(for: found.settings)
                if let output {
                    output.succeed([
                        "settings": Summary.fields(found.settings), "options": options.map { $0 as Any } ?? NSNull(),
                        "sourceOptions": options.map { Self.sourceOptions($0) as Any } ?? NSNull(),
                        "swift": Self.swiftValue(found.settings), "opensWithLinkedSQLCipher": found.opensWithLinkedSQLCipher,
                        "linkedSQLCipherSupportsThem": found.linkedSQLCipherSupportsThem,
                        "keyDerivations": found.keyDerivations, "candidatesTried": found.candidatesTried,
                        "milliseconds": Summary.millisecondsValue(elapsed),
                    ])
                    return
                }
                var lines = ["'\(database)' opens with: \(Summary.text(found.settings))."]
                switch options {
                case .some(let options) where options.isEmpty:
                    lines.append("  cipherstore: no options needed (the linked SQLCipher's defaults)")
                case .some(let options):
                    lines.append("  cipherstore: " + options.joined(separator: " "))
                    lines.append("  rekey, upgrade, keys rotate (the source): " + Self.sourceOptions(options).joined(separator: " "))
                case .none:
                    lines.append("  cipherstore: no options express these settings; use the library value below")
                }
                lines.append("  Swift:       " + Self.swiftValue(found.settings))
                if !found.opensWithLinkedSQLCipher {
                    lines.append("The linked SQLCipher \(SQLCipherLibrary.sqlcipherVersion ?? "") cannot open a file with these settings: use a cipherstore linked with SQLCipher 4 (`make install SQLCIPHER=4`), or upgrade the file with one.")
                }
                lines.append("Found in \(Summary.milliseconds(elapsed)): \(Summary.counted(found.keyDerivations, "key derivation")), \(Summary.counted(found.candidatesTried, "candidate")) tried.")
                print(lines.joined(separator: "\n"))
            }
        }

        /// The options of the other commands that give `settings` on the linked SQLCipher, or
        /// `nil` when none do (SQLCipher 3 linked, and a KDF hash it does not have).
        static func options(for settings: CipherSettings) -> [String]? {
            let linked4 = SQLCipherLibrary.sqlcipherMajorVersion >= 4
            var options: [String] = []
            let base: CipherSettings
            if settings.kdfAlgorithm == .sha1 {
                base = .sqlcipher3
                if linked4 { options.append("--sqlcipher3") }
            } else if linked4 {
                base = .sqlcipher4
            } else {
                return nil
            }
            if settings.pageSize != base.pageSize { options += ["--page-size", "\(settings.pageSize ?? 0)"] }
            if settings.kdfIterations != base.kdfIterations { options += ["--kdf-iterations", "\(settings.kdfIterations ?? 0)"] }
            if let kdf = settings.kdfAlgorithm, kdf != base.kdfAlgorithm { options += ["--kdf-algorithm", HashOption(kdf).rawValue] }
            if settings.useHMAC == false {
                options.append("--no-hmac")
            } else if let hmac = settings.hmacAlgorithm, hmac != base.hmacAlgorithm {
                options += ["--hmac-algorithm", HashOption(hmac).rawValue]
            }
            if settings.hmacPageNumberByteOrder == .bigEndian { options += ["--hmac-pgno", "be"] }
            if let mask = settings.hmacSaltMask { options += ["--hmac-salt-mask", String(format: "%02x", mask)] }
            if let iterations = settings.hmacKDFIterations { options += ["--hmac-kdf-iterations", "\(iterations)"] }
            if let salt = settings.salt, (settings.plaintextHeaderSize ?? 0) > 0 {
                options += ["--plaintext-header", "--salt", salt.map { String(format: "%02x", $0) }.joined()]
            }
            return options
        }

        /// The same options as `rekey`, `upgrade` and `keys rotate` take them for their source:
        /// each spelled with `--old-`.
        static func sourceOptions(_ options: [String]) -> [String] {
            options.map { $0.hasPrefix("--") ? "--old-" + $0.dropFirst(2) : $0 }
        }

        /// `CipherSettings(pageSize: 4096, …)`, as Swift source.
        static func swiftValue(_ settings: CipherSettings) -> String {
            var arguments = ["pageSize: \(settings.pageSize ?? 0)", "kdfIterations: \(settings.kdfIterations ?? 0)",
                             "useHMAC: \(settings.useHMAC ?? true)"]
            if let kdf = settings.kdfAlgorithm { arguments.append("kdfAlgorithm: .\(kdf)") }
            if settings.useHMAC != false, let hmac = settings.hmacAlgorithm { arguments.append("hmacAlgorithm: .\(hmac)") }
            arguments.append("plaintextHeaderSize: \(settings.plaintextHeaderSize ?? 0)")
            if let salt = settings.salt { arguments.append("salt: [" + salt.map { String(format: "0x%02x", $0) }.joined(separator: ", ") + "]") }
            if let order = settings.hmacPageNumberByteOrder { arguments.append("hmacPageNumberByteOrder: .\(order)") }
            if let mask = settings.hmacSaltMask { arguments.append(String(format: "hmacSaltMask: 0x%02x", mask)) }
            if let iterations = settings.hmacKDFIterations { arguments.append("hmacKDFIterations: \(iterations)") }
            return "CipherSettings(" + arguments.joined(separator: ", ") + ")"
        }
    }
}
