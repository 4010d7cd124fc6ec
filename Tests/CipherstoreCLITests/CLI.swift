import Foundation
import TestSupport

/// Runs the built `cipherstore` executable, as a user would.
enum CLI {
    /// The executable, next to the test bundle in the build folder.
    static let executable: URL = {
        let testBinary = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        var directory = testBinary.deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("cipherstore").path), directory.path != "/" {
            directory = directory.deletingLastPathComponent()
        }
        return directory.appendingPathComponent("cipherstore")
    }()

    static func start(_ arguments: [String], environment: [String: String] = [:], input: String? = nil,
                      wrapper: [String] = []) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        if wrapper.isEmpty {
            process.executableURL = executable
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", wrapper.joined(separator: "; ") + "; exec \"$0\" \"$@\"", executable.path] + arguments
        }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe(), errors = Pipe(), stdin = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        return (process, output, errors)
    }

    @discardableResult
    static func run(_ arguments: [String], environment: [String: String] = [:], input: String? = nil,
                    wrapper: [String] = []) throws -> ProcessResult {
        let (process, output, errors) = try start(arguments, environment: environment, input: input, wrapper: wrapper)
        return ProcessResult.collect(process, output: output, errors: errors)
    }
}

