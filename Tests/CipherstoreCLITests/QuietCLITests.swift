import CipherStore
import Foundation
import TestSupport
import Testing

/// `--quiet` means the same in every command that has it: nothing on standard output, errors
/// and warnings on standard error, and the exit code.
@Suite struct QuietCLITests {
    let workspace: TemporaryDirectory
    let database: String
    let passphraseFile: String

    init() throws {
        workspace = try TemporaryDirectory()
        database = workspace.path("app.db")
        passphraseFile = try workspace.keyFile("first.key", "quiet passphrase")
        let db = try Connection(path: database, key: nil)
        try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES ('row');")
        try db.close()
    }
}

extension QuietCLITests {
    @Test func keysInitQuietPrintsNothingAndMakesTheSlotDatabase() throws {
        let result = try CLI.run(["keys", "init", database, "--new-key-file", passphraseFile, "--slot-kdf-ms", "10", "--quiet"])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.isEmpty, "\(result.output)")
        let key = try DatabaseKey.slots(passphrase: Passphrase("quiet passphrase"), path: database)
        let db = try Connection(path: database, key: key)
        defer { try? db.close() }
        #expect(try db.fetchScalar(String.self, sql: "SELECT x FROM t") == "row")
    }

    @Test func keysRotateQuietPrintsOnlyItsWarning() throws {
        try #require(try CLI.run(["keys", "init", database, "--new-key-file", passphraseFile, "--slot-kdf-ms", "10", "--quiet"]).status == 0)
        let before = fileBytes(database).prefix(16)
        let result = try CLI.run(["keys", "rotate", database, "--key-file", passphraseFile, "--quiet"])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.isEmpty, "\(result.output)")
        #expect(result.errorOutput.contains("back up") && !result.errorOutput.contains("%"), "\(result.errorOutput)")
        #expect(fileBytes(database).prefix(16) != before, "a new data key, with a new salt")
    }
}

extension QuietCLITests {
    @Test func verifyQuietSaysOnlyTheExitCodeAndErrors() throws {
        let keyFile = try workspace.keyFile("raw.key", String(repeating: "5a", count: 32))
        let encrypted = workspace.path("enc.db")
        let encrypt = try CLI.run(["encrypt", database, "-o", encrypted, "--raw-key", "--key-file", keyFile, "--quiet"])
        try #require(encrypt.status == 0, "\(encrypt.errorOutput)")
        var result = try CLI.run(["verify", encrypted, "--raw-key", "--key-file", keyFile, "--quiet"])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.isEmpty && result.errorOutput.isEmpty, "\(result.output)\(result.errorOutput)")
        let wrong = try workspace.keyFile("wrong.key", String(repeating: "00", count: 32))
        result = try CLI.run(["verify", encrypted, "--raw-key", "--key-file", wrong, "--quiet"])
        #expect(result.status == 65, "\(result.errorOutput)")
        #expect(result.output.isEmpty, "\(result.output)")
        #expect(result.errorOutput.contains("Cannot decrypt"), "\(result.errorOutput)")
    }
}
