import CipherStore
import Foundation
import TestSupport
import Testing

/// `cipherstore settings`: the options it prints open the file in the other commands.
@Suite struct SettingsCLITests {
    let workspace: TemporaryDirectory
    let database: String
    let keyFile: String

    init() throws {
        workspace = try TemporaryDirectory()
        database = workspace.path("app.db")
        keyFile = try workspace.keyFile("k.key", "settings passphrase")
        let db = try Connection(path: database, key: .passphrase("settings passphrase"),
                                configuration: Configuration(cipher: CipherSettings(pageSize: 8192, kdfIterations: 100_000)))
        try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES ('row');")
        try db.close()
    }

    @Test func theOptionsPrintedOpenTheFile() throws {
        #expect(try CLI.run(["verify", database, "--key-file", keyFile]).status == 65)
        let result = try CLI.run(["settings", database, "--key-file", keyFile, "--kdf-iterations", "100000"])
        #expect(result.status == 0, "\(result.errorOutput)")
        let optionLine = try #require(result.output.split(separator: "\n").first { $0.contains("cipherstore: ") })
        let options = optionLine.components(separatedBy: "cipherstore: ")[1].split(separator: " ").map(String.init)
        #expect(options.contains("--page-size") && options.contains("8192") && options.contains("100000"), "\(result.output)")
        #expect(result.output.contains("CipherSettings(pageSize: 8192, kdfIterations: 100000"), "\(result.output)")
        #expect(result.output.contains("3 key derivations"), "\(result.output)")
        #expect(!result.output.contains("settings passphrase") && !result.errorOutput.contains("settings passphrase"))
        let verify = try CLI.run(["verify", database, "--key-file", keyFile] + options)
        #expect(verify.status == 0, "\(verify.errorOutput)")
    }

