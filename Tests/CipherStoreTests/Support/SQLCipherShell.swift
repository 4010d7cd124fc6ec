import Foundation

/// Runs the real `sqlcipher` shell, feeding the script (and so any key) on standard input,
/// never in argv.
enum SQLCipherShell {
    struct Result {
        let status: Int32
        let output: String
        let errorOutput: String
    }

    static func run(database: String, script: String) throws -> Result {
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
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      output: String(decoding: outputData, as: UTF8.self),
                      errorOutput: String(decoding: errorData, as: UTF8.self))
    }
}
