import CipherStore
import Foundation
import TestSupport
import Testing

/// The guide "Opening the files from other programs" (OtherClients.md), statement by statement:
/// files the CLI makes open in the real `sqlcipher` shells and in Python's sqlcipher3 with
/// exactly the statements the guide prints, and only the passphrase swapped for a throwaway one
/// (which has a quote, as the guide's escaping must handle). The key goes on standard input to
/// the shells and in an environment variable to Python, never in argv.
@Suite struct OtherClientsCLITests {
    let workspace: TemporaryDirectory
    let keyFile: String
    let guide: String

    /// The test's passphrase, and the one the guide's examples show.
    static let passphrase = "throwaway ☂ it's"
    static let guidePassphrase = "correct horse battery staple"
    static let compatibility = "PRAGMA cipher_compatibility = 3;"
    /// `cipher_compatibility = 3` spelled out, as the guide gives it.
    static let sqlcipher3Settings = ["PRAGMA cipher_page_size = 1024;", "PRAGMA kdf_iter = 64000;",
                                     "PRAGMA cipher_hmac_algorithm = HMAC_SHA1;", "PRAGMA cipher_kdf_algorithm = PBKDF2_HMAC_SHA1;"]
    /// What each client prints: the count of `sqlite_master` (the guide's check), then the rows.
    static let rows = "1\none\ntwo\n温泉\n"

    init() throws {
        workspace = try TemporaryDirectory()
        keyFile = try workspace.keyFile("app.key", Self.passphrase + "\n")
        guide = try String(contentsOf: PythonSQLCipher.packageRoot.appendingPathComponent("Sources/CipherStore/CipherStore.docc/OtherClients.md"), encoding: .utf8)
    }

