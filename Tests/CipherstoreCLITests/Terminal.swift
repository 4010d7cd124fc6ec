import Foundation

/// A shell command on a real pseudo-terminal (util-linux `script`), for the prompt and the
/// progress bar: what the terminal showed, and the command's exit status.
enum Terminal {
    /// Runs `command` on a terminal `columns` wide, typing each of `lines` after a pause.
    static func run(_ command: String, columns: Int = 100, typing lines: [String] = []) throws -> (screen: String, status: Int32) {
        let typing = lines.isEmpty ? "true" : lines.map { "sleep 0.7; printf '%s\\n' '\($0)'" }.joined(separator: "; ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "(\(typing)) | script -qec \"stty cols \(columns); \(command)\" /dev/null"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let screen = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (screen, process.terminationStatus)
    }

    /// The CLI with `arguments`, on a terminal.
    static func runCLI(_ arguments: [String], typing lines: [String] = []) throws -> (status: Int32, screen: String) {
        let result = try run(([CLI.executable.path] + arguments).map { "'\($0)'" }.joined(separator: " "), typing: lines)
        return (result.status, result.screen)
    }
}
