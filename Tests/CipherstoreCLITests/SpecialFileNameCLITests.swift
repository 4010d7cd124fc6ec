import CipherStore
import Foundation
import TestSupport
import Testing

/// A file named `:memory:` or `file:x.db`, given as a relative path, is that file: encrypting it
/// in place keeps its data, and verifying it with a wrong key fails.
@Suite struct SpecialFileNameCLITests {
    @Test(arguments: [":memory:", "file:x.db"])
    func inPlaceEncryptionAndVerifyUseTheFile(_ name: String) throws {
        let workspace = try TemporaryDirectory()
        let keyFile = try workspace.keyFile("app.key", "right key\n")
        let wrongKeyFile = try workspace.keyFile("wrong.key", "wrong key\n")
        let plain = try Connection(path: workspace.path(name), key: nil)
        try plain.executeScript("PRAGMA page_size = \(SQLCipherLibrary.defaultPageSize); CREATE TABLE t(x); INSERT INTO t VALUES ('kept');")
        try plain.close()
        // The relative name, from inside the workspace: `cd` runs in the child, not in the tests.
        let inWorkspace = ["cd '\(workspace.url.path)'"]

        let encrypt = try CLI.run(["encrypt", name, "--in-place", "--key-file", keyFile], wrapper: inWorkspace)
        #expect(encrypt.status == 0, "\(encrypt.errorOutput)")
        #expect(DatabaseFileInfo.inspect(path: workspace.path(name)).kind == .encrypted)
        let db = try Connection(path: workspace.path(name), key: .passphrase("right key"))
        #expect(try db.fetchScalar(String.self, sql: "SELECT x FROM t") == "kept")

        let verify = try CLI.run(["verify", name, "--key-file", wrongKeyFile], wrapper: inWorkspace)
        #expect(verify.status == 65, "\(verify.output) \(verify.errorOutput)")
        #expect(try CLI.run(["verify", name, "--key-file", keyFile], wrapper: inWorkspace).status == 0)
    }
}
