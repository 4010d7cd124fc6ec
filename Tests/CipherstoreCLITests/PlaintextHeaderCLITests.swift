import CipherStore
import Foundation
import TestSupport
import Testing

/// `--plaintext-header` and `--salt`: a conversion prints the salt, which opens the file.
@Suite struct PlaintextHeaderCLITests {
    @Test func rekeyIntoAPlaintextHeaderPrintsTheSaltThatOpensTheFile() throws {
        let workspace = try TemporaryDirectory()
        let keyFile = try workspace.keyFile("k.key", "header key\n")
        let path = workspace.path("app.db")
        do {
            let db = try Connection(path: path, key: .passphrase("header key"))
            try db.execute(sql: "CREATE TABLE t(x)")
        }
        let before = fileBytes(path)
        let result = try CLI.run(["rekey", path, "--in-place", "--old-key-file", keyFile, "--new-key-file", keyFile, "--plaintext-header"])
        guard SQLCipherLibrary.sqlcipherMajorVersion >= 4 else {
            // SQLCipher 3 would ignore the setting: refused, nothing changed.
            #expect(result.status == 64, "\(result.errorOutput)")
            #expect(result.errorOutput.contains("cipher_plaintext_header_size"), "\(result.errorOutput)")
            #expect(fileBytes(path) == before)
            return
        }
        #expect(result.status == 0, "\(result.errorOutput)")
        let salt = try #require(result.output.split(whereSeparator: \.isWhitespace).drop { $0 != "Salt" }.dropFirst().first.map { String($0.dropLast()) }, "\(result.output)")
        #expect(salt.count == 32, "\(result.output)")
        #expect(Data(before.prefix(16)).map { String(format: "%02x", $0) }.joined() == salt, "the file's own salt is kept")
        let without = try CLI.run(["verify", path, "--key-file", keyFile, "--plaintext-header"])
        #expect(without.status == 65, "\(without.errorOutput)")
        let with = try CLI.run(["verify", path, "--key-file", keyFile, "--plaintext-header", "--salt", salt, "--json"])
        #expect(with.status == 0, "\(with.errorOutput)")
        #expect(with.output.contains("\"salt\":\"\(salt)\""), "\(with.output)")
        let info = try CLI.run(["info", path, "--key-file", keyFile, "--plaintext-header", "--salt", salt])
        #expect(info.output.contains("with a plaintext header") && info.output.contains("a 32-byte plaintext header"), "\(info.output)")
        #expect(try CLI.run(["verify", path, "--key-file", keyFile, "--plaintext-header", "--salt", "xyz"]).status == 64)
    }
}
