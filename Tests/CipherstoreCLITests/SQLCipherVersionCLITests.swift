import CipherStore
import Foundation
import TestSupport
import Testing

/// The command line on either SQLCipher: a SQLCipher 3 file on SQLCipher 4 is explained,
/// `--sqlcipher3` opens it, and SQLCipher's own log never reaches the output.
@Suite struct SQLCipherVersionCLITests {
    let workspace: TemporaryDirectory
    let keyFile: String
    let path: String

    /// A file in SQLCipher 3's format, whichever SQLCipher is linked.
    init() throws {
        workspace = try TemporaryDirectory()
        keyFile = try workspace.keyFile("k.key", "version three\n")
        path = workspace.path("v3.db")
        let db = try Connection(path: path, key: .passphrase("version three"), configuration: Configuration(cipher: .sqlcipher3))
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.execute(sql: "INSERT INTO t VALUES (1), (2)")
        try db.close()
    }

    @Test(.enabled(if: SQLCipherLibrary.sqlcipherMajorVersion >= 4, "SQLCipher 4 only; counterpart: sqlcipher3IsTheDefaultOnSQLCipher3"))
    func aSQLCipher3FileIsExplainedAndOpensWithTheFlag() throws {
        let before = fileBytes(path)
        let failed = try CLI.run(["verify", path, "--key-file", keyFile])
        #expect(failed.status == 65, "\(failed.errorOutput)")
        #expect(failed.errorOutput.contains("may be a SQLCipher 3 file"), "\(failed.errorOutput)")
        #expect(failed.errorOutput.contains("--sqlcipher3"), "\(failed.errorOutput)")
        // SQLCipher 4 logs "hmac check failed" to standard error unless told not to.
        #expect(!failed.errorOutput.contains("ERROR CORE"), "\(failed.errorOutput)")
        #expect(!failed.errorOutput.contains("hmac check failed"), "\(failed.errorOutput)")
        #expect(fileBytes(path) == before)

        let verified = try CLI.run(["verify", path, "--key-file", keyFile, "--sqlcipher3"])
        #expect(verified.status == 0, "\(verified.errorOutput)")
        #expect(verified.output.contains("Page size 1024 bytes, 64000 KDF iterations"), "\(verified.output)")
        #expect(verified.errorOutput.isEmpty, "\(verified.errorOutput)")
    }

    @Test(.enabled(if: SQLCipherLibrary.sqlcipherMajorVersion == 3, "SQLCipher 3 only; counterpart: aSQLCipher3FileIsExplainedAndOpensWithTheFlag"))
    func sqlcipher3IsTheDefaultOnSQLCipher3() throws {
        for extra in [[], ["--sqlcipher3"]] {
            let verified = try CLI.run(["verify", path, "--key-file", keyFile] + extra)
            #expect(verified.status == 0, "\(extra): \(verified.errorOutput)")
            #expect(verified.output.contains("Page size 1024 bytes, 64000 KDF iterations"), "\(verified.output)")
        }
        let wrong = try CLI.run(["verify", path, "--key-file", try workspace.keyFile("w.key", "other\n")])
        #expect(wrong.status == 65)
        #expect(!wrong.errorOutput.contains("SQLCipher 3 file"), "\(wrong.errorOutput)")
    }
}
