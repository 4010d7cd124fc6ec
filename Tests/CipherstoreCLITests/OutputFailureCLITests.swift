import CipherStore
import Foundation
import TestSupport
import Testing

/// Output that cannot be delivered (standard output or standard error on a full device) ends
/// in a clear error and a non-zero exit, never in success or a trap; a recovery key that could
/// not be printed leaves no slot behind.
@Suite struct OutputFailureCLITests {
    let workspace: TemporaryDirectory
    let database: String
    let keyFile: String

    init() throws {
        workspace = try TemporaryDirectory()
        database = workspace.path("app.db")
        let plain = workspace.path("plain.db")
        let db = try Connection(path: plain, key: nil)
        try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES ('one'), ('two');")
        try db.close()
        keyFile = try workspace.keyFile("first.key", "output failure passphrase")
        let result = try CLI.run(["keys", "init", plain, "--new-key-file", keyFile, "--slot-kdf-ms", "10"])
        try #require(result.status == 0, "\(result.errorOutput)")
        try FileManager.default.moveItem(atPath: plain, toPath: database)
        try FileManager.default.moveItem(atPath: plain + ".keys", toPath: database + ".keys")
        try? FileManager.default.removeItem(atPath: plain + ".schema")
    }

    static let fullOutput = ["exec >/dev/full"]

    func slotCount() throws -> Int {
        let result = try CLI.run(["keys", "list", database, "--json"])
        let object = try #require(JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        return try #require(object["slots"] as? [Any]).count
    }

    @Test func aQueryWhoseRowsCannotBeWrittenFails() throws {
        for format in ["table", "csv", "json"] {
            let result = try CLI.run(["query", database, "SELECT x FROM t", "--key-file", keyFile, "--format", format], wrapper: Self.fullOutput)
            #expect(result.status == 74, "\(format): \(result.errorOutput)")
            #expect(result.errorOutput.contains("Cannot write to standard output: No space left on device"), "\(result.errorOutput)")
        }
    }

    @Test func aRecoveryKeyThatCannotBePrintedLeavesNoSlot() throws {
        let before = try slotCount()
        let result = try CLI.run(["keys", "recovery", database, "--key-file", keyFile], wrapper: Self.fullOutput)
        #expect(result.status == 74, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("no recovery key was added"), "\(result.errorOutput)")
        #expect(try slotCount() == before)
        // Delivered, it is added.
        let delivered = try CLI.run(["keys", "recovery", database, "--key-file", keyFile])
        #expect(delivered.status == 0, "\(delivered.errorOutput)")
        #expect(try slotCount() == before + 1)
    }

    /// A reader that is gone (a closed pipe) is a failed delivery too, not a signal that ends
    /// the command before it can take the slot back.
    @Test func aRecoveryKeyPipedToAReaderThatIsGoneLeavesNoSlot() throws {
        let before = try slotCount()
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = ["keys", "recovery", database, "--key-file", keyFile]
        let output = Pipe(), errors = Pipe()
        try output.fileHandleForReading.close()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationReason == .exit && process.terminationStatus == 74, "\(process.terminationStatus): \(errorText)")
        #expect(errorText.contains("no recovery key was added"), "\(errorText)")
        #expect(try slotCount() == before)
    }

    @Test func aRawKeyThatCannotBePrintedFails() throws {
        let result = try CLI.run(["keys", "export-raw-key", database, "--key-file", keyFile, "--to-stdout"], wrapper: Self.fullOutput)
        #expect(result.status == 74, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("Cannot write to standard output"))
    }

    /// A write the disk refuses (a file-size limit: EFBIG, as a full disk) is an I/O failure,
    /// exit 74, like every other command's, and is rolled back.
    @Test func aQueryWriteTheDiskRefusesExits74AndChangesNothing() throws {
        let result = try CLI.run(["query", database, "INSERT INTO t SELECT hex(randomblob(400000))", "--write", "--key-file", keyFile],
                                 wrapper: ["trap '' XFSZ", "ulimit -f 256"])
        #expect(result.status == 74, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("rolled back"), "\(result.errorOutput)")
        let count = try CLI.run(["query", database, "SELECT count(*) FROM t", "--key-file", keyFile, "--format", "csv"])
        #expect(count.output.contains("\n2\n"), "\(count.output)")
    }

    @Test func anErrorWrittenToAFullStandardErrorKeepsItsExitCode() throws {
        let wrong = try workspace.keyFile("wrong.key", "not the passphrase")
        let result = try CLI.run(["query", database, "SELECT x FROM t", "--key-file", wrong], wrapper: ["exec 2>/dev/full"])
        #expect(result.status == 65)
        let succeeded = try CLI.run(["verify", database, "--key-file", keyFile], wrapper: ["exec 2>/dev/full"])
        #expect(succeeded.status == 0)
    }
}
