import Foundation
import TestSupport

/// Python's sqlcipher3 (the `sqlcipher3-binary` wheel, with a SQLCipher 4 of its own), in a
/// virtual environment of the tests: `.build/interop-venv`, made once by
/// `Tools/scripts/python-sqlcipher3.sh` (`.ci/run` runs it before the tests; otherwise the first
/// test that needs it does). When it cannot be installed, the tests that need it fail with the
/// script's message: they never pass without having run.
enum PythonSQLCipher {
    /// The package's root folder.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    /// The environment's python, or why there is none.
    static let python: Result<String, Unavailable> = {
        let script = packageRoot.appendingPathComponent("Tools/scripts/python-sqlcipher3.sh").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = [packageRoot.appendingPathComponent(".build/interop-venv").path]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return .failure(Unavailable(description: "could not run \(script): \(error)")) }
        let result = ProcessResult.collect(process, output: output, errors: errors)
        let python = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard result.status == 0, !python.isEmpty else {
            return .failure(Unavailable(description: "Python's sqlcipher3 is not available (\(script) exited with \(result.status)): \(result.errorOutput)"))
        }
        return .success(python)
    }()

    /// Runs `script` (given on standard input, never in argv) in `directory`, with the
    /// passphrase in `$APP_DB_PASSPHRASE`, as the guide's example reads it.
    static func run(_ script: String, in directory: String, passphrase: String) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try python.get())
        process.arguments = ["-"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = ProcessInfo.processInfo.environment.merging(["APP_DB_PASSPHRASE": passphrase]) { $1 }
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(script.utf8))
        try input.fileHandleForWriting.close()
        return ProcessResult.collect(process, output: output, errors: errors)
    }
}
