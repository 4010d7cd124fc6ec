import CipherStore
import Foundation
import TestSupport
import Testing

/// Every setting `cipherstore settings` reports has an option on the reading side of `rekey`,
/// `upgrade`, `backup`, `keys init` and `keys rotate`: files in SQLCipher 1's and 2.0's formats,
/// made by the shells, move to today's format in one verified command, with the options the
/// finder printed for them and the key alone.
@Suite struct OldFormatCLITests {
    let workspace: TemporaryDirectory
    let passphrase = "old format passphrase"
    let keyFile: String

    init() throws {
        workspace = try TemporaryDirectory()
        keyFile = try workspace.keyFile("k.key", passphrase)
    }

    /// A file made by a SQLCipher 3 shell with `pragmas` (the shell of 3.4.1 still writes SQLCipher 1's and 2.0's formats).
    func make(_ name: String, _ pragmas: [String]) throws -> String {
        let path = workspace.path(name)
        let made = try SQLCipherShell.make(path, shell: try #require(SQLCipherShell.format3), key: passphrase, pragmas: pragmas)
        try #require(made.status == 0, "\(made.errorOutput)")
        return path
    }

    /// What `settings --json` prints for `path`: the options for commands that read the file,
    /// and the same for the source of rekey, upgrade and keys rotate.
    func found(_ path: String, key: String? = nil) throws -> (options: [String], sourceOptions: [String]) {
        let result = try CLI.run(["settings", path, "--key-file", key ?? keyFile, "--json"])
        try #require(result.status == 0, "\(result.output) \(result.errorOutput)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        return (try #require(object["options"] as? [String], "\(result.output)"), try #require(object["sourceOptions"] as? [String], "\(result.output)"))
    }

    /// The row the shell wrote, read with the options given.
    func row(_ path: String, key: String? = nil, _ options: [String] = []) throws -> String {
        let result = try CLI.run(["query", path, "SELECT x FROM t", "--key-file", key ?? keyFile, "--format", "csv"] + options)
        #expect(result.status == 0, "\(result.errorOutput)")
        return result.output
    }

    /// `options` without the options `names` and the value after each.
    func removing(_ names: Set<String>, from options: [String]) -> [String] {
        var kept: [String] = []
        var skipValue = false
        for option in options {
            if skipValue { skipValue = false; continue }
            if names.contains(option) { skipValue = true; continue }
            kept.append(option)
        }
        return kept
    }

    /// The one command that moves a file to the linked SQLCipher's own format under the same
    /// passphrase: `upgrade` on SQLCipher 4; `rekey` to SQLCipher 3's defaults on SQLCipher 3.
    func moveToTodaysFormat(_ path: String, sourceOptions: [String], to destination: [String]) throws -> ProcessResult {
        if LinkedSQLCipher.isVersion4 {
            return try CLI.run(["upgrade", path, "--key-file", keyFile] + destination + sourceOptions)
        }
        return try CLI.run(["rekey", path, "--old-key-file", keyFile, "--new-key-file", keyFile, "--kdf-iterations", "64000"]
                           + destination + sourceOptions)
    }

    @Test(.enabled(if: SQLCipherShell.format3 != nil, "needs a SQLCipher 3 shell"))
    func aSQLCipher1FileMovesToTodaysFormatInPlaceInOneCommand() throws {
        let path = try make("one.db", ["kdf_iter = 4000", "cipher_use_hmac = OFF"])
        #expect(try CLI.run(["verify", path, "--key-file", keyFile]).status == 65)
        let (options, sourceOptions) = try found(path)
        #expect(options == (LinkedSQLCipher.isVersion4 ? ["--sqlcipher3"] : []) + ["--kdf-iterations", "4000", "--no-hmac"], "\(options)")
        #expect(sourceOptions == options.map { $0.hasPrefix("--") ? "--old-" + $0.dropFirst(2) : $0 })

        let moved = try moveToTodaysFormat(path, sourceOptions: sourceOptions, to: ["--in-place"])
        #expect(moved.status == 0, "\(moved.errorOutput)")
        #expect(!moved.output.contains(passphrase) && !moved.errorOutput.contains(passphrase))
        // Now the key alone opens it, with an HMAC on every page: the linked SQLCipher's defaults.
        #expect(try found(path).options == [], "the file is in the linked SQLCipher's own format")
        #expect(try CLI.run(["verify", path, "--key-file", keyFile]).status == 0)
        #expect(try row(path) == "x\nrow\n")
        let info = DatabaseFileInfo.inspect(path: path)
        #expect(info.kind == .encrypted && info.size % Int64(SQLCipherLibrary.defaultPageSize) == 0)
    }

    @Test(.enabled(if: SQLCipherShell.format3 != nil, "needs a SQLCipher 3 shell"))
    func aSQLCipher2SaltMaskFileIsReadAndRewrittenIntoANewFileOnly() throws {
        let path = try make("beta.db", ["kdf_iter = 4000", "fast_kdf_iter = 4000", "cipher_hmac_salt_mask = \"x'00'\""])
        let (options, sourceOptions) = try found(path)
        #expect(options.contains("--hmac-salt-mask") && options.contains("00") && options.contains("--hmac-kdf-iterations"), "\(options)")
        let before = fileBytes(path)

        // Reading commands open it read-only with the options printed, and change nothing.
        #expect(try CLI.run(["verify", path, "--key-file", keyFile] + options).status == 0)
        #expect(try row(path, options) == "x\nrow\n")
        // In place is refused: such a file opens read-only only. Nothing changes.
        let inPlace = try moveToTodaysFormat(path, sourceOptions: sourceOptions, to: ["--in-place"])
        #expect(inPlace.status == 64 && inPlace.errorOutput.contains("--output"), "\(inPlace.errorOutput)")
        #expect(fileBytes(path) == before)

        let today = workspace.path("today.db")
        let moved = try moveToTodaysFormat(path, sourceOptions: sourceOptions, to: ["--output", today])
        #expect(moved.status == 0, "\(moved.errorOutput)")
        #expect(try found(today).options == [], "the copy is in the linked SQLCipher's own format")
        #expect(try row(today) == "x\nrow\n")
        #expect(fileBytes(path) == before)

        // A backup reads it too, and is written with SQLCipher's current HMAC: it opens
        // without the 2.0 options, with the source's iterations and page size.
        let backup = workspace.path("backup.db")
        let backedUp = try CLI.run(["backup", path, "-o", backup, "--key-file", keyFile] + options)
        #expect(backedUp.status == 0, "\(backedUp.errorOutput)")
        let plainOptions = removing(["--hmac-salt-mask", "--hmac-kdf-iterations"], from: options)
        #expect(try found(backup).options == plainOptions, "\(plainOptions)")
        #expect(try row(backup, plainOptions) == "x\nrow\n")

        // A repair reads it too, and writes today's HMAC.
        let repaired = workspace.path("repaired.db")
        let repair = try CLI.run(["repair", path, "-o", repaired, "--key-file", keyFile] + options)
        #expect(repair.status == 0, "\(repair.errorOutput)")
        #expect(try row(repaired, plainOptions) == "x\nrow\n")
        // What would write to it is refused before a key is asked for (none is given here).
        for arguments in [["query", path, "INSERT INTO t VALUES ('no')", "--write"] + options,
                          ["keys", "init", path, "--new-key-file", keyFile] + options] {
            let refused = try CLI.run(arguments)
            #expect(refused.status == 64 && refused.errorOutput.contains("opens read-only only") && refused.errorOutput.contains("Nothing was changed"),
                    "\(arguments[0]) \(arguments[1]): \(refused.errorOutput)")
        }
        #expect(fileBytes(path) == before)
    }

