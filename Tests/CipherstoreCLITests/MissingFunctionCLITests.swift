import CipherStore
import Foundation
import TestSupport
import Testing

/// A file whose schema calls the app's own SQL functions — an index on `myabs(a)`, a
/// `CHECK (mylen(b) < 100)` — made by the library with the real functions, then handled by the
/// tool, which does not have them: `verify` and `backup` run the quick check and say what they
/// could not check, `repair` keeps every row in its table, and a rewrite refuses with a clear
/// error instead of an I/O failure.
@Suite struct MissingFunctionCLITests {
    static let rawKey = String(repeating: "5e", count: 32)
    static let functions = [
        DatabaseFunction("myabs", argumentCount: 1, pure: true) { values in
            if case .integer(let value) = values[0] { return abs(value) }
            return nil
        },
        DatabaseFunction("mylen", argumentCount: 1, pure: true) { values in
            if case .text(let value) = values[0] { return value.count }
            return nil
        },
    ]

    let workspace: TemporaryDirectory
    let database: String
    let keyFile: String

    init() throws {
        workspace = try TemporaryDirectory()
        database = workspace.path("app.db")
        keyFile = try workspace.keyFile("app.key", Self.rawKey)
        let db = try openAsTheApp(database)
        try db.executeScript("""
            CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b TEXT CHECK (mylen(b) < 100));
            CREATE INDEX t_abs ON t(myabs(a));
            INSERT INTO t(a, b) VALUES (1, 'x'), (-2, 'y'), (3, 'z');
            """)
        try db.close()
    }

    /// Opens `path` as the app does, with its functions.
    func openAsTheApp(_ path: String) throws -> Connection {
        let db = try Connection(path: path, key: .rawKey(hex: Self.rawKey))
        for function in Self.functions { try db.add(function: function) }
        return db
    }

    @Test func verifyRunsTheQuickCheckAndSaysWhatItCouldNotCheck() throws {
        let result = try CLI.run(["verify", database, "--raw-key", "--key-file", keyFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.contains("quick check passed; index contents not checked"), "\(result.output)")
        #expect(result.output.contains("t: 3 rows"))
        #expect(result.errorOutput.contains("cipherstore: warning: the schema calls the SQL function my"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("run PRAGMA integrity_check in the app"))
        let json = try CLI.run(["verify", database, "--raw-key", "--key-file", keyFile, "--json"])
        #expect(json.status == 0, "\(json.errorOutput)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(object["checks"] as? [String] == ["quick check"])
        #expect((object["functionsNotChecked"] as? [String])?.isEmpty == false)
    }

    @Test func backupCopiesAndSaysTheQuickCheckRan() throws {
        let backup = workspace.path("backup.db")
        let result = try CLI.run(["backup", database, "--output", backup, "--raw-key", "--key-file", keyFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.contains("quick check"), "\(result.output)")
        #expect(result.errorOutput.contains("the schema calls the SQL function my"), "\(result.errorOutput)")
        let copy = try openAsTheApp(backup)
        defer { try? copy.close() }
        #expect(try copy.fetchScalar(String.self, sql: "PRAGMA integrity_check") == "ok")
    }

    @Test func repairKeepsEveryRowInItsTableAndNamesTheIndexItCouldNotBuild() throws {
        let repaired = workspace.path("repaired.db")
        let result = try CLI.run(["repair", database, "--output", repaired, "--raw-key", "--key-file", keyFile])
        #expect(result.status == 68, "\(result.errorOutput)")
        #expect(result.output.contains("t: 3 rows"), "\(result.output)")
        #expect(!result.output.contains("recovered_"), "\(result.output)")
        #expect(result.errorOutput.contains("index t_abs was not created: it calls the SQL function myabs()"), "\(result.errorOutput)")
        // In the app, the constraint holds again and the index can be made.
        let db = try openAsTheApp(repaired)
        defer { try? db.close() }
        #expect(try Int.fetchAll(db, sql: "SELECT a FROM t ORDER BY id") == [1, -2, 3])
        #expect(throws: DatabaseError.self) { try db.execute(sql: "INSERT INTO t(a, b) VALUES (4, ?)", arguments: [String(repeating: "x", count: 200)]) }
        try db.execute(sql: "CREATE INDEX t_abs ON t(myabs(a))")
        #expect(try db.fetchScalar(String.self, sql: "PRAGMA integrity_check") == "ok")
    }

    @Test func aRewriteRefusesWithAClearErrorAndWritesNothing() throws {
        let output = workspace.path("rekeyed.db")
        let newKey = try workspace.keyFile("new.key", String(repeating: "6f", count: 32))
        let result = try CLI.run(["rekey", database, "--output", output, "--old-raw-key", "--old-key-file", keyFile, "--new-raw-key", "--new-key-file", newKey])
        #expect(result.status == 66, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("calls the SQL function my"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("DatabaseFileOptions.prepareDatabase"))
        #expect(!result.errorOutput.contains("free space"))
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.url.path).filter { $0.contains("rekeyed") }.isEmpty)
    }
}
