import CipherStore
import Foundation
import TestSupport

/// Runs `cipherstore` with `Tests/FaultInjection/fault_injection.c` preloaded: the calls that
/// change files under one directory are counted, and one of them fails with EIO or kills the
/// process (see the C file for the calls it counts).
enum FaultInjection {
    enum Mode: String, Sendable, CaseIterable {
        /// The call fails with EIO and does nothing.
        case eio
        /// The process is killed (SIGKILL) instead of making the call.
        case crash
    }

    /// The preloaded library, compiled once per test process with the system's C compiler.
    static let library: String? = {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("FaultInjection/fault_injection.c").path
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("cipherstore-fault-\(getpid()).so").path
        guard Shell.succeeds("cc -shared -fPIC -O1 -o '\(output)' '\(source)' -ldl") else { return nil }
        return output
    }()

    /// How many counted calls `arguments` makes when nothing fails, run in `directory`.
    static func callCount(_ arguments: [String], directory: String, input: String? = nil) throws -> Int {
        let countFile = directory + "/.fault-count"
        let result = try run(arguments, directory: directory, at: 0, mode: .eio, input: input, countFile: countFile)
        guard result.status == 0 else {
            throw FaultInjectionError.commandFailed("\(arguments) failed without a fault: \(result.errorOutput)")
        }
        let text = try String(contentsOfFile: countFile, encoding: .utf8)
        try? FileManager.default.removeItem(atPath: countFile)
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Runs `arguments` with the `at`-th counted call under `directory` failing as `mode` says.
    static func run(_ arguments: [String], directory: String, at: Int, mode: Mode, input: String? = nil,
                    countFile: String? = nil) throws -> ProcessResult {
        guard let library else { throw FaultInjectionError.noCompiler }
        var environment = ["LD_PRELOAD": library, "FAULT_DIR": directory, "FAULT_AT": "\(at)", "FAULT_MODE": mode.rawValue]
        environment["FAULT_COUNT"] = countFile
        return try CLI.run(arguments, environment: environment, input: input)
    }

    enum FaultInjectionError: Error {
        case noCompiler
        case commandFailed(String)
    }
}

/// A database's expected content and the keys that must open it, checked after a fault.
struct ExpectedDatabase {
    enum Opener: CustomStringConvertible {
        /// No key: the file is plaintext.
        case plaintext
        /// A raw key, as 64 hexadecimal digits.
        case rawKey(String)
        /// A raw key of a file in SQLCipher 3's format (opened with `CipherSettings.sqlcipher3`).
        case rawKeySQLCipher3(String)
        /// A passphrase through the slot file.
        case slots(String)

        var description: String {
            switch self {
            case .plaintext: return "no key"
            case .rawKey: return "the raw key"
            case .rawKeySQLCipher3: return "the raw key with SQLCipher 3's settings"
            case .slots(let passphrase): return "the slot passphrase '\(passphrase)'"
            }
        }
    }

    let path: String
    let rows: Int

    /// Whether every opener in `openers` opens the database and reads all its rows intact.
    func opens(with openers: [Opener]) -> Bool {
        openers.allSatisfy { opener in
            do {
                let key: DatabaseKey?
                var cipher = CipherSettings.libraryDefaults
                switch opener {
                case .plaintext: key = nil
                case .rawKey(let hex): key = try DatabaseKey.rawKey(hex: Array(hex.utf8))
                case .rawKeySQLCipher3(let hex):
                    key = try DatabaseKey.rawKey(hex: Array(hex.utf8))
                    cipher = .sqlcipher3
                case .slots(let passphrase): key = try DatabaseKey.slots(passphrase: Passphrase(passphrase), path: path)
                }
                guard DatabaseFileInfo.inspect(path: path).kind == (key == nil ? .plaintext : .encrypted) else { return false }
                let db = try Connection(path: path, key: key, configuration: Configuration(cipher: cipher))
                defer { try? db.close() }
                let count = try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM item WHERE body = printf('item %d', id)")
                let integrity = try db.fetchScalar(String.self, sql: "PRAGMA integrity_check")
                return count == rows && integrity == "ok"
            } catch {
                return false
            }
        }
    }

    /// A plaintext database of `rows` rows, with SQLite's default 4096-byte pages.
    static func makePlaintext(at path: String, rows: Int) throws -> ExpectedDatabase {
        let db = try Connection(path: path, key: nil)
        try db.execute(sql: "CREATE TABLE item(id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        try db.inTransaction {
            for id in 1...rows { try db.execute(sql: "INSERT INTO item(id, body) VALUES (?, ?)", arguments: [id, "item \(id)"]) }
            return .commit
        }
        try db.close()
        return ExpectedDatabase(path: path, rows: rows)
    }
}