    /// A conversion's result that needs settings beyond its key says which, as options that
    /// open it: a backup of a SQLCipher 1 file keeps its format.
    @Test(.enabled(if: SQLCipherShell.format3 != nil, "needs a SQLCipher 3 shell"))
    func theOptionsAResultNeedsAreTheOnesThatOpenIt() throws {
        let path = try make("one.db", ["kdf_iter = 4000", "cipher_use_hmac = OFF"])
        let (options, _) = try found(path)
        let backup = workspace.path("one-backup.db")
        let result = try CLI.run(["backup", path, "-o", backup, "--key-file", keyFile, "--json"] + options)
        #expect(result.status == 0, "\(result.errorOutput)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let opensOnlyWith = try #require(object["opensOnlyWith"] as? [String], "\(result.output)")
        let needed = opensOnlyWith.flatMap { $0.split(separator: " ").map(String.init) }
        #expect(needed == options, "\(needed)")
        #expect(result.errorOutput.contains("cipher_use_hmac = OFF"), "\(result.errorOutput)")
        #expect(try CLI.run(["verify", backup, "--key-file", keyFile] + needed).status == 0)
    }

    /// Settings that contradict each other are refused before anything is read.
    @Test func contradictingSettingsAreRefused() throws {
        let path = workspace.path("any.db")
        let db = try Connection(path: path, key: .passphrase(passphrase))
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.close()
        for arguments in [["verify", path, "--key-file", keyFile, "--no-hmac", "--hmac-pgno", "be"],
                          ["rekey", path, "-o", workspace.path("x.db"), "--old-key-file", keyFile, "--new-key-file", keyFile, "--old-no-hmac", "--old-hmac-kdf-iterations", "4000"],
                          ["rekey", path, "-o", workspace.path("x.db"), "--old-key-file", keyFile, "--new-key-file", keyFile, "--old-salt", String(repeating: "ab", count: 16)]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.errorOutput)")
            #expect(result.errorOutput.contains("--old-salt goes with") || result.errorOutput.contains("says the file has no HMAC"), "\(result.errorOutput)")
        }
        #expect(!FileManager.default.fileExists(atPath: workspace.path("x.db")))
    }

    @Test(.enabled(if: SQLCipherShell.format3 != nil, "needs a SQLCipher 3 shell"))
    func aSQLCipher2BigEndianFileBecomesASlotDatabaseInTodaysFormat() throws {
        let path = try make("be.db", ["kdf_iter = 4000", "cipher_hmac_pgno = be"])
        let (options, _) = try found(path)
        #expect(options.suffix(2) == ["--hmac-pgno", "be"], "\(options)")
        let first = try workspace.keyFile("first.pass", "first slot passphrase")
        let converted = try CLI.run(["keys", "init", path, "--key-file", keyFile, "--new-key-file", first] + options)
        #expect(converted.status == 0, "\(converted.errorOutput)")
        // The slot database has the linked SQLCipher's own settings: its passphrase alone opens it.
        #expect(try row(path, key: first) == "x\nrow\n")
        #expect(try CLI.run(["verify", path, "--key-file", first]).status == 0)
        #expect(try CLI.run(["query", path, "SELECT x FROM t", "--key-file", first] + options).status != 0,
                "big-endian page numbers no longer open it")
    }

    @Test func aResultIsNeverWrittenWithSQLCipher2Variants() throws {
        let plain = workspace.path("plain.db")
        let db = try Connection(path: plain, key: nil)
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.close()
        let before = fileBytes(plain)
        for variant in [["--hmac-pgno", "be"], ["--hmac-salt-mask", "00"], ["--hmac-kdf-iterations", "4000"]] {
            let encrypt = try CLI.run(["encrypt", plain, "-o", workspace.path("out.db"), "--key-file", keyFile] + variant)
            #expect(encrypt.status == 64 && encrypt.errorOutput.contains("SQLCipher 2.0 file to read"), "\(encrypt.errorOutput)")
            #expect(!FileManager.default.fileExists(atPath: workspace.path("out.db")))
        }
        #expect(fileBytes(plain) == before)
        #expect(try CLI.run(["encrypt", plain, "-o", workspace.path("out.db"), "--key-file", keyFile, "--hmac-salt-mask", "zz"]).status == 64)
    }

    /// A slot database made without HMAC (`encrypt --key-slots --no-hmac`) rotates its data key
    /// with `--old-no-hmac`, and keeps its settings, as a rotation does.
    @Test func aSlotDatabaseWithoutHMACRotatesWithTheOldNoHMACOption() throws {
        let path = workspace.path("slots.db")
        let db = try Connection(path: path, key: nil)
        try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES ('row');")
        try db.close()
        let first = try workspace.keyFile("first.pass", "first slot passphrase")
        let encrypted = try CLI.run(["encrypt", path, "--in-place", "--key-slots", "--no-hmac", "--key-file", first])
        try #require(encrypted.status == 0, "\(encrypted.errorOutput)")
        let without = try CLI.run(["keys", "rotate", path, "--key-file", first])
        #expect(without.status == 65, "\(without.errorOutput)")
        let rotated = try CLI.run(["keys", "rotate", path, "--key-file", first, "--old-no-hmac"])
        #expect(rotated.status == 0, "\(rotated.errorOutput)")
        #expect(try row(path, key: first, ["--no-hmac"]) == "x\nrow\n")
    }
}
