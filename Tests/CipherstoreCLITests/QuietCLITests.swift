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
}
