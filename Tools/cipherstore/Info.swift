import ArgumentParser
import CipherStore
import Foundation

extension CipherStoreCommand {
    /// `cipherstore info FILE`: what a file is, without a key.
    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Tell whether a file is a plaintext SQLite database, an encrypted one, or neither.",
            discussion: """
                Reads only the first bytes of the file and needs no key. Also prints the linked \
                SQLCipher and SQLite versions, and whether the database uses key slots (a slot \
                file FILE.keys beside it) and how many open it. With a key (--key-file, \
                --key-env, --key-stdin; never asked for), it also opens the database, read-only, \
                and prints the cipher settings that opened it: page size, KDF iterations and HMAC, \
                and with SQLCipher 4 the KDF and HMAC algorithms and the plaintext header size. \
                Give the settings the file was made with as for verify (--sqlcipher3, --page-size, \
                --kdf-iterations).

                Examples:
                  cipherstore info app.db
                  cipherstore info --json app.db
                  cipherstore info app.db --key-file app.key --sqlcipher3

                Exit codes: 0 success, 64 usage error, \(ExitCodes.summary).
                """
        )

        @Argument(help: "The file to inspect.", completion: .file())
        var file: String

        @Flag(help: "Print JSON instead of text.")
        var json = false

        @OptionGroup(title: "Key (optional: to show the cipher settings that open the file)") var key: KeyOptions
        @OptionGroup(title: "Cipher settings the database was made with") var cipher: CipherOptions

        func run() throws {
            let output = json ? JSONOutput(command: "info", path: file) : nil
            try CommandRunner.run(json: output) { try inspect(output) }
        }

        private func inspect(_ output: JSONOutput?) throws {
            let info = DatabaseFileInfo.inspect(path: file)
            // Nothing to describe: say what is wrong, and only that.
            switch info.kind {
            case .missing, .directory, .notARegularFile, .unreadable:
                throw CLIError.unusablePath(file, info)
            default:
                break
            }
            // Opened before anything is printed: a wrong key prints only its error.
            let settings = try settingsInUse()
            let walBytes = FileManager.default.fileExists(atPath: file + "-wal")
                ? ((try? FileManager.default.attributesOfItem(atPath: file + "-wal")[.size] as? Int) ?? 0) : 0
            let slots = SlotDatabase.hasSlotFile(file) ? Result { try KeySlots.list(path: file) } : nil
            if let output {
                var object: [String: Any] = [
                    "kind": info.kind.rawValue,
                    "size": info.size,
                    "sqlcipherVersion": SQLCipherLibrary.sqlcipherVersion ?? NSNull(),
                    "sqliteVersion": SQLCipherLibrary.sqliteVersion,
                ]
                if let pageSize = info.plaintextPageSize { object["pageSize"] = pageSize }
                if walBytes > 0 { object["walBytes"] = walBytes }
                object["keySlots"] = slots.map { Self.keySlotFields($0, slotFile: KeySlots.slotFilePath(forDatabase: file)) } ?? NSNull()
                if let settings { object["cipher"] = Summary.fields(settings) }
                output.succeed(object)
            } else {
                print("file:     \(info.path)")
                print("kind:     \(info.kindDescription)")
                print("size:     \(info.size) bytes")
                if let pageSize = info.plaintextPageSize { print("pages:    \(pageSize) bytes each") }
                if walBytes > 0 {
                    print("WAL:      \(file)-wal holds \(walBytes) bytes of changes not yet in the main file (they are part of the database: copy the two files together)")
                }
                if let slots { print("slots:    \(Self.keySlotText(slots, slotFile: KeySlots.slotFilePath(forDatabase: file)))") }
                if let settings { print("opens:    with \(Summary.text(settings))") }
                print("SQLCipher \(SQLCipherLibrary.sqlcipherVersion ?? "not linked"), SQLite \(SQLCipherLibrary.sqliteVersion)")
            }
            switch info.kind {
            case .notADatabase:
                throw CLIError(exitCode: ExitCodes.wrongFileKind, message: "'\(file)' is not a SQLite or SQLCipher database.")
            default:
                break
            }
        }

        /// `keySlots` in `--json`: the slot file, how many slots open the database, or what is wrong with the file.
        private static func keySlotFields(_ slots: Result<[KeySlotInfo], any Error>, slotFile: String) -> [String: Any] {
            var fields: [String: Any] = ["file": slotFile]
            switch slots {
            case .success(let slots):
                fields["count"] = Summary.openingSlots(slots)
                fields["recoveryKeys"] = slots.filter { $0.opensCurrentDatabase && $0.kind == .recoveryKey }.count
            case .failure(let error):
                fields["error"] = ErrorText.message(for: error)
            }
            return fields
        }

        private static func keySlotText(_ slots: Result<[KeySlotInfo], any Error>, slotFile: String) -> String {
            switch slots {
            case .success(let slots):
                let opening = slots.filter(\.opensCurrentDatabase)
                let recovery = opening.filter { $0.kind == .recoveryKey }.count
                return "uses key slots: \(Summary.counted(opening.count, "slot")) in \(slotFile)"
                    + (recovery > 0 ? ", including \(Summary.counted(recovery, "recovery key"))" : "") + "; open it with any of their passphrases (`cipherstore keys list` shows them)"
            case .failure(let error):
                return "a slot file \(slotFile) is beside it, but: \(ErrorText.message(for: error))"
            }
        }

        /// With a key: the settings that open the file, read back from SQLCipher.
        private func settingsInUse() throws -> CipherSettings? {
            guard key.isGiven else { return nil }
            let databaseKey = try SlotDatabase.openingKey(for: file, from: key.source(confirm: false))
            let db = try DatabaseFile.openForReading(path: file, key: databaseKey, cipher: cipher.settings)
            defer { try? db.close() }
            return try CipherSettings.inUse(by: db)
        }
    }
}
