import ArgumentParser
import CipherStore
import Foundation

extension CipherStoreCommand {
    /// `cipherstore info FILE`: what a file is, without a key.
    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Tell whether a file is a plaintext SQLite database, an encrypted one, or neither.",
            discussion: """
                Reads only the first bytes of the file and never needs a key. Also prints the \
                linked SQLCipher and SQLite versions.

                Example:
                  cipherstore info app.db
                  cipherstore info --json app.db
                """
        )

        @Argument(help: "The file to inspect.")
        var file: String

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() throws {
            try CommandRunner.run { try inspect() }
        }

        private func inspect() throws {
            let info = DatabaseFileInfo.inspect(path: file)
            // Nothing to describe: say what is wrong, and only that.
            switch info.kind {
            case .missing, .directory, .notARegularFile, .unreadable:
                throw CLIError(exitCode: ExitCodes.ioFailure, message: "'\(file)' is \(info.kindDescription): check the path.")
            default:
                break
            }
            let walBytes = FileManager.default.fileExists(atPath: file + "-wal")
                ? ((try? FileManager.default.attributesOfItem(atPath: file + "-wal")[.size] as? Int) ?? 0) : 0
            if json {
                var object: [String: Any] = [
                    "path": info.path,
                    "kind": info.kind.rawValue,
                    "size": info.size,
                    "sqlcipherVersion": SQLCipherLibrary.sqlcipherVersion ?? NSNull(),
                    "sqliteVersion": SQLCipherLibrary.sqliteVersion,
                ]
                if let pageSize = info.plaintextPageSize { object["pageSize"] = pageSize }
                if walBytes > 0 { object["walBytes"] = walBytes }
                print(JSONOutput.text(object))
            } else {
                print("file:     \(info.path)")
                print("kind:     \(info.kindDescription)")
                print("size:     \(info.size) bytes")
                if let pageSize = info.plaintextPageSize { print("pages:    \(pageSize) bytes each") }
                if walBytes > 0 {
                    print("WAL:      \(file)-wal holds \(walBytes) bytes of changes not yet in the main file (they are part of the database: copy the two files together)")
                }
                print("SQLCipher \(SQLCipherLibrary.sqlcipherVersion ?? "not linked"), SQLite \(SQLCipherLibrary.sqliteVersion)")
            }
            switch info.kind {
            case .notADatabase:
                throw CLIError(exitCode: ExitCodes.wrongFileKind, message: "'\(file)' is not a SQLite or SQLCipher database.")
            default:
                break
            }
        }
    }
}
