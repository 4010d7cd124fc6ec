import Foundation
import TestSupport
import Testing

/// The README's example is a program of this package: the same text, compiled and run.
@Suite struct ReadmeExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func theREADMEShowsTheCompiledExampleWordForWord() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let example = try String(contentsOf: Self.root.appendingPathComponent("Tests/ReadmeExample/main.swift"), encoding: .utf8)
        let marker = "Then, in `Sources/YourApp/main.swift`:\n\n```swift\n"
        let start = try #require(readme.range(of: marker), "the README no longer introduces the example")
        let end = try #require(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        #expect(String(readme[start.upperBound..<end.lowerBound]) == example)
    }

    @Test func theExampleRuns() throws {
        let workspace = try TemporaryDirectory()
        let executable = CLI.executable.deletingLastPathComponent().appendingPathComponent("readme-example")
        let process = Process()
        process.executableURL = executable
        process.currentDirectoryURL = workspace.url
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(errorText)")
        #expect(printed == "notes: 1\na wrong key is refused\n")
    }
}
