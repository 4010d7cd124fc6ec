import Foundation
import TestSupport
import Testing

/// The bash completion script `make install` writes: database arguments and path options
/// complete file names.
@Suite struct CompletionCLITests {
    /// What bash offers for `line` (completing its last word) in `directory`, with the script
    /// the tool generates (readline narrows file names to the typed prefix afterwards).
    func completions(_ line: [String], in directory: String, script: String) throws -> [String] {
        let words = line.map { "'\($0)'" }.joined(separator: " ")
        let program = """
            source '\(script)'
            cd '\(directory)'
            COMP_WORDS=(\(words)); COMP_CWORD=\(line.count - 1)
            COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
            _cipherstore 2>/dev/null
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", program]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let result = ProcessResult.collect(process, output: output, errors: errors)
        return result.output.split(separator: "\n").map(String.init)
    }

    @Test func pathArgumentsAndOptionsCompleteFileNames() throws {
        let workspace = try TemporaryDirectory()
        let script = workspace.path("cipherstore.bash")
        let generated = try CLI.run(["--generate-completion-script", "bash"])
        try #require(generated.status == 0, "\(generated.errorOutput)")
        try Data(generated.output.utf8).write(to: URL(fileURLWithPath: script))
        let files = workspace.path("files")
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
        for name in ["notes.db", "notes.key"] { try Data().write(to: URL(fileURLWithPath: files + "/" + name)) }

        #expect(try completions(["cipherstore", "verify", "note"], in: files, script: script).contains("notes.db"))
        #expect(try completions(["cipherstore", "encrypt", "notes.db", "--key-file", "notes.k"], in: files, script: script).contains("notes.key"))
        #expect(try completions(["cipherstore", "keys", "change", "notes.db", "--new-key-file", "notes.k"], in: files, script: script).contains("notes.key"))
        #expect(try completions(["cipherstore", "encrypt", "notes.db", "--output", "no"], in: files, script: script).contains("notes.db"))
    }
}
