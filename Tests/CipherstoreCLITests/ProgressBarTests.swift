import CipherStore
import Foundation
import TestSupport
import Testing

/// The progress bar fits the terminal and redraws in place.
@Suite struct ProgressBarTests {
    @Test(arguments: [50, 24, 100])
    func everyLineFitsTheTerminal(columns: Int) throws {
        let workspace = try TemporaryDirectory()
        let source = try largeDatabase(workspace, rows: 20_000)
        let keyFile = try workspace.keyFile("key", "progress key")
        let command = [CLI.executable.path, "encrypt", source, "-o", workspace.path("a.db"), "--key-file", keyFile]
            .map { "'\($0)'" }.joined(separator: " ")
        let (screen, status) = try Terminal.run(command, columns: columns)
        #expect(status == 0, "\(screen)")

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

    func largeDatabase(_ workspace: TemporaryDirectory, rows: Int) throws -> String {
        let source = workspace.path("large.db")
        let db = try Connection(path: source, key: nil)
        try db.execute(sql: "CREATE TABLE big(body TEXT)")
        try db.execute(sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) INSERT INTO big SELECT printf('%01000d', i) FROM n", arguments: [rows])
        try db.close()
        return source
    }

    @Test func aFullCheckShowsItsReadBackMoving() throws {
        let workspace = try TemporaryDirectory()
        let source = try largeDatabase(workspace, rows: 60_000)
        let keyFile = try workspace.keyFile("key", "progress key")
        let command = [CLI.executable.path, "encrypt", source, "-o", workspace.path("a.db"), "--key-file", keyFile, "--full-check"]
            .map { "'\($0)'" }.joined(separator: " ")
        let (screen, status) = try Terminal.run(command)
        #expect(status == 0, "\(screen)")
        // The read-back moves the bar past the 80 % where verifying starts, before 95 %.
        let percents = screen.components(separatedBy: "\r").filter { $0.contains("verifying") }
            .compactMap { line in line.split(separator: " ").first { $0.hasSuffix("%") }.flatMap { Int($0.dropLast()) } }
        #expect(percents.contains { $0 > 81 && $0 < 95 }, "\(percents)")
    }

    @Test func aMessageAfterTheBarStartsALineOfItsOwn() throws {
        let workspace = try TemporaryDirectory()
        let source = try largeDatabase(workspace, rows: 120_000)
        let keyFile = try workspace.keyFile("key", "progress key")
        let command = [CLI.executable.path, "encrypt", source, "-o", workspace.path("a.db"), "--key-file", keyFile]
            .map { "'\($0)'" }.joined(separator: " ")
        // Cancelled while it copies, once the bar is drawn: the cancel message must not share
        // the bar's line.
        let runner = workspace.path("cancel.sh")
        try Data("""
            \(command) &
            pid=$!
            # Copying is under way (and the bar drawn) once the output holds a few MiB.
            while [ -z "$(find '\(workspace.url.path)' -name '.a.db*.tmp' -size +4M -print -quit)" ]; do sleep 0.02; done
            kill -TERM $pid
            wait $pid
            """.utf8).write(to: URL(fileURLWithPath: runner))
        let (screen, _) = try Terminal.run("sh '\(runner)'")
        #expect(screen.contains("cipherstore: error: Cancelled"), "\(screen)")
        #expect(screen.contains("encrypting"), "no bar was drawn: \(screen)")
        #expect(!screen.contains("\u{1B}[Kcipherstore"), "the message follows the bar on its line: \(screen)")
    }
}
