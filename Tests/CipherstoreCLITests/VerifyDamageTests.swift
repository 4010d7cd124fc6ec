import CipherStore
import Foundation
import TestSupport
import Testing

/// `verify` on a file whose middle was overwritten: it speaks for itself (not as a conversion
/// would), summarises what the integrity check found, and exits 67 — in text and in JSON.
@Suite struct VerifyDamageTests {
    let workspace: TemporaryDirectory
    let keyFile: String

    init() throws {
        workspace = try TemporaryDirectory()
        keyFile = try workspace.keyFile("app.key", "damage key\n")
    }

    /// A database of about 750 pages, then 3000 bytes of 0xFF written over its middle.
    func damagedDatabase(encrypted: Bool) throws -> String {
        let plain = workspace.path("plain.db")
        let db = try Connection(path: plain, key: nil)
        try db.execute(sql: "PRAGMA page_size = \(SQLCipherLibrary.defaultPageSize)")
        try db.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, body TEXT)")
        try db.execute(sql: "CREATE INDEX t_body ON t(body)")
        try db.execute(sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) INSERT INTO t(body) SELECT printf('%0200d', i) FROM n")
        try db.close()
        var path = plain
        if encrypted {
            path = workspace.path("enc.db")
            let result = try CLI.run(["encrypt", plain, "-o", path, "--key-file", keyFile])
            try #require(result.status == 0, "\(result.errorOutput)")
        }
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        let size = handle.seekToEndOfFile()
        handle.seek(toFileOffset: size / 2)
        handle.write(Data(repeating: 0xFF, count: 3000))
        try handle.close()
        return path
    }

    func expectSummarised(_ result: ProcessResult, path: String) {
        #expect(result.status == 67, "\(result.errorOutput)")
        #expect(result.output.isEmpty)
        let message = result.errorOutput
        #expect(message.contains("'\(path)' is damaged"), "\(message)")
        #expect(!message.contains("converted database"), "\(message)")
        #expect(!message.contains("discarded"), "\(message)")
        // One line, at most three problems named, however many the check found.
        #expect(message.split(separator: "\n").count == 1, "\(message)")
        #expect(message.components(separatedBy: "Page ").count - 1 <= 3, "\(message)")
    }

    @Test func anEncryptedFileDamagedInTheMiddleIsSummarised() throws {
        let path = try damagedDatabase(encrypted: true)
        let before = fileBytes(path)
        let result = try CLI.run(["verify", path, "--key-file", keyFile])
        expectSummarised(result, path: path)
        #expect(result.errorOutput.contains("the integrity check found"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("more)"), "\(result.errorOutput)")
        #expect(fileBytes(path) == before)
    }

    @Test func aPlaintextFileDamagedInTheMiddleIsDamageNotAnIOFailure() throws {
        let path = try damagedDatabase(encrypted: false)
        let result = try CLI.run(["verify", path])
        expectSummarised(result, path: path)
        #expect(!result.errorOutput.contains("SQLite error"), "\(result.errorOutput)")
    }

    @Test func theJSONFailureCarriesTheSummary() throws {
        let path = try damagedDatabase(encrypted: true)
        let result = try CLI.run(["verify", path, "--key-file", keyFile, "--json"])
        #expect(result.status == 67)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(json["ok"] as? Bool == false)
        let error = try #require(json["error"] as? [String: Any])
        #expect(error["kind"] as? String == "damaged")
        #expect(error["exitCode"] as? Int == 67)
        let message = try #require(error["message"] as? String)
        #expect(message.contains("the integrity check found") && !message.contains("\n"), "\(message)")
    }
}
