import CipherStore
import Foundation
import TestSupport
import Testing

/// A file that only has the name of a database's journal or log — not SQLite's — is never
/// deleted behind the user's back: `restore` keeps it under a name it prints, and `verify`
/// leaves the folder as it found it.
@Suite struct ForeignSideFileCLITests {
    static let passphrase = "side file passphrase"
    let workspace: TemporaryDirectory
    let keyFile: String
    let database: String
    let backup: String

    init() throws {
        workspace = try TemporaryDirectory()
        keyFile = try workspace.keyFile("app.key", Self.passphrase)
        database = workspace.path("app.db")
        let db = try Connection(path: database, key: .passphrase(Self.passphrase))
        try db.executeScript("CREATE TABLE note(body); INSERT INTO note VALUES ('old');")
        try db.close()
        backup = workspace.path("backup.db")
        let made = try Connection(path: backup, key: .passphrase(Self.passphrase))
        try made.executeScript("CREATE TABLE note(body); INSERT INTO note VALUES ('restored'); INSERT INTO note VALUES ('two');")
        try made.close()
    }

    /// Bytes no SQLite wrote: neither a journal's nor a log's header.
    static let junk = Data("notes I keep here, not a journal".utf8) + Data(repeating: 0x41, count: 4000)

    func rows(_ path: String) throws -> Int {
        let db = try Connection(path: path, key: .passphrase(Self.passphrase))
        defer { try? db.close() }
        return try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM note") ?? -1
    }

    func asideFiles(_ name: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: workspace.url.path).filter { $0.hasPrefix(name + ".stale-") }
    }

    @Test(arguments: [["-wal"], ["-journal"], ["-wal", "-journal"]])
    func aRestoreKeepsJunkBesideTheTargetAsideAndSaysWhere(suffixes: [String]) throws {
        for suffix in suffixes { try Self.junk.write(to: URL(fileURLWithPath: database + suffix)) }
        let result = try CLI.run(["restore", backup, "--to", database, "--key-file", keyFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("readonly"), "\(result.errorOutput)")
        for suffix in suffixes {
            let aside = try #require(try asideFiles("app.db" + suffix).first, "\(suffix) was not kept")
            #expect(fileBytes(workspace.path(aside)) == Self.junk)
            #expect(result.errorOutput.contains("found \(database)\(suffix) beside the database: it is not a SQLite journal or log"), "\(result.errorOutput)")
            #expect(result.errorOutput.contains("kept as \(workspace.path(aside))"), "\(result.errorOutput)")
            #expect(!FileManager.default.fileExists(atPath: database + suffix))
        }
        #expect(try rows(database) == 2)
    }

    @Test func aRefusedRestorePutsTheJunkBackUnderItsName() throws {
        try Self.junk.write(to: URL(fileURLWithPath: database + "-wal"))
        let otherKey = try workspace.keyFile("other.key", "another passphrase")
        // The database does not open with the key given for it: refused, nothing changed.
        let result = try CLI.run(["restore", backup, "--to", database, "--key-file", keyFile, "--old-key-file", otherKey])
        #expect(result.status == 65, "\(result.errorOutput)")
        #expect(fileBytes(database + "-wal") == Self.junk)
        #expect(try asideFiles("app.db-wal").isEmpty)
        #expect(try rows(database) == 1)
    }

    @Test func aRestoreRefusesAJournalAndALogOfSQLitesOwnSideBySide() throws {
        // A hot journal's header, and an empty log: both SQLite's, one too many.
        var journal = Data([0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7])
        journal.append(Data(count: 504))
        try journal.write(to: URL(fileURLWithPath: database + "-journal"))
        try Data().write(to: URL(fileURLWithPath: database + "-wal"))
        let result = try CLI.run(["restore", backup, "--to", database, "--key-file", keyFile])
        #expect(result.status == 74, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("Both a rollback journal '\(database)-journal' and a write-ahead log '\(database)-wal' lie beside"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("Nothing was changed. Move the one that does not belong"), "\(result.errorOutput)")
        #expect(fileBytes(database + "-journal") == journal)
        #expect(FileManager.default.fileExists(atPath: database + "-wal"))
    }

    @Test func verifyLeavesTheFolderAsItFoundIt() throws {
        try Self.junk.write(to: URL(fileURLWithPath: database + "-wal"))
        let before = try FileManager.default.contentsOfDirectory(atPath: workspace.url.path).sorted()
        let result = try CLI.run(["verify", database, "--key-file", keyFile])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.contains("note: 1 row"), "\(result.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.url.path).sorted() == before)
        #expect(fileBytes(database + "-wal") == Self.junk)
        // The junk is named, with why the journal mode reads wal for this rollback-mode file.
        #expect(result.errorOutput.contains("'\(database)-wal' is beside the database, named like its write-ahead log but not SQLite's"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("which is why the journal mode says wal"), "\(result.errorOutput)")
        let json = try CLI.run(["verify", database, "--key-file", keyFile, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(object["unrecognizedSideFiles"] as? [String] == [database + "-wal"], "\(json.output)")
        // Without it, nothing is said.
        try FileManager.default.removeItem(atPath: database + "-wal")
        let clean = try CLI.run(["verify", database, "--key-file", keyFile])
        #expect(clean.status == 0 && !clean.errorOutput.contains("not SQLite's"), "\(clean.errorOutput)")
    }
}
