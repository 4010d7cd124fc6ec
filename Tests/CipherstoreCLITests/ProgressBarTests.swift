import CipherStore
import Foundation
import Testing

/// The progress bar fits the terminal and redraws in place.
@Suite struct ProgressBarTests {
    @Test(arguments: [50, 24, 100])
    func everyLineFitsTheTerminal(columns: Int) throws {
        let workspace = try Workspace()
        let source = workspace.path("large.db")
        let db = try Connection(path: source, key: nil)
        try db.execute(sql: "CREATE TABLE big(body TEXT)")
        try db.execute(sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) INSERT INTO big SELECT printf('%01000d', i) FROM n")
        try db.close()
        let keyFile = try workspace.keyFile("key", "progress key")
        let command = [CLI.executable.path, "encrypt", source, "-o", workspace.path("a.db"), "--key-file", keyFile]
            .map { "'\($0)'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "script -qec \"stty cols \(columns); \(command)\" /dev/null"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let screen = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(screen)")

        // Each redraw starts with a carriage return and ends by clearing the rest of the line.
        let redraws = screen.components(separatedBy: "\r").map { $0.components(separatedBy: "\u{1B}[K")[0] }
            .filter { $0.hasPrefix("encrypting") }
        #expect(redraws.count >= 2, "\(screen)")
        for line in redraws { #expect(line.count < columns, "\(line.count) columns: \(line)") }
        #expect(redraws.last?.contains("100%") == true, "\(redraws)")
        // Wide enough for the longest figures ("verifying", a time left), a bar; too narrow, only
        // the figures. Between the two the bar comes and goes with the length of the figures.
        #expect(redraws.allSatisfy { $0.contains("[") } == (columns >= 50), "\(redraws)")
    }
}
