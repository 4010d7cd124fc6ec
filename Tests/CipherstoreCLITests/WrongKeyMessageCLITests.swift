import CipherStore
import Foundation
import TestSupport
import Testing

/// A wrong key gets the causes that apply to its file, and no others: slot-file text only for a
/// slot database, a crash leftover only when there is one; at most three lines.
@Suite struct WrongKeyMessageCLITests {
    let workspace: TemporaryDirectory
    let database: String
    let rightFile: String
    let wrongFile: String

    init() throws {
        workspace = try TemporaryDirectory()
        database = workspace.path("app.db")
        rightFile = try workspace.keyFile("right.key", "the right passphrase")
        wrongFile = try workspace.keyFile("wrong.key", "a wrong passphrase")
        let db = try Connection(path: database, key: nil)
        try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES ('row');")
        try db.close()
    }

    /// The message's lines, without the tool's prefix.
    func message(_ result: ProcessResult) -> [Substring] {
        result.errorOutput.replacingOccurrences(of: "cipherstore: error: ", with: "").split(separator: "\n")
    }

    @Test func aPassphraseDatabaseGetsNoSlotOrLeftoverText() throws {
        let encrypted = workspace.path("enc.db")
        try #require(try CLI.run(["encrypt", database, "-o", encrypted, "--key-file", rightFile, "--quiet"]).status == 0)
        let result = try CLI.run(["verify", encrypted, "--key-file", wrongFile])
        #expect(result.status == 65, "\(result.errorOutput)")
        let lines = message(result)
        #expect(lines.count <= 3 && lines.first?.contains("the key is wrong") == true, "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("slot") && !result.errorOutput.contains("previous"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("run `cipherstore settings` on it"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("SQLCipher 3 file") == (SQLCipherLibrary.sqlcipherMajorVersion >= 4), "\(result.errorOutput)")
        #expect(!CipherStoreError.wrongKey(path: encrypted).description.contains("slot"))
    }

    @Test func aSlotDatabaseWhoseSlotsRefuseThePassphraseSaysSo() throws {
        let made = try CLI.run(["keys", "init", database, "--new-key-file", rightFile, "--slot-kdf-ms", "10", "--quiet"])
        try #require(made.status == 0, "\(made.errorOutput)")
        var result = try CLI.run(["verify", database, "--key-file", wrongFile])
        #expect(result.status == 65, "\(result.errorOutput)")
        #expect(message(result).count == 1, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("no slot of its slot file '\(database).keys' opens with this passphrase"), "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("cipher settings") && !result.errorOutput.contains("previous"), "\(result.errorOutput)")

        // A slot file a crash left aside is named, and only then.
        let leftover = database + ".keys.previous-4242-beef"
        try FileManager.default.copyItem(atPath: database + ".keys", toPath: leftover)
        result = try CLI.run(["verify", database, "--key-file", wrongFile])
        #expect(message(result).count == 2, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("left its slot file as '\(leftover)': move it back to '\(database).keys'"), "\(result.errorOutput)")
    }

    /// A passphrase database with another database's slot file beside it: a wrong passphrase
    /// is a wrong key (65), with the stale slot file named, not "belongs to another database".
    @Test func aWrongPassphraseBesideAnotherDatabasesSlotFileIsAWrongKey() throws {
        let encrypted = workspace.path("enc.db")
        try #require(try CLI.run(["encrypt", database, "-o", encrypted, "--key-file", rightFile, "--quiet"]).status == 0)
        let slots = workspace.path("slots.db")
        try FileManager.default.copyItem(atPath: database, toPath: slots)
        try #require(try CLI.run(["keys", "init", slots, "--new-key-file", rightFile, "--slot-kdf-ms", "10", "--quiet"]).status == 0)
        try FileManager.default.copyItem(atPath: slots + ".keys", toPath: encrypted + ".keys")
        let wrong = try CLI.run(["verify", encrypted, "--key-file", wrongFile])
        #expect(wrong.status == 65, "\(wrong.errorOutput)")
        #expect(wrong.errorOutput.contains("the key is wrong") && wrong.errorOutput.contains("does not belong to '\(encrypted)'"), "\(wrong.errorOutput)")
        // The right passphrase still opens it, as a plain SQLCipher key, with the same warning.
        let right = try CLI.run(["verify", encrypted, "--key-file", rightFile])
        #expect(right.status == 0 && right.errorOutput.contains("is stale"), "\(right.errorOutput)")
    }

    /// A database reached through a symbolic link is read through it by every command: a
    /// wrong key is a wrong key (65), not an unreadable file.
    @Test func aDatabaseReachedThroughASymbolicLinkIsReadThroughIt() throws {
        let encrypted = workspace.path("enc.db")
        try #require(try CLI.run(["encrypt", database, "-o", encrypted, "--key-file", rightFile, "--quiet"]).status == 0)
        let link = workspace.path("link.db")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: encrypted)
        #expect(DatabaseFileInfo.inspect(path: link).kind == .encrypted)
        let wrong = try CLI.run(["verify", link, "--key-file", wrongFile])
        #expect(wrong.status == 65 && wrong.errorOutput.contains("the key is wrong"), "\(wrong.errorOutput)")
        for arguments in [["verify", link], ["settings", link, "--max-kdf-iterations", "0"], ["info", link],
                          ["decrypt", link, "-o", workspace.path("plain-again.db")]] {
            let result = try CLI.run(arguments + ["--key-file", rightFile])
            #expect(result.status == 0, "\(arguments[0]): \(result.errorOutput)")
        }
    }
}
