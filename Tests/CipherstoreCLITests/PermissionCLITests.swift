import CipherStore
import Foundation
import TestSupport
import Testing

/// A permission problem is called one and names the file: not free space, not `ulimit -n`.
/// The tool runs as user nobody (setpriv) on files root made.
@Suite(.enabled(if: geteuid() == 0, "running the tool as another user needs root; CI runs as root"))
struct PermissionCLITests {
    static let nobody: UInt32 = 65534
    static let passphrase = "permission passphrase"
    let workspace: TemporaryDirectory
    let folder: String
    let database: String

    init() throws {
        workspace = try TemporaryDirectory()
        folder = workspace.path("shared")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        database = folder + "/app.db"
        let db = try Connection(path: database, key: .passphrase(Self.passphrase), configuration: Configuration(journalMode: .wal))
        try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES ('row');")
        try db.close()
        chmod(workspace.url.path, 0o755)
        chmod(folder, 0o755)
    }

    /// Runs the tool as user nobody, the key in the environment.
    func runAsNobody(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups", CLI.executable.path] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["APP_KEY": Self.passphrase].merging(environment) { $1 }) { $1 }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        return ProcessResult.collect(process, output: output, errors: errors)
    }

    @Test func aFileThisUserMayNotReadIsAPermissionProblemNamed() throws {
        chmod(database, 0o600)
        let result = try runAsNobody(["verify", database, "--key-env", "APP_KEY"])
        #expect(result.status == 74, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("permission denied: this user may not read '\(database)'"), "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("ulimit") && !result.errorOutput.contains("free space"), "\(result.errorOutput)")
    }

    @Test func aWALDatabaseInAFolderThisUserCannotWriteNamesItsIndexFile() throws {
        chmod(database, 0o644)
        let result = try runAsNobody(["verify", database, "--key-env", "APP_KEY"])
        #expect(result.status == 74, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("'\(database)-shm' cannot be created: the folder '\(folder)' is not writable by this user"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("copy the database with its -wal file to a folder this user can write"), "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("ulimit"), "\(result.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: database + "-shm"))
    }

    /// A database in rollback-journal mode, for the writes below: its journal goes beside it.
    func rollbackDatabase() throws -> String {
        let path = folder + "/journal.db"
        let db = try Connection(path: path, key: .passphrase(Self.passphrase))
        try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES ('row');")
        try db.close()
        return path
    }

    @Test func aWriteThisUserMayNotMakeNamesTheFileOrTheFolder() throws {
        let path = try rollbackDatabase()
        chmod(path, 0o644)
        var result = try runAsNobody(["query", path, "INSERT INTO t VALUES ('nobody')", "--write", "--key-env", "APP_KEY"])
        #expect(result.status == 74, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("permission denied: this user may not write '\(path)'"), "\(result.errorOutput)")
        // The file is writable, the folder is not: the journal cannot be made beside it.
        chmod(path, 0o666)
        result = try runAsNobody(["query", path, "INSERT INTO t VALUES ('nobody')", "--write", "--key-env", "APP_KEY"])
        #expect(result.status == 74, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("'\(path)-journal' cannot be created: the folder '\(folder)' is not writable by this user"), "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("ulimit") && !result.errorOutput.contains("free space"), "\(result.errorOutput)")
        let db = try Connection(path: path, key: .passphrase(Self.passphrase))
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM t") == 1)
        try db.close()
    }

    @Test func infoOnAFileThisUserMayNotReadSaysSo() throws {
        chmod(database, 0o000)
        let result = try runAsNobody(["info", database])
        #expect(result.status == 74, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("Permission denied: this user may not read '\(database)'"), "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("check the path"), "\(result.errorOutput)")
    }

    @Test func anInPlaceRewriteInAFolderThisUserCannotWriteSaysWhy() throws {
        let path = try rollbackDatabase()
        chmod(path, 0o666)
        let before = fileBytes(path)
        let result = try runAsNobody(["rekey", path, "--in-place", "--old-key-env", "APP_KEY", "--new-key-env", "NEW_KEY"],
                                     environment: ["NEW_KEY": "another permission passphrase"])
        #expect(result.status == 74, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("Cannot replace the file in place: its folder '\(folder)' is not writable by this user"), "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("another output directory"), "\(result.errorOutput)")
        #expect(fileBytes(path) == before)
    }

    /// Run as another user than root, the in-use check cannot look into root's processes: a
    /// database one of them holds is not found, and the command says it could not check.
    @Test(.enabled(if: OpenFileHolders.isSupported, "Linux only: elsewhere other processes are not checked"))
    func theInUseCheckSaysWhatItCouldNotSee() throws {
        let open = workspace.path("open")
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: false)
        chmod(open, 0o777)
        let path = open + "/plain.db"
        let db = try Connection(path: path, key: nil)
        try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES ('row');")
        try db.close()
        chown(path, Self.nobody, Self.nobody)
        // Root holds the file open, as an app of another user would.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/bin/bash")
        holder.arguments = ["-c", "exec 3<\"$0\"; exec sleep 30", path]
        try holder.run()
        defer { kill(holder.processIdentifier, SIGKILL); holder.waitUntilExit() }
        for _ in 0..<250 where OpenFileHolders.processes(holdingDatabase: path).isEmpty { usleep(20_000) }
        try #require(!OpenFileHolders.processes(holdingDatabase: path).isEmpty, "root sees the holder")
        let result = try runAsNobody(["encrypt", path, "--in-place", "--key-env", "APP_KEY"])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("of other users could not be checked for '\(path)' (only root may see which files they have open)"), "\(result.errorOutput)")
    }
}