    /// Damage is called damage (exit 67), not a wrong key: a file cut below one page, and a
    /// first page with one byte changed whose second page opens with the key.
    @Test func aFileCutBelowOnePageOrWithADamagedFirstPageIsDamagedNotAWrongKey() throws {
        let short = workspace.path("short.db")
        try fileBytes(database).prefix(300).write(to: URL(fileURLWithPath: short))
        var result = try CLI.run(["settings", short, "--key-file", keyFile])
        #expect(result.status == 67, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("shorter than the smallest page"), "\(result.errorOutput)")

        let damaged = workspace.path("damaged.db")
        var bytes = fileBytes(database)
        bytes[40] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: damaged))
        result = try CLI.run(["settings", damaged, "--key-file", keyFile, "--kdf-iterations", "100000"])
        #expect(result.status == 67, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("page 1 is damaged") && result.errorOutput.contains("8192-byte pages"), "\(result.errorOutput)")
        // Without the count, and a byte changed in the block the search tests first: damage too.
        bytes = fileBytes(database)
        bytes[70] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: damaged))
        result = try CLI.run(["settings", damaged, "--key-file", keyFile, "--max-kdf-iterations", "200000"])
        #expect(result.status == 67 && result.errorOutput.contains("page 1 is damaged"), "\(result.errorOutput)")
        // A file cut inside its second page: the settings are right, and the file is cut short.
        let cut = workspace.path("cut.db")
        try fileBytes(database).prefix(8192 + 1000).write(to: URL(fileURLWithPath: cut))
        result = try CLI.run(["settings", cut, "--key-file", keyFile, "--kdf-iterations", "100000"])
        #expect(result.status == 67 && result.errorOutput.contains("not a whole number of 8192-byte pages"), "\(result.errorOutput)")
        // And with another key: wrong key, as before.
        let wrong = try workspace.keyFile("other.key", "yet another passphrase")
        #expect(try CLI.run(["settings", damaged, "--key-file", wrong, "--kdf-iterations", "100000", "--max-kdf-iterations", "1000"]).status == 65)
    }

    /// A damaged salt is damage too, when the schema copy keeps the salt and the key opens the
    /// pages with it.
    @Test func aDamagedSaltIsDamagedWhenTheSchemaCopyKeepsIt() throws {
        let path = workspace.path("salted.db")
        let queue = try DatabaseQueue(path: path, key: .passphrase("settings passphrase"))
        try queue.inDatabase { try $0.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES ('row');") }
        try queue.close()
        var bytes = fileBytes(path)
        bytes[3] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: path))
        // The defaults only: the first pass (with the damaged salt) tries them alone.
        let result = try CLI.run(["settings", path, "--key-file", keyFile, "--max-kdf-iterations", "0"])
        #expect(result.status == 67, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("the salt, are damaged"), "\(result.errorOutput)")
    }

    @Test func aWrongKeyIsAnsweredClearlyAndTheWrongKeyMessagePointsHere() throws {
        let wrong = try workspace.keyFile("w.key", "another passphrase")
        let result = try CLI.run(["settings", database, "--key-file", wrong, "--json", "--max-kdf-iterations", "1000"])
        #expect(result.status == 65, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("No known setting opens"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("every KDF iteration count up to 1000 was tried"), "\(result.errorOutput)")
        let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        #expect((object?["error"] as? [String: Any])?["kind"] as? String == "wrongKey", "\(result.output)")
        let verify = try CLI.run(["verify", database, "--key-file", wrong])
        #expect(verify.errorOutput.contains("cipherstore settings"), "\(verify.errorOutput)")
        let json = try CLI.run(["settings", database, "--key-file", keyFile, "--kdf-iterations", "100000", "--json"])
        let found = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
        #expect(found?["ok"] as? Bool == true && found?["keyDerivations"] as? Int == 3, "\(json.output)")
        #expect((found?["settings"] as? [String: Any])?["pageSize"] as? Int == 8192)
    }

    /// A file the sqlcipher shell made with `PRAGMA kdf_iter = 100000` (a common custom
    /// choice): found with the key alone, and the options printed open it.
    @Test func aFileTheShellMadeWith100000IterationsIsFoundWithTheKeyAlone() throws {
        let path = workspace.path("shell.db")
        let made = try SQLCipherShell.make(path, shell: "sqlcipher", key: "settings passphrase", pragmas: ["kdf_iter = 100000"])
        try #require(made.status == 0, "\(made.errorOutput)")
        #expect(try CLI.run(["verify", path, "--key-file", keyFile]).status == 65)
        let result = try CLI.run(["settings", path, "--key-file", keyFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.contains("100000 KDF iterations") && result.output.contains("3 key derivations"), "\(result.output)")
        let optionLine = try #require(result.output.split(separator: "\n").first { $0.contains("cipherstore: ") })
        let options = optionLine.components(separatedBy: "cipherstore: ")[1].split(separator: " ").map(String.init)
        #expect(options == ["--kdf-iterations", "100000"], "\(result.output)")
        #expect(try CLI.run(["verify", path, "--key-file", keyFile] + options).status == 0)
        let json = try CLI.run(["settings", path, "--key-file", keyFile, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
        #expect((object?["settings"] as? [String: Any])?["kdfIterations"] as? Int == 100_000, "\(json.output)")
        #expect(object?["keyDerivations"] as? Int == 3 && (object?["candidatesTried"] as? Int ?? 0) >= 100_000, "\(json.output)")
        #expect(try CLI.run(["settings", path, "--key-file", keyFile, "--max-kdf-iterations", "-1"]).status == 64)
    }

    /// SQLCipher 2.0.0's HMAC key (salt mask 0x00), made by a SQLCipher 3 shell with the
    /// deprecated pragmas: named, with the options that read it and the Swift value that opens it.
    @Test(.enabled(if: SQLCipherShell.format3 != nil, "needs a SQLCipher 3 shell"))
    func theSQLCipher2SaltMaskIsNamedWithItsSwiftValue() throws {
        let path = workspace.path("beta.db")
        let made = try SQLCipherShell.make(path, shell: try #require(SQLCipherShell.format3), key: "settings passphrase",
                                           pragmas: ["kdf_iter = 4000", "fast_kdf_iter = 4000", "cipher_hmac_salt_mask = \"x'00'\""])
        try #require(made.status == 0, "\(made.errorOutput)")
        let result = try CLI.run(["settings", path, "--key-file", keyFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.contains("HMAC salt mask 0x00") && result.output.contains("--kdf-iterations 4000 --hmac-salt-mask 00 --hmac-kdf-iterations 4000"), "\(result.output)")
        #expect(result.output.contains("(the source): \(LinkedSQLCipher.isVersion4 ? "--old-sqlcipher3 " : "")--old-kdf-iterations 4000 --old-hmac-salt-mask 00 --old-hmac-kdf-iterations 4000"), "\(result.output)")
        #expect(result.output.contains("hmacSaltMask: 0x00, hmacKDFIterations: 4000)"), "\(result.output)")
    }

    /// SQLCipher 4 with its KDF's hash changed alone (`cipher_kdf_algorithm`, the HMAC kept at
    /// SHA-512), and with both changed: found with the key alone, and on SQLCipher 4 the options
    /// printed open the file.
    @Test(.enabled(if: SQLCipherShell.format4 != nil, "needs a SQLCipher 4 shell"))
    func aKDFHashChangedAloneOrWithTheHMACsIsFound() throws {
        for (name, pragmas, options) in [
            ("kdf256.db", ["cipher_kdf_algorithm = PBKDF2_HMAC_SHA256"], ["--kdf-algorithm", "sha256"]),
            ("both256.db", ["cipher_kdf_algorithm = PBKDF2_HMAC_SHA256", "cipher_hmac_algorithm = HMAC_SHA256"], ["--kdf-algorithm", "sha256", "--hmac-algorithm", "sha256"]),
        ] {
            let path = workspace.path(name)
            let made = try SQLCipherShell.make(path, shell: try #require(SQLCipherShell.format4), key: "settings passphrase", pragmas: pragmas)
            try #require(made.status == 0, "\(made.errorOutput)")
            let result = try CLI.run(["settings", path, "--key-file", keyFile, "--json", "--max-kdf-iterations", "0"])
            #expect(result.status == 0, "\(name): \(result.output) \(result.errorOutput)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
            let settings = try #require(object["settings"] as? [String: Any], "\(result.output)")
            #expect(settings["kdfAlgorithm"] as? String == "PBKDF2_HMAC_SHA256", "\(name): \(result.output)")
            #expect(settings["hmacAlgorithm"] as? String == (pragmas.count == 2 ? "HMAC_SHA256" : "HMAC_SHA512"), "\(name): \(result.output)")
            guard LinkedSQLCipher.isVersion4 else { continue }
            #expect(object["options"] as? [String] == options, "\(name): \(result.output)")
            #expect(try CLI.run(["verify", path, "--key-file", keyFile] + options).status == 0, "\(name)")
        }
    }

    /// `settings` changes nothing: a database in WAL mode is left without a -wal or -shm it
    /// did not have.
    @Test func aWALDatabaseIsLeftAsItWasFound() throws {
        let path = workspace.path("wal.db")
        let db = try Connection(path: path, key: .passphrase("settings passphrase"), configuration: Configuration(journalMode: .wal))
        try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES ('row');")
        try db.close()
        let before = try FileManager.default.contentsOfDirectory(atPath: workspace.url.path).sorted()
        let result = try CLI.run(["settings", path, "--key-file", keyFile, "--max-kdf-iterations", "0"])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.url.path).sorted() == before)
    }

    /// A file cut after its first page: the settings are found, and the answer is damage
    /// (exit 67), not a library-version problem; `verify` says damaged with 67 too.
    @Test func aFileCutAfterItsFirstPageIsDamaged() throws {
        let source = workspace.path("big.db")
        let db = try Connection(path: source, key: nil)
        try db.executeScript("CREATE TABLE t(x); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500) INSERT INTO t SELECT randomblob(100) FROM n;")
        try db.close()
        let full = workspace.path("full.db")
        #expect(try CLI.run(["encrypt", source, "-o", full, "--key-file", keyFile]).status == 0)
        let cut = workspace.path("cut.db")
        try fileBytes(full).prefix(SQLCipherLibrary.defaultPageSize).write(to: URL(fileURLWithPath: cut))
        let settings = try CLI.run(["settings", cut, "--key-file", keyFile])
        #expect(settings.status == 67 && settings.errorOutput.contains("damaged"), "\(settings.output) \(settings.errorOutput)")
        let verify = try CLI.run(["verify", cut, "--key-file", keyFile])
        #expect(verify.status == 67, "\(verify.errorOutput)")
    }
}
