import Foundation

/// What a child process printed and how it ended.
public struct ProcessResult: Sendable {
    public let status: Int32
    public let output: String
    public let errorOutput: String

    /// Reads both pipes to their end, then waits for the process.
    public static func collect(_ process: Process, output: Pipe, errors: Pipe) -> ProcessResult {
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ProcessResult(status: process.terminationStatus,
                             output: String(decoding: outputData, as: UTF8.self),
                             errorOutput: String(decoding: errorData, as: UTF8.self))
    }
}
