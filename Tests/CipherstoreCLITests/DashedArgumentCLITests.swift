import CipherStore
import Foundation
import TestSupport
import Testing

/// A file name that starts with `-` is refused with a usage error that says how to write it,
/// instead of being read as short options (`-hist.db` holds `-h`, which printed the help and
/// exited 0 having done nothing); after `--` it is a file name.
@Suite struct DashedArgumentCLITests {
    let workspace: TemporaryDirectory
    let keyFile: String
    let inWorkspace: [String]

    init() throws {
        workspace = try TemporaryDirectory()
        keyFile = try workspace.keyFile("app.key", "dash key\n")
        inWorkspace = ["cd '\(workspace.url.path)'"]
        for name in ["-hist.db", "-chats.db"] {
            let db = try Connection(path: workspace.path(name), key: nil)
            try db.executeScript("PRAGMA page_size = \(SQLCipherLibrary.defaultPageSize); CREATE TABLE t(x); INSERT INTO t VALUES (1);")
            try db.close()
        }
    }

    @Test func aDashedFileNameIsRefusedAndNothingHappens() throws {
        let original = fileBytes(workspace.path("-hist.db"))
        let encrypt = try CLI.run(["encrypt", "-hist.db", "--in-place", "--key-file", keyFile], wrapper: inWorkspace)
        #expect(encrypt.status == 64, "\(encrypt.output) \(encrypt.errorOutput)")
        #expect(encrypt.errorOutput.contains("./-hist.db"), "\(encrypt.errorOutput)")
        #expect(encrypt.errorOutput.contains("--"))
        #expect(!encrypt.output.contains("USAGE"), "the help was printed")
        #expect(fileBytes(workspace.path("-hist.db")) == original)

        let rekey = try CLI.run(["rekey", "-chats.db", "--in-place", "--old-key-file", keyFile, "--new-key-file", keyFile], wrapper: inWorkspace)
        #expect(rekey.status == 64, "\(rekey.output) \(rekey.errorOutput)")
        #expect(rekey.errorOutput.contains("./-chats.db"), "\(rekey.errorOutput)")

        let output = try CLI.run(["encrypt", "-hist.db", "-o", "-out.db", "--key-file", keyFile], wrapper: inWorkspace)
        #expect(output.status == 64)
        #expect(!FileManager.default.fileExists(atPath: workspace.path("-out.db")))

        // An option's value: the advice is ./, never a -- that would leave the option without it.
        let value = try CLI.run(["encrypt", "./-hist.db", "-o", "-out.db", "--key-file", keyFile], wrapper: inWorkspace)
        #expect(value.status == 64)
        #expect(value.errorOutput.contains("write it as ./-out.db.") && !value.errorOutput.contains("put --"), "\(value.errorOutput)")
    }

    @Test func aDashedFileNameAfterDoubleDashOrWithDotSlashIsConverted() throws {
        let afterDashes = try CLI.run(["encrypt", "--in-place", "--key-file", keyFile, "--quiet", "--", "-hist.db"], wrapper: inWorkspace)
        #expect(afterDashes.status == 0, "\(afterDashes.errorOutput)")
        #expect(DatabaseFileInfo.inspect(path: workspace.path("-hist.db")).kind == .encrypted)

        let dotSlash = try CLI.run(["encrypt", "./-chats.db", "-o", "./-chats-encrypted.db", "--key-file", keyFile, "--quiet"], wrapper: inWorkspace)
        #expect(dotSlash.status == 0, "\(dotSlash.errorOutput)")
        #expect(DatabaseFileInfo.inspect(path: workspace.path("-chats-encrypted.db")).kind == .encrypted)
    }

    @Test func helpVersionAndCompletionStillWork() throws {
        for arguments in [["--help"], ["-h"], ["encrypt", "-h"], ["rekey", "--help"]] {
            let help = try CLI.run(arguments)
            #expect(help.status == 0, "\(arguments): \(help.errorOutput)")
            #expect(help.output.contains("USAGE"), "\(arguments): \(help.output)")
        }
        let version = try CLI.run(["--version"])
        #expect(version.status == 0)
        #expect(version.output.hasPrefix("CipherStore "))
        let completion = try CLI.run(["--generate-completion-script", "bash"])
        #expect(completion.status == 0, "\(completion.errorOutput)")
        #expect(completion.output.contains("encrypt"))
    }
}
