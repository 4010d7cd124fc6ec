import CipherStore
import Foundation
import TestSupport
import Testing

/// Databases made by a newer SQLite (Python's, 3.40 or later here) that the linked SQLite
/// cannot fully read: every command names the table and says why, and changes nothing.
@Suite struct NewerSQLiteTests {
    let workspace: TemporaryDirectory
    let keyFile: String

    init() throws {
        workspace = try TemporaryDirectory()
        keyFile = try workspace.keyFile("k.key", "newer sqlite\n")
    }

    /// Runs SQL with Python's own SQLite, which is newer than the linked one.
    private func makeWithNewerSQLite(_ name: String, _ sql: String) throws -> String {
        let path = workspace.path(name)
        let script = "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()"
        try #require(Shell.succeeds("python3 -c '\(script)' '\(path)' \"\(sql)\""))
        return path
    }

    @Test func anFTS5TableIsNamedByEncryptVerifyAndQuery() throws {
        let source = try makeWithNewerSQLite("fts5.db", "CREATE VIRTUAL TABLE notes USING fts5(body); INSERT INTO notes VALUES ('hello'); CREATE TABLE plain(x);")
        let before = fileBytes(source)
        if SQLCipherLibrary.sqliteVersion.compare("3.9.0", options: .numeric) == .orderedAscending
            || (try? Connection(path: source, key: nil).fetchScalar(Int.self, sql: "SELECT count(*) FROM notes")) == nil {
            for command in [["encrypt", source, "-o", workspace.path("o.db"), "--key-file", keyFile], ["verify", source]] {
                let result = try CLI.run(command)
                #expect(result.status == 66, "\(command[0]): \(result.errorOutput)")
                #expect(result.errorOutput.contains("table 'notes' made with the module fts5"), "\(command[0]): \(result.errorOutput)")
            }
            let query = try CLI.run(["query", source, "SELECT count(*) FROM notes"])
            #expect(query.status == 66, "\(query.errorOutput)")
            #expect(query.errorOutput.contains("table 'notes' made with the module fts5"), "\(query.errorOutput)")
            #expect(try CLI.run(["query", source, "SELECT count(*) FROM plain"]).status == 0)
            #expect(!FileManager.default.fileExists(atPath: workspace.path("o.db")))
        } else {
            // A SQLite with FTS5 converts it like any table.
            let result = try CLI.run(["encrypt", source, "-o", workspace.path("o.db"), "--key-file", keyFile])
            #expect(result.status == 0, "\(result.errorOutput)")
        }
        #expect(fileBytes(source) == before)
    }

    @Test func aStrictTableIsNamedByEncryptVerifyAndQuery() throws {
        let source = try makeWithNewerSQLite("strict.db", "CREATE TABLE typed(x INTEGER) STRICT;")
        guard (try? Connection(path: source, key: nil)) == nil else {
            // A SQLite that knows STRICT tables converts them like any table.
            #expect(try CLI.run(["encrypt", source, "-o", workspace.path("o.db"), "--key-file", keyFile]).status == 0)
            return
        }
        for command in [["encrypt", source, "-o", workspace.path("o.db"), "--key-file", keyFile], ["verify", source],
                        ["query", source, "SELECT 1"]] {
            let result = try CLI.run(command)
            #expect(result.status == 66, "\(command[0]): \(result.errorOutput)")
            #expect(result.errorOutput.contains("malformed database schema (typed)"), "\(command[0]): \(result.errorOutput)")
            #expect(result.errorOutput.contains("newer than the linked SQLite"), "\(command[0]): \(result.errorOutput)")
        }
    }
}
