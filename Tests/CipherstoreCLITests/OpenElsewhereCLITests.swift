import CipherStore
import Foundation
import TestSupport
import Testing

/// A database another process has open is not replaced in place (that program would go on
/// with the old file): the command names the process, exits with 64 and changes nothing;
/// `--force` overrides. `encrypt --output` warns that its copy is a snapshot.
@Suite(.enabled(if: OpenFileHolders.isSupported, "Linux only: elsewhere other processes are not checked"))
struct OpenElsewhereCLITests {
    let workspace: TemporaryDirectory
    let database: String
    let keyFile: String
    let key: DatabaseKey

    init() throws {
        workspace = try TemporaryDirectory()
        database = workspace.path("app.db")
        keyFile = try workspace.keyFile("app.key", "held open ☂\n")
        key = try DatabaseKey.passphrase("held open ☂")
    }

    private func make(encrypted: Bool) throws {
        let db = try Connection(path: database, key: encrypted ? key : nil)
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT)")
        try db.execute(sql: "INSERT INTO t(body) VALUES ('one'), ('two')")
        try db.close()
    }

    /// A second process, `sleep`, that holds `path` open on descriptor 3 (as an app holds its
    /// database between transactions); killed at the end of the test.
    private func holder(of path: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "exec 3<\"$0\"; exec sleep 30", path]
        try process.run()
        let fd = "/proc/\(process.processIdentifier)/fd/3"
        for _ in 0..<250 {
            let comm = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/comm", encoding: .utf8)) ?? ""
            if comm.hasPrefix("sleep"), FileManager.default.fileExists(atPath: fd) { return process }
            usleep(20_000)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        throw HolderDidNotStart()
    }

    private struct HolderDidNotStart: Error {}

    private func stop(_ process: Process) {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// The refusal: exit 64, the process named, the file and the folder as they were.
    private func expectRefused(_ arguments: [String], holder: Process, heldPath: String? = nil) throws {
        let bytes = fileBytes(database)
        let listing = try FileManager.default.contentsOfDirectory(atPath: workspace.url.path).sorted()
        let result = try CLI.run(arguments)
        #expect(result.status == 64, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("process \(holder.processIdentifier) (sleep) has '\(heldPath ?? database)' open"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("Nothing was changed"))
        #expect(result.errorOutput.contains("--force"))
        #expect(!result.errorOutput.contains("held open ☂"))
        #expect(fileBytes(database) == bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.url.path).sorted() == listing)
    }

    @Test func encryptInPlaceIsRefusedAndForceOverrides() throws {
        try make(encrypted: false)
        let sleeper = try holder(of: database)
        defer { stop(sleeper) }
        try expectRefused(["encrypt", database, "--in-place", "--key-file", keyFile], holder: sleeper)
        #expect(DatabaseFileInfo.inspect(path: database).kind == .plaintext)

        let forced = try CLI.run(["encrypt", database, "--in-place", "--key-file", keyFile, "--force"])
        #expect(forced.status == 0, "\(forced.errorOutput)")
        #expect(DatabaseFileInfo.inspect(path: database).kind == .encrypted)
    }

    @Test func theJSONRefusalNamesTheKind() throws {
        try make(encrypted: false)
        let sleeper = try holder(of: database)
        defer { stop(sleeper) }
        let result = try CLI.run(["encrypt", database, "--in-place", "--key-file", keyFile, "--json"])
        #expect(result.status == 64)
        #expect(result.output.contains("\"kind\":\"databaseInUse\""), "\(result.output)")
        #expect(DatabaseFileInfo.inspect(path: database).kind == .plaintext)
    }

    @Test func decryptAndRekeyInPlaceAreRefused() throws {
        try make(encrypted: true)
        let sleeper = try holder(of: database)
        defer { stop(sleeper) }
        try expectRefused(["decrypt", database, "--in-place", "--key-file", keyFile], holder: sleeper)
        let newKey = try workspace.keyFile("new.key", "another ☂\n")
        try expectRefused(["rekey", database, "--in-place", "--old-key-file", keyFile, "--new-key-file", newKey], holder: sleeper)
        #expect(try Connection(path: database, key: key).fetchScalar(Int.self, sql: "SELECT count(*) FROM t") == 2)
    }

    @Test(.enabled(if: LinkedSQLCipher.isVersion4, "SQLCipher 4 only: upgrade needs it"))
    func upgradeInPlaceIsRefused() throws {
        let db = try Connection(path: database, key: key, configuration: Configuration(cipher: .sqlcipher3))
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT)")
        try db.close()
        let sleeper = try holder(of: database)
        defer { stop(sleeper) }
        try expectRefused(["upgrade", database, "--in-place", "--key-file", keyFile], holder: sleeper)
    }

    @Test func restoreOverADatabaseHeldOpenIsRefused() throws {
        try make(encrypted: true)
        let backup = workspace.path("backup.db")
        try #require(try CLI.run(["backup", database, "-o", backup, "--key-file", keyFile]).status == 0)
        let db = try Connection(path: database, key: key)
        try db.execute(sql: "INSERT INTO t(body) VALUES ('after the backup')")
        try db.close()
        let sleeper = try holder(of: database)
        defer { stop(sleeper) }
        try expectRefused(["restore", backup, "--to", database, "--key-file", keyFile], holder: sleeper)
        #expect(try Connection(path: database, key: key).fetchScalar(Int.self, sql: "SELECT count(*) FROM t") == 3)
    }

    @Test func keysInitAndKeysRotateAreRefusedAndForceOverrides() throws {
        try make(encrypted: true)
        let first = try workspace.keyFile("first.pass", "first slot passphrase")
        let sleeper = try holder(of: database)
        defer { stop(sleeper) }
        try expectRefused(["keys", "init", database, "--key-file", keyFile, "--new-key-file", first, "--slot-kdf-ms", "10"], holder: sleeper)
        #expect(!FileManager.default.fileExists(atPath: database + ".keys"))
        let forced = try CLI.run(["keys", "init", database, "--key-file", keyFile, "--new-key-file", first, "--slot-kdf-ms", "10", "--force"])
        #expect(forced.status == 0, "\(forced.errorOutput)")
        // The first holder has the replaced file now; another opens the slot database.
        let second = try holder(of: database)
        defer { stop(second) }
        try expectRefused(["keys", "rotate", database, "--key-file", first], holder: second)
        #expect(try CLI.run(["keys", "rotate", database, "--key-file", first, "--force"]).status == 0)
    }

    // MARK: encrypt --output: a snapshot

    @Test func encryptToAnOutputWarnsThatLaterRowsAreNotInTheCopy() throws {
        try make(encrypted: false)
        let output = workspace.path("encrypted.db")
        let sleeper = try holder(of: database)
        let result = try CLI.run(["encrypt", database, "-o", output, "--key-file", keyFile])
        stop(sleeper)
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("process \(sleeper.processIdentifier) (sleep) has '\(database)' open: rows written to the plaintext '\(database)' after the copy started are not in the encrypted copy"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("Opening the files from other programs"))
        // Said before the copy: that program's writes wait for it; and after: how long they did.
        #expect(result.errorOutput.contains("(sleep) has '\(database)' open: its writes to '\(database)' wait until the copy ends"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("busy timeout") && result.errorOutput.contains("writers to it waited while it was read, up to "), "\(result.errorOutput)")
        #expect(try Connection(path: output, key: key).fetchScalar(Int.self, sql: "SELECT count(*) FROM t") == 2)

        // Nobody has it open: no such warning.
        let alone = try CLI.run(["encrypt", database, "-o", workspace.path("alone.db"), "--key-file", keyFile])
        #expect(alone.status == 0, "\(alone.errorOutput)")
        #expect(!alone.errorOutput.contains("not in the encrypted copy"))
        #expect(!alone.errorOutput.contains("wait until the copy ends"))
    }
}
