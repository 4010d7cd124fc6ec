import Foundation
import TestSupport

/// Runs the real `sqlcipher` shell, feeding the script (and so any key) on standard input,
/// never in argv.
enum SQLCipherShell {
    static func run(database: String, script: String) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlcipher", "-batch", database]
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
