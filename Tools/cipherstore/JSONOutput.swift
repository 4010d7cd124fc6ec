import CipherStore
import Foundation

/// What `--json` prints on standard output: one JSON object on one line, on success and on
/// failure alike, and nothing else (progress, prompts, warnings and the error text stay on
/// standard error). The exit code is the same as without `--json`.
///
/// ```
/// {"ok":true,"command":"verify","path":"app.db",…the report's fields…}
/// {"ok":false,"command":"verify","path":"app.db","error":{"kind":"wrongKey","message":"Cannot decrypt …","exitCode":65}}
/// ```
///
/// Keys are never part of it: the fields come from reports and error messages, which never
/// hold key material.
struct JSONOutput {
    /// The subcommand's name: `verify`, `encrypt`, `decrypt`, `rekey`, `upgrade`.
    let command: String
    /// The database the command was given.
    let path: String

    /// The paragraph of `--help` that describes the shape.
    static let help = """
        With --json: one JSON object on standard output and nothing else there: \
        {"ok": true, "command": …, "path": …, "tables": …, "rows": …, "pageSize": …, \
        "kdfIterations": …, "verified": true, …} on success (every field in the README), \
        {"ok": false, "command": …, "path": …, "error": {"kind": …, "message": …, "exitCode": …}} \
        on failure, with the same exit code as without --json.
        """

    /// Prints `{"ok": true, "command": …, "path": …}` and the given fields.
    func succeed(_ fields: [String: Any]) {
        var object = fields
        object["ok"] = true
        object["command"] = command
        object["path"] = path
        Self.print(object)
    }

    /// Prints `{"ok": false, "command": …, "path": …, "error": {"kind", "message", "exitCode"}}`.
    func fail(_ error: any Error, message: String, exitCode: Int32) {
        Self.print([
            "ok": false,
            "command": command,
            "path": path,
            "error": ["kind": Self.kind(of: error), "message": message, "exitCode": Int(exitCode)] as [String: Any],
        ])
    }

    /// Whether `--json` is among the arguments (before a `--`, after which every argument is a
    /// name).
    static func isRequested(in arguments: [String]) -> Bool {
        // `cipherstore help verify --json` asks for help, which is text.
        arguments.first != "help" && arguments.prefix { $0 != "--" }.contains("--json")
    }

    /// The failure object for arguments that could not be read (a usage error): `command` is
    /// the subcommand words given (`verify`, `keys add`), `path` is `null`, as which argument
    /// is the path is not known.
    static func usageFailure(arguments: [String], message: String, exitCode: Int32) {
        print([
            "ok": false,
            "command": DashedArguments.subcommand(in: arguments[...]).joined(separator: " "),
            "path": NSNull(),
            "error": ["kind": "usage", "message": message, "exitCode": Int(exitCode)] as [String: Any],
        ])
    }

    /// One object on one line, keys sorted so the output is stable.
    static func text(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            // Only a value JSON cannot hold ends up here; the fields are strings, numbers,
            // booleans, null, arrays and objects.
            return #"{"ok":false,"error":{"kind":"failure","message":"the result could not be written as JSON","exitCode":74}}"#
        }
        return String(decoding: data, as: UTF8.self)
    }

    private static func print(_ object: [String: Any]) {
        StandardStreams.writeOutput(text(object) + "\n")
    }

    /// `error.kind`: the case name of a library error (`wrongKey`, `damaged`, `outputExists`,
    /// `sourceMissing`…), `sqlite` for an error SQLite reported, and for the tool's own errors
    /// the kind of failure their exit code stands for (`usage`, `wrongKey`, `wrongFileKind`,
    /// `damaged`, `io`, `cancelled`).
    static func kind(of error: any Error) -> String {
        switch error {
        case let error as CLIError:
            return error.kind ?? kind(exitCode: error.exitCode)
        case is DatabaseError:
            return "sqlite"
        case is NotDurableError:
            return "notDurable"
        case let error as KeySlotError:
            switch error {
            case .recoveryKeyMistyped: return "recoveryKeyMistyped"
            case .nothingToKeep: return "nothingToKeep"
            default: return caseName(of: error) ?? kind(exitCode: CommandRunner.exitCode(for: error))
            }
        case let error as BackupError:
            return caseName(of: error) ?? kind(exitCode: CommandRunner.exitCode(for: error))
        case let error as RepairError:
            return caseName(of: error) ?? kind(exitCode: CommandRunner.exitCode(for: error))
        case let error as DatabaseFileError:
            if case .cancelled = error { return "cancelled" }
            return caseName(of: error) ?? kind(exitCode: CommandRunner.exitCode(for: error))
        case let error as CipherStoreError:
            switch error {
            case .reentrantQueueAccess: return "reentrantQueueAccess"
            case .connectionClosed: return "connectionClosed"
            default: return caseName(of: error) ?? kind(exitCode: CommandRunner.exitCode(for: error))
            }
        default:
            return kind(exitCode: CommandRunner.exitCode(for: error))
        }
    }

    /// The kind of failure an exit code stands for.
    static func kind(exitCode: Int32) -> String {
        switch exitCode {
        case 64: return "usage"
        case ExitCodes.wrongKey: return "wrongKey"
        case ExitCodes.wrongFileKind: return "wrongFileKind"
        case ExitCodes.verificationFailed: return "damaged"
        case ExitCodes.ioFailure: return "io"
        case ExitCodes.cancelled, 128 + SIGTERM, 128 + SIGHUP: return "cancelled"
        default: return "failure"
        }
    }

    /// The name of an enum case with associated values (`wrongKey` for `.wrongKey(path:)`).
    private static func caseName(of value: Any) -> String? {
        Mirror(reflecting: value).children.first?.label
    }
}
