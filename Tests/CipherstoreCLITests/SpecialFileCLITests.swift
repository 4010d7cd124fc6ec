import CipherStore
import Foundation
import TestSupport
import Testing

/// FIFOs and devices are named for what they are and refused, as sources and as outputs, by
/// every command; they were reported as "empty". A directory given as the output is named a
/// directory, not an existing file to replace with --force.
@Suite struct SpecialFileCLITests {
    let workspace: TemporaryDirectory
    let keyFile: String
    let fifo: String
    let source: String

    init() throws {
        workspace = try TemporaryDirectory()
        keyFile = try workspace.keyFile("app.key", "special key\n")
        fifo = workspace.path("pipe.db")
        #expect(mkfifo(fifo, 0o600) == 0)
        source = workspace.path("plain.db")
        let db = try Connection(path: source, key: nil)
        try db.executeScript("PRAGMA page_size = \(SQLCipherLibrary.defaultPageSize); CREATE TABLE t(x); INSERT INTO t VALUES (1);")
        try db.close()
    }

    @Test func aFIFOIsRefusedAsASourceByEveryCommand() throws {
        let runs: [[String]] = [
            ["info", fifo],
            ["encrypt", fifo, "-o", workspace.path("out.db"), "--key-file", keyFile],
            ["encrypt", fifo, "--in-place", "--key-file", keyFile],
            ["decrypt", fifo, "-o", workspace.path("out.db"), "--key-file", keyFile],
            ["rekey", fifo, "--in-place", "--old-key-file", keyFile, "--new-key-file", keyFile],
            ["verify", fifo, "--key-file", keyFile],
        ]
        for arguments in runs {
            let result = try CLI.run(arguments)
            #expect(result.status == 74, "\(arguments): \(result.status) \(result.errorOutput)")
            #expect(result.errorOutput.contains("FIFO (named pipe), not a regular file"), "\(arguments): \(result.errorOutput)")
            #expect(!result.errorOutput.contains("empty"), "\(arguments): \(result.errorOutput)")
        }
        #expect(!FileManager.default.fileExists(atPath: workspace.path("out.db")))
        #expect(DatabaseFileInfo.inspect(path: fifo).kind == .notARegularFile)
    }

    @Test func aFIFOIsNamedBeforeAnyKeyIsAskedFor() throws {
        // No key source and no terminal: the file's kind is what is wrong, said first.
        for arguments in [["verify", fifo], ["decrypt", fifo, "-o", workspace.path("out.db")],
                          ["rekey", fifo, "-o", workspace.path("out.db")], ["query", fifo, "SELECT 1"]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 74, "\(arguments): \(result.status) \(result.errorOutput)")
            #expect(result.errorOutput.contains("FIFO (named pipe), not a regular file"), "\(arguments): \(result.errorOutput)")
        }
    }

    @Test func aDeviceIsRefusedAsASource() throws {
        for arguments in [["info", "/dev/zero"], ["encrypt", "/dev/zero", "-o", workspace.path("out.db"), "--key-file", keyFile],
                          ["verify", "/dev/null", "--key-file", keyFile]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 74, "\(arguments): \(result.errorOutput)")
            #expect(result.errorOutput.contains("a character device, not a regular file"), "\(arguments): \(result.errorOutput)")
        }
    }

    @Test func aFIFOOrADirectoryIsRefusedAsTheOutput() throws {
        for force in [[], ["--force"]] {
            let result = try CLI.run(["encrypt", source, "-o", fifo, "--key-file", keyFile] + force)
            #expect(result.status == 74, "\(force): \(result.errorOutput)")
            #expect(result.errorOutput.contains("FIFO (named pipe), not a regular file"), "\(force): \(result.errorOutput)")
            #expect(!result.errorOutput.contains("--force"), "\(result.errorOutput)")
        }
        #expect(DatabaseFileInfo.inspect(path: fifo).kind == .notARegularFile)

        let directory = workspace.path("exports")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        for force in [[], ["--force"]] {
            let result = try CLI.run(["encrypt", source, "-o", directory, "--key-file", keyFile] + force)
            #expect(result.status == 64, "\(force): \(result.errorOutput)")
            #expect(result.errorOutput.contains("is a directory"), "\(force): \(result.errorOutput)")
            #expect(!result.errorOutput.contains("--force"), "\(result.errorOutput)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
        // A one-letter output name is a file in the current directory.
        let short = try CLI.run(["encrypt", source, "-o", "e", "--key-file", keyFile, "--quiet"], wrapper: ["cd '\(workspace.url.path)'"])
        #expect(short.status == 0, "\(short.errorOutput)")
        #expect(DatabaseFileInfo.inspect(path: workspace.path("e")).kind == .encrypted)
    }
}
