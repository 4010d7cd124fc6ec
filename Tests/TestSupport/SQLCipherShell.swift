import CipherStore
import Foundation

/// Runs the real `sqlcipher` shell, feeding the script (and so any key) on standard input,
/// never in argv.
public enum SQLCipherShell {
    /// Runs `shell` (by default the `sqlcipher` first on PATH: the linked SQLCipher's own,
    /// as `make test` arranges).
    public static func run(database: String, script: String, shell: String = "sqlcipher") throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [shell, "-batch", database]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(script.utf8))
        try input.fileHandleForWriting.close()
        return ProcessResult.collect(process, output: output, errors: errors)
    }

    /// Starts the shell on `database` (`-bail`: it stops at the first error), for a test to
    /// feed line by line as another process holding the database open.
    /// - Returns: the process, its standard input, and its error output to read once it exits.
    public static func start(database: String, shell: String = "sqlcipher") throws -> (process: Process, input: FileHandle, errors: Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [shell, "-batch", "-bail", database]
        let input = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        return (process, input.fileHandleForWriting, errors)
    }

    /// Waits (up to 30 s) until `process` has `database` open as the commands' check for other
    /// processes sees it: a shell opens its database at its first statement, which a slow
    /// machine may reach after a fixed pause.
    /// - Returns: whether it does.
    public static func waitUntil(_ process: Process, hasOpen database: String) -> Bool {
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning && Date() < deadline {
            if OpenFileHolders.processes(holdingDatabase: database).contains(where: { $0.pid == process.processIdentifier }) { return true }
            usleep(10_000)
        }
        return false
    }

    /// What the script's queries printed: SQLCipher 4's shell first answers `PRAGMA key` with a
    /// line "ok", SQLCipher 3's prints nothing.
    public static func queryOutput(of result: ProcessResult) -> String {
        result.output.hasPrefix("ok\n") ? String(result.output.dropFirst(3)) : result.output
    }

    /// The SQLCipher version a shell reports (`PRAGMA cipher_version`), e.g. "3.4.1".
    public static func version(of shell: String = "sqlcipher") -> String? {
        guard let result = try? run(database: ":memory:", script: "PRAGMA cipher_version;\n", shell: shell),
              result.status == 0 else { return nil }
        let version = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        return version.isEmpty ? nil : version
    }

    /// A SQLCipher 3 shell for the tests across versions while SQLCipher 4 is linked:
    /// `$CIPHERSTORE_SQLCIPHER3_SHELL` (`make test SQLCIPHER=4` sets it), else the system's
    /// `/usr/bin/sqlcipher` when that one is SQLCipher 3.
    public static let sqlcipher3: String? = {
        if let path = ProcessInfo.processInfo.environment["CIPHERSTORE_SQLCIPHER3_SHELL"], !path.isEmpty { return path }
        let system = "/usr/bin/sqlcipher"
        return version(of: system)?.hasPrefix("3.") == true ? system : nil
    }()

    /// A SQLCipher 4 shell for the tests across versions while SQLCipher 3 is linked:
    /// `$CIPHERSTORE_SQLCIPHER4_SHELL`, which `make test` sets once `make sqlcipher4` has built
    /// SQLCipher 4.6.1 (`.ci/run` builds it first, so CI always has it).
    public static let sqlcipher4: String? = {
        guard let path = ProcessInfo.processInfo.environment["CIPHERSTORE_SQLCIPHER4_SHELL"], !path.isEmpty else { return nil }
        return path
    }()

    /// A shell that writes SQLCipher 3's format by default: the linked library's own when it
    /// is 3.x, else ``sqlcipher3``.
    public static var format3: String? { LinkedSQLCipher.isVersion3 ? "sqlcipher" : sqlcipher3 }

    /// A shell that writes SQLCipher 4's format by default: the linked library's own when it
    /// is 4.x, else ``sqlcipher4``.
    public static var format4: String? { LinkedSQLCipher.isVersion4 ? "sqlcipher" : sqlcipher4 }

    /// Makes `database` with `shell`: the key on standard input (never argv), then `pragmas`
    /// (settings, one statement each), then a table `t` with one row, 'row'.
    public static func make(_ database: String, shell: String, key: String, pragmas: [String]) throws -> ProcessResult {
        let script = "PRAGMA key = '\(key)';\n" + pragmas.map { "PRAGMA \($0);\n" }.joined()
            + "CREATE TABLE t(x);\nINSERT INTO t VALUES ('row');\n"
        return try run(database: database, script: script, shell: shell)
    }

    /// Why a test that needs `sqlcipher4` did not run.
    public static let sqlcipher4Missing = "needs a SQLCipher 4 shell: CIPHERSTORE_SQLCIPHER4_SHELL is not set (`make test` sets it once `make sqlcipher4` has built .build-sqlcipher4/)"
}