    /// A plaintext database with three notes.
    private func makePlaintext(_ name: String) throws -> String {
        let plain = workspace.path(name)
        let db = try Connection(path: plain, key: nil)
        try db.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT)")
        try db.execute(sql: "INSERT INTO note(body) VALUES ('one'), ('two'), ('温泉')")
        try db.close()
        return plain
    }

    /// `app.db`, made by `cipherstore encrypt` with `options` from a plaintext with three notes.
    private func make(_ options: [String] = []) throws -> String {
        let app = workspace.path("app.db")
        let result = try CLI.run(["encrypt", try makePlaintext("plain.db"), "-o", app, "--key-file", keyFile, "--quiet"] + options)
        try #require(result.status == 0, "\(result.errorOutput)")
        return app
    }

    /// A shell block of the guide: the key line, the settings, the check.
    private func block(keyLine: String, settings: [String]) -> String {
        ([keyLine] + settings + ["SELECT count(*) FROM sqlite_master;"]).joined(separator: "\n")
    }

    /// Whether the guide prints the shell block with these settings (with its example passphrase).
    private func guideShows(_ settings: [String]) -> Bool {
        guide.contains(block(keyLine: "PRAGMA key = '\(Self.guidePassphrase)';", settings: settings))
    }

    /// Runs a guide block in `shell` with the test's passphrase (or `rawKey`), then reads the notes.
    private func shell(_ shell: String, _ database: String, settings: [String], rawKey: String? = nil) throws -> ProcessResult {
        let keyLine = rawKey.map { "PRAGMA key = \"x'\($0)'\";" }
            ?? "PRAGMA key = '\(Self.passphrase.replacingOccurrences(of: "'", with: "''"))';"
        return try SQLCipherShell.run(database: database, script: block(keyLine: keyLine, settings: settings) + "\nSELECT body FROM note ORDER BY id;\n", shell: shell)
    }

    /// The guide's Python example (without its `cipher_compatibility` line unless
    /// `compatibility`; with the slot section's key line for `rawKey`), then a loop over the notes.
    private func python(compatibility: Bool, rawKey: String? = nil) throws -> ProcessResult {
        let compatibilityLine = "conn.execute(\"PRAGMA cipher_compatibility = 3\")  # only for a file in SQLCipher 3's format\n"
        let passphraseLines = """
            passphrase = os.environ["APP_DB_PASSPHRASE"]
            conn.execute("PRAGMA key = '" + passphrase.replace("'", "''") + "'")

            """
        var example = """
            import os
            import sqlcipher3

            conn = sqlcipher3.connect("app.db")
            \(passphraseLines)\(compatibilityLine)print(conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0])

            """
        #expect(guide.contains(example), "the guide's Python example changed")
        if !compatibility { example = example.replacingOccurrences(of: compatibilityLine, with: "") }
        if rawKey != nil {
            let rawKeyLine = "conn.execute(\"PRAGMA key = \\\"x'\" + raw_key + \"'\\\"\")"
            #expect(guide.contains(rawKeyLine), "the guide's Python raw-key line changed")
            example = example.replacingOccurrences(of: passphraseLines, with: "raw_key = os.environ[\"APP_DB_PASSPHRASE\"]\n\(rawKeyLine)\n")
        }
        let script = example + "for (body,) in conn.execute(\"SELECT body FROM note ORDER BY id\"):\n    print(body)\n"
        return try PythonSQLCipher.run(script, in: workspace.url.path, passphrase: rawKey ?? Self.passphrase)
    }

    // MARK: A file in SQLCipher 3's format

    @Test(.enabled(if: SQLCipherShell.format3 != nil, "needs a SQLCipher 3 shell"))
    func aSQLCipher3FileOpensInASQLCipher3ShellWithTheKeyAlone() throws {
        let app = try make(["--sqlcipher3"])
        #expect(guideShows([]))
        let result = try shell(SQLCipherShell.format3!, app, settings: [])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(SQLCipherShell.queryOutput(of: result) == Self.rows)
    }

    @Test(.enabled(if: SQLCipherShell.format4 != nil, Comment(rawValue: SQLCipherShell.sqlcipher4Missing)))
    func aSQLCipher3FileOpensInASQLCipher4ShellWithCipherCompatibility() throws {
        let app = try make(["--sqlcipher3"])
        let shell4 = SQLCipherShell.format4!
        #expect(guideShows([Self.compatibility]))
        #expect(guideShows(Self.sqlcipher3Settings))
        let compatible = try shell(shell4, app, settings: [Self.compatibility])
        #expect(compatible.status == 0, "\(compatible.errorOutput)")
        #expect(SQLCipherShell.queryOutput(of: compatible) == Self.rows)
        let spelledOut = try shell(shell4, app, settings: Self.sqlcipher3Settings)
        #expect(spelledOut.status == 0, "\(spelledOut.errorOutput)")
        #expect(SQLCipherShell.queryOutput(of: spelledOut) == Self.rows)
        // The key alone is not enough there: the first read fails, as the guide says.
        let keyAlone = try shell(shell4, app, settings: [])
        #expect(keyAlone.errorOutput.contains("file is not a database") || keyAlone.errorOutput.contains("file is encrypted or is not a database"), "\(keyAlone.errorOutput)")
        #expect(!keyAlone.output.contains("two"))
    }

    @Test func aSQLCipher3FileOpensInPythonWithCipherCompatibility() throws {
        let app = try make(["--sqlcipher3"])
        let before = fileBytes(app)
        let result = try python(compatibility: true)
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output == Self.rows)
        #expect(fileBytes(app) == before)
        // Without it, sqlcipher3's own SQLCipher 4 reads nothing.
        let without = try python(compatibility: false)
        #expect(without.status != 0)
        #expect(without.errorOutput.contains("file is not a database"), "\(without.errorOutput)")
    }

    /// `--page-size` and `--kdf-iterations` add one statement each, after `cipher_compatibility`.
    @Test func customSettingsAddTheirStatements() throws {
        let app = try make(["--sqlcipher3", "--page-size", "4096", "--kdf-iterations", "100000"])
        let custom = ["PRAGMA cipher_page_size = 4096;", "PRAGMA kdf_iter = 100000;"]
        for statement in custom { #expect(guide.contains("| `\(statement)` |")) }
        if let shell3 = SQLCipherShell.format3 {
            let result = try shell(shell3, app, settings: custom)
            #expect(result.status == 0, "\(result.errorOutput)")
            #expect(SQLCipherShell.queryOutput(of: result) == Self.rows)
        }
        if let shell4 = SQLCipherShell.format4 {
            let result = try shell(shell4, app, settings: [Self.compatibility] + custom)
            #expect(result.status == 0, "\(result.errorOutput)")
            #expect(SQLCipherShell.queryOutput(of: result) == Self.rows)
        }
        #expect(SQLCipherShell.format3 != nil || SQLCipherShell.format4 != nil, "no sqlcipher shell ran")
    }

    @Test func aFileWithoutHMACNeedsItsStatement() throws {
        let app = try make(["--no-hmac"])
        let statement = "PRAGMA cipher_use_hmac = OFF;"
        #expect(guide.contains("| `--no-hmac` | `\(statement)` |"))
        let result = try shell("sqlcipher", app, settings: [statement])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(SQLCipherShell.queryOutput(of: result) == Self.rows)
    }

    @Test(.enabled(if: LinkedSQLCipher.isVersion4, "SQLCipher 4 only: only it writes a plaintext header"))
    func aFileWithAPlaintextHeaderNeedsItsSizeAndSalt() throws {
        let app = workspace.path("app.db")
        let made = try CLI.run(["encrypt", try makePlaintext("plain.db"), "-o", app, "--key-file", keyFile, "--plaintext-header"])
        try #require(made.status == 0, "\(made.errorOutput)")
        let saltLine = try #require(made.output.split(separator: "\n").first { $0.hasPrefix("Salt ") }, "\(made.output)")
        let salt = String(saltLine.dropFirst(5).prefix(32))
        try #require(made.output.contains("Salt \(salt): the file has a plaintext header"), "\(made.output)")
        // Such a file has no schema copy by design: no warning that it could not be written.
        #expect(!(made.output + made.errorOutput).contains("schema copy"), "\(made.errorOutput)")
        #expect(guide.contains("| `--plaintext-header` (SQLCipher 4) | `PRAGMA cipher_plaintext_header_size = 32;` and `PRAGMA cipher_salt = \"x'<the salt the run printed>'\";` |"))
        let result = try shell("sqlcipher", app, settings: ["PRAGMA cipher_plaintext_header_size = 32;", "PRAGMA cipher_salt = \"x'\(salt)'\";"])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(SQLCipherShell.queryOutput(of: result) == Self.rows)
    }

    // MARK: A file in SQLCipher 4's format

    @Test(.enabled(if: LinkedSQLCipher.isVersion4, "SQLCipher 4 only: only it writes SQLCipher 4's format"))
    func aSQLCipher4FileOpensInSQLCipher4ClientsWithTheKeyAloneAndNotInSQLCipher3() throws {
        let app = try make()
        let result = try shell("sqlcipher", app, settings: [])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(SQLCipherShell.queryOutput(of: result) == Self.rows)
        let fromPython = try python(compatibility: false)
        #expect(fromPython.status == 0, "\(fromPython.errorOutput)")
        #expect(fromPython.output == Self.rows)
        #expect(guide.contains("| CipherStore on SQLCipher 4 | the defaults | cannot open it | the key |"))
        if let shell3 = SQLCipherShell.sqlcipher3 {
            let old = try shell(shell3, app, settings: [])
            #expect(old.errorOutput.contains("file is encrypted or is not a database"), "\(old.errorOutput)")
            #expect(!old.output.contains("two"))
        }
    }

    // MARK: A slot database

    @Test func aSlotDatabaseOpensElsewhereWithItsExportedRawKey() throws {
        let app = try makePlaintext("app.db")
        let converted = try CLI.run(["encrypt", app, "--in-place", "--key-slots", "--key-file", keyFile, "--quiet"])
        try #require(converted.status == 0, "\(converted.errorOutput)")
        let exported = try CLI.run(["keys", "export-raw-key", app, "--key-file", keyFile, "--to-stdout"])
        try #require(exported.status == 0, "\(exported.errorOutput)")
        let rawKey = exported.output.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(rawKey.count == 96)

        // In the linked SQLCipher's own shell the file's format needs no setting; Python's
        // SQLCipher 4 needs cipher_compatibility for a file in SQLCipher 3's format.
        let result = try shell("sqlcipher", app, settings: [], rawKey: rawKey)
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(SQLCipherShell.queryOutput(of: result) == Self.rows)
        #expect(guide.contains(block(keyLine: "PRAGMA key = \"x'<the 96 hexadecimal digits>'\";", settings: [Self.compatibility])))
        let fromPython = try python(compatibility: LinkedSQLCipher.isVersion3, rawKey: rawKey)
        #expect(fromPython.status == 0, "\(fromPython.errorOutput)")
        #expect(fromPython.output == Self.rows)
        // The passphrase itself opens nothing outside CipherStore.
        let withPassphrase = try shell("sqlcipher", app, settings: [])
        #expect(!withPassphrase.output.contains("two"))
    }
}
