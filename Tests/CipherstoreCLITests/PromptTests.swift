import CipherStore
import Foundation
import TestSupport
import Testing

/// The interactive prompt, on a real pseudo-terminal (util-linux `script`).
@Suite struct PromptTests {
    @Test func newKeyIsAskedTwiceWithoutEcho() throws {
        let workspace = try TemporaryDirectory()
        let source = workspace.path("plain.db")
        let db = try Connection(path: source, key: nil)
        try db.execute(sql: "PRAGMA page_size = \(SQLCipherLibrary.defaultPageSize)")
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.close()
        let output = workspace.path("out.db")
        let run = try Terminal.runCLI(["encrypt", source, "-o", output, "--quiet"], typing: ["typed secret", "typed secret"])
        #expect(run.screen.contains("Enter the key: "))
        #expect(run.screen.contains("Enter the key again: "))
        #expect(!run.screen.contains("typed secret"), "the key was echoed: \(run.screen)")
        _ = try Connection(path: output, key: .passphrase("typed secret"))

        let mismatch = try Terminal.runCLI(["encrypt", source, "-o", workspace.path("other.db")], typing: ["one", "two"])
        #expect(mismatch.screen.contains("differ"))
        #expect(!FileManager.default.fileExists(atPath: workspace.path("other.db")))
    }

    /// A progress bar with percentage and time left on a terminal; nothing of it when standard
    /// error is not a terminal, or with --quiet.
    @Test func progressBarShowsOnATerminalOnly() throws {
        let workspace = try TemporaryDirectory()
        let source = workspace.path("large.db")
        let db = try Connection(path: source, key: nil)
        try db.execute(sql: "CREATE TABLE big(body TEXT)")
        try db.execute(sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) INSERT INTO big SELECT printf('%01000d', i) FROM n")
        try db.close()
        let keyFile = try workspace.keyFile("key", "progress key")

        let onTerminal = try Terminal.runCLI(["encrypt", source, "-o", workspace.path("a.db"), "--key-file", keyFile], typing: [])
        #expect(onTerminal.status == 0, "\(onTerminal.screen)")
        #expect(onTerminal.screen.contains("encrypting ["), "\(onTerminal.screen)")
        #expect(onTerminal.screen.contains("100%"), "\(onTerminal.screen)")
        #expect(onTerminal.screen.contains("copying"), "\(onTerminal.screen)")

        let quiet = try Terminal.runCLI(["encrypt", source, "-o", workspace.path("b.db"), "--key-file", keyFile, "--quiet"], typing: [])
        #expect(quiet.status == 0)
        #expect(!quiet.screen.contains("encrypting ["), "\(quiet.screen)")

        let piped = try CLI.run(["encrypt", source, "-o", workspace.path("c.db"), "--key-file", keyFile])
        #expect(piped.status == 0)
        #expect(!piped.errorOutput.contains("encrypting ["), "\(piped.errorOutput)")
    }
}
