import CipherStore
import Foundation
import TestSupport
import Testing

/// An in-place conversion replaces the file for whoever used it: the result keeps the
/// original's owner, group and mode, or the conversion is refused before anything is written.
@Suite(.enabled(if: geteuid() == 0, "giving files to another user needs root; CI runs as root"))
struct OwnershipCLITests {
    static let nobody: UInt32 = 65534
    let workspace: TemporaryDirectory
    let database: String

    init() throws {
        workspace = try TemporaryDirectory()
        database = workspace.path("app.db")
        let db = try Connection(path: database, key: nil)
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.execute(sql: "INSERT INTO t VALUES ('kept')")
        try db.close()
    }

    private func status(_ path: String) -> stat {
        var status = stat()
        stat(path, &status)
        return status
    }

    @Test func theResultKeepsTheOriginalsOwnerGroupAndMode() throws {
        chown(database, Self.nobody, Self.nobody)
        chmod(database, 0o640)
        let result = try CLI.run(["encrypt", database, "--in-place", "--key-env", "APP_KEY"], environment: ["APP_KEY": "owner kept"])
        #expect(result.status == 0, "\(result.errorOutput)")
        let after = status(database)
        #expect(after.st_uid == Self.nobody && after.st_gid == Self.nobody)
        #expect(after.st_mode & 0o777 == 0o640)
        #expect(DatabaseFileInfo.inspect(path: database).kind == .encrypted)
    }

    @Test func aFileThisUserCouldNotOwnIsRefusedBeforeAnythingIsWritten() throws {
        chmod(workspace.url.path, 0o777)
        chmod(database, 0o666)
        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups",
                             CLI.executable.path, "encrypt", database, "--in-place", "--key-env", "APP_KEY"]
        // The run's own environment: `make test SQLCIPHER=4` finds its library through it.
        process.environment = ProcessInfo.processInfo.environment.merging(["APP_KEY": "not the owner"]) { $1 }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let result = ProcessResult.collect(process, output: output, errors: errors)
        #expect(result.status == 74, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("belongs to user 0"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before)
        let left = try FileManager.default.contentsOfDirectory(atPath: workspace.url.path)
        #expect(left == ["app.db"])
    }
}
