import CipherStore
import Foundation
import TestSupport
import Testing

/// `cipherstore info` with a key: the cipher settings that open the file, as text and JSON.
@Suite struct InfoSettingsTests {
    let workspace: TemporaryDirectory
    let keyFile: String

    init() throws {
        workspace = try TemporaryDirectory()
        keyFile = try workspace.keyFile("k.key", "show my settings\n")
    }

    func make(_ name: String, cipher: CipherSettings) throws -> String {
        let path = workspace.path(name)
        let db = try Connection(path: path, key: .passphrase("show my settings"), configuration: Configuration(cipher: cipher))
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.close()
        return path
    }

    @Test func theDefaultsThatOpenedTheFileAreShown() throws {
        let path = try make("default.db", cipher: .libraryDefaults)
        let text = try CLI.run(["info", path, "--key-file", keyFile])
        #expect(text.status == 0, "\(text.errorOutput)")
        let json = try CLI.run(["info", path, "--key-file", keyFile, "--json"])
        #expect(json.status == 0, "\(json.errorOutput)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let cipher = try #require(object["cipher"] as? [String: Any], "\(json.output)")
        #expect(cipher["useHMAC"] as? Bool == true)
        if SQLCipherLibrary.sqlcipherMajorVersion >= 4 {
            #expect(text.output.contains("opens:    with 4096-byte pages, 256000 KDF iterations (PBKDF2_HMAC_SHA512), HMAC_SHA512 per page, no plaintext header"), "\(text.output)")
            #expect(cipher["pageSize"] as? Int == 4096 && cipher["kdfIterations"] as? Int == 256_000)
            #expect(cipher["kdfAlgorithm"] as? String == "PBKDF2_HMAC_SHA512" && cipher["hmacAlgorithm"] as? String == "HMAC_SHA512")
            #expect(cipher["plaintextHeaderSize"] as? Int == 0)
        } else {
            // SQLCipher 3 has no algorithm settings to read back: its hashes are fixed (SHA-1).
            #expect(text.output.contains("opens:    with 1024-byte pages, 64000 KDF iterations, HMAC per page"), "\(text.output)")
            #expect(cipher["pageSize"] as? Int == 1024 && cipher["kdfIterations"] as? Int == 64_000)
            #expect(cipher["kdfAlgorithm"] is NSNull && cipher["plaintextHeaderSize"] is NSNull)
        }
        // Without a key, no settings and no prompt.
        let keyless = try CLI.run(["info", path])
        #expect(keyless.status == 0 && !keyless.output.contains("opens:"), "\(keyless.output)")
    }

    @Test func customSettingsAreGivenAsForVerifyAndAWrongKeyPrintsOnlyItsError() throws {
        var custom = CipherSettings.sqlcipher3
        custom.pageSize = 4096
        custom.kdfIterations = 5000
        let path = try make("custom.db", cipher: custom)
        let result = try CLI.run(["info", path, "--key-file", keyFile, "--sqlcipher3", "--page-size", "4096", "--kdf-iterations", "5000"])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.contains("4096-byte pages, 5000 KDF iterations"), "\(result.output)")
        if SQLCipherLibrary.sqlcipherMajorVersion >= 4 {
            #expect(result.output.contains("(PBKDF2_HMAC_SHA1), HMAC_SHA1 per page"), "\(result.output)")
        }
        let wrong = try CLI.run(["info", path, "--key-file", try workspace.keyFile("w.key", "other\n"), "--sqlcipher3", "--page-size", "4096", "--kdf-iterations", "5000"])
        #expect(wrong.status == 65, "\(wrong.errorOutput)")
        #expect(wrong.output.isEmpty, "\(wrong.output)")
        // A key for a plaintext file: said so, exit 66.
        let plain = workspace.path("plain.db")
        let db = try Connection(path: plain, key: nil)
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.close()
        #expect(try CLI.run(["info", plain, "--key-file", keyFile]).status == 66)
    }
}
