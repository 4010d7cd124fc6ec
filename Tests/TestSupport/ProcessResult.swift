import Foundation

/// What a child process printed and how it ended.
public struct ProcessResult: Sendable {
    public let status: Int32
    public let output: String
    public let errorOutput: String

    public init(status: Int32, output: String, errorOutput: String) {
        self.status = status
        self.output = output
        self.errorOutput = errorOutput
    }

    /// Reads both pipes to their end — standard error on another thread, so a child that fills
    /// one pipe while the other is being read never blocks — then waits for the process.
    public static func collect(_ process: Process, output: Pipe, errors: Pipe) -> ProcessResult {
        let errorData = ErrorReader(errors.fileHandleForReading)
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ProcessResult(status: process.terminationStatus,
                             output: String(decoding: outputData, as: UTF8.self),
                             errorOutput: String(decoding: errorData.wait(), as: UTF8.self))
    }
}

/// Reads a pipe to its end on a thread of its own.
private final class ErrorReader: @unchecked Sendable {
    // Sendable: `data` is written once by the reading thread before `done` is signalled, and
    // read only after `wait()` has seen the signal.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}
