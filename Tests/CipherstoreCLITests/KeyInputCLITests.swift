import CipherStore
import Foundation
import TestSupport
import Testing

/// Key files, standard input and environment variables are read by one rule — the whole
/// content minus one trailing "\n" or "\r\n" — which programs get from
/// `DatabaseKey.passphrase(keyFileContents:)`.
@Suite struct KeyInputCLITests {
    let workspace: TemporaryDirectory
    let source: String

    init() throws {
        workspace = try TemporaryDirectory()
        source = workspace.path("plain.db")
        let db = try Connection(path: source, key: nil)
        try db.executeScript("PRAGMA page_size = \(SQLCipherLibrary.defaultPageSize); CREATE TABLE t(x); INSERT INTO t VALUES ('row');")
        try db.close()
    }

    /// Opens `path` with `key` and reads its row.
    static func opens(_ path: String, with key: DatabaseKey) -> Bool {
        guard let db = try? Connection(path: path, key: key) else { return false }
        return (try? db.fetchScalar(String.self, sql: "SELECT x FROM t")) == "row"
    }

    /// A key source that never ends (`/dev/zero`) or holds a whole file is refused, not read into memory.
    @Test func anOversizedKeySourceIsRefused() throws {
        let output = workspace.path("app.db")
        let device = try CLI.run(["encrypt", source, "-o", output, "--key-file", "/dev/zero", "--quiet"])
        #expect(device.status == 74, "\(device.errorOutput)")
        #expect(device.errorOutput.contains("more than 64 KiB"))
        // From a file, not a pipe this process writes: the tool stops reading at the limit.
        let big = workspace.path("big.key")
        try Data(repeating: UInt8(ascii: "k"), count: 70_000).write(to: URL(fileURLWithPath: big))
        let piped = try CLI.run(["encrypt", source, "-o", output, "--key-stdin", "--quiet"], wrapper: ["exec < '\(big)'"])
        #expect(piped.status == 74, "\(piped.errorOutput)")
        #expect(piped.errorOutput.contains("more than 64 KiB"))
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func aDatabaseMadeWithAKeyFileOpensInAProgramThroughTheSameRule() throws {
        let keyFile = try workspace.keyFile("app.key", "windows secret\r\n")
        let output = workspace.path("app.db")
        let result = try CLI.run(["encrypt", source, "-o", output, "--key-file", keyFile, "--quiet"])
        #expect(result.status == 0, "\(result.errorOutput)")
        let key = try DatabaseKey.passphrase(keyFileContents: Data(contentsOf: URL(fileURLWithPath: keyFile)))
        #expect(Self.opens(output, with: key))
        #expect(Self.opens(output, with: try .passphrase("windows secret")))
        // The same content on standard input, and without its line ending, is the same key.
        for input in ["windows secret\r\n", "windows secret\n", "windows secret"] {
            let verify = try CLI.run(["verify", output, "--key-stdin"], input: input)
            #expect(verify.status == 0, "\(input.debugDescription): \(verify.errorOutput)")
        }
        // Only one line ending is dropped.
        #expect(try CLI.run(["verify", output, "--key-stdin"], input: "windows secret\n\n").status == 65)
    }

    @Test func standardInputIsReadToItsEndLikeAKeyFile() throws {
        let output = workspace.path("lines.db")
        let result = try CLI.run(["encrypt", source, "-o", output, "--key-stdin", "--quiet"], input: "two\nlines\n")
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(Self.opens(output, with: try .passphrase("two\nlines")))
        #expect(!Self.opens(output, with: try .passphrase("two")))
        let keyFile = try workspace.keyFile("lines.key", "two\nlines\n")
        #expect(try CLI.run(["verify", output, "--key-file", keyFile]).status == 0)
    }

    @Test func emptyStandardInputSaysNothingWasRead() throws {
        let output = workspace.path("never.db")
        let result = try CLI.run(["encrypt", source, "-o", output, "--key-stdin"], input: "")
        #expect(result.status == 64)
        #expect(result.errorOutput.contains("Nothing was read from standard input"), "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("passphrase is empty"), "\(result.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: output))

        let emptyFile = try workspace.keyFile("empty.key", "")
        let fromFile = try CLI.run(["encrypt", source, "-o", output, "--key-file", emptyFile])
        #expect(fromFile.status == 64)
        #expect(fromFile.errorOutput.contains("'\(emptyFile)' is empty"), "\(fromFile.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
