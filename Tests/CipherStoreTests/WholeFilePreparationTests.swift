import CipherStore
import Foundation
import TestSupport
import Testing

/// `DatabaseFileOptions.prepareDatabase` gives the whole-file operations the app's functions and
/// collations, and nothing else: an app's own preparation, reused as it is, may set the journal
/// mode, write, make temporary tables and triggers or install a trace handler, and no file an
/// operation reads or writes sees it.
@Suite struct WholeFilePreparationTests {
    let directory: TemporaryDirectory
    let path: String
    let key: DatabaseKey
    let options: DatabaseFileOptions

    /// Reverse byte order: an index under it checks only with the app's collation.
    static let myapp = DatabaseCollation("myapp") { lhs, rhs in rhs.compare(lhs) }

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.path("app.db")
        key = try DatabaseKey.rawKey(hex: String(repeating: "5d", count: 32))
        let db = try Connection(path: path, key: key)
        try db.add(collation: Self.myapp)
        try db.executeScript("""
            PRAGMA journal_mode = DELETE;
            CREATE TABLE word(id INTEGER PRIMARY KEY, text TEXT COLLATE myapp UNIQUE);
            WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 200)
            INSERT INTO word(text) SELECT printf('w%04d', i) FROM c;
            """)
        try db.close()
        var options = DatabaseFileOptions()
        // What an app's own preparation may do beside adding its collation.
        options.prepareDatabase { db in
            try db.add(collation: Self.myapp)
            _ = try db.fetchScalar(Int.self, sql: "PRAGMA user_version")
            try db.execute(sql: "PRAGMA query_only = OFF")
            _ = try db.fetchAll(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA user_version = 7")
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS audit(x)")
            try db.execute(sql: "INSERT INTO audit VALUES ('prepared')")
            // A temporary table that would shadow the file's, a trigger that would write into it,
            // and a trace handler that would write later.
            try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS word(id INTEGER PRIMARY KEY, text TEXT)")
            try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS poke(x)")
            try db.execute(sql: "CREATE TEMP TRIGGER IF NOT EXISTS poke_t AFTER INSERT ON temp.poke BEGIN INSERT INTO audit VALUES ('injected'); END")
            try db.execute(sql: "INSERT INTO temp.poke VALUES (1)")
            try db.trace { _ in _ = try? db.execute(sql: "INSERT INTO main.audit VALUES ('traced')") }
        }
        self.options = options
    }

    func bytes(_ file: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: file)) }

    /// The file's journal mode, whether it holds anything but its 200 rows (the preparation's
    /// table, its user_version), and its integrity, read with the app's collation; `key` when
    /// it is not the fixture's (`.some(nil)`: a plaintext file).
    func state(of file: String, key: DatabaseKey?? = nil) throws -> (journalMode: String, hasAudit: Bool, integrity: String) {
        let db = try Connection(path: file, key: key ?? self.key)
        defer { try? db.close() }
        try db.add(collation: Self.myapp)
        let mode = try db.fetchScalar(String.self, sql: "PRAGMA journal_mode") ?? ""
        let rows = try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM word") ?? -1
        let version = try db.fetchScalar(Int.self, sql: "PRAGMA user_version") ?? -1
        let audit = try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE name = 'audit'") ?? -1
        return (mode, rows != 200 || version != 0 || audit != 0, try db.fetchScalar(String.self, sql: "PRAGMA integrity_check") ?? "")
    }

    @Test func aBackupAndARestoreLeaveTheirSourcesAsTheyWere() throws {
        let before = try bytes(path)
        let copy = directory.path("copy.db")
        let backup = try DatabaseBackup.backup(path: path, key: key, to: copy, options: options)
        #expect(backup.verification.placeholderCollations.isEmpty)
        #expect(try bytes(path) == before)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        let copied = try state(of: copy)
        #expect(copied.journalMode == "delete")
        #expect(!copied.hasAudit)
        #expect(copied.integrity == "ok")

        let copyBytes = try bytes(copy)
        let restored = directory.path("restored.db")
        let restore = try DatabaseBackup.restore(backup: copy, key: key, over: restored, options: options)
        #expect(restore.verification.placeholderCollations.isEmpty)
        #expect(try bytes(copy) == copyBytes)
        let restoredState = try state(of: restored)
        #expect(restoredState.journalMode == "delete")
        #expect(!restoredState.hasAudit)
        #expect(restoredState.integrity == "ok")
    }

    @Test func anAppsBackupGetsTheCollationAndNotTheRest() throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.add(collation: Self.myapp) }
        let queue = try DatabaseQueue(path: path, key: key, configuration: configuration)
        defer { try? queue.close() }
        let copy = directory.path("app-copy.db")
        let report = try queue.backup(to: copy, key: key, options: options)
        #expect(report.verification.placeholderCollations.isEmpty)
        let copied = try state(of: copy)
        #expect(copied.journalMode == "delete")
        #expect(!copied.hasAudit)
    }

    @Test func aRepairBuildsTheAppsOrderAndHoldsOnlyTheFilesRows() throws {
        let before = try bytes(path)
        let repaired = directory.path("repaired.db")
        let report = try DatabaseRepair.salvage(path: path, key: key, to: repaired, options: options)
        #expect(report.isComplete)
        #expect(report.tables.map(\.name) == ["word"])
        #expect(try bytes(path) == before)
        let state = try state(of: repaired)
        #expect(!state.hasAudit)
        #expect(state.integrity == "ok")
    }

    @Test func aRewriteLeavesItsSourceAndWritesOnlyTheSourcesRows() throws {
        let before = try bytes(path)
        let plain = directory.path("plain.db")
        try DatabaseFile.decrypt(path: path, key: key, to: .file(plain), options: options)
        #expect(try bytes(path) == before)
        let state = try state(of: plain, key: .some(nil))
        #expect(!state.hasAudit)
        #expect(state.integrity == "ok")
        let db = try Connection(path: plain, key: nil)
        defer { try? db.close() }
        try db.add(collation: Self.myapp)
        #expect(try String.fetchAll(db, sql: "SELECT text FROM word ORDER BY text LIMIT 1") == ["w0200"])
    }

    @Test func aPreparationThatThrowsStopsTheOperationWithItsErrorAndLeavesNothing() throws {
        struct Refused: Error, Equatable {}
        var failing = DatabaseFileOptions()
        failing.prepareDatabase { _ in throw Refused() }
        let before = try bytes(path)
        #expect(throws: Refused()) { try DatabaseBackup.backup(path: path, key: key, to: directory.path("no-copy.db"), options: failing) }
        #expect(throws: Refused()) { try DatabaseRepair.salvage(path: path, key: key, to: directory.path("no-repair.db"), options: failing) }
        #expect(throws: Refused()) { try DatabaseFile.changeKey(path: path, oldKey: key, newKey: key, options: failing) }
        #expect(try bytes(path) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == ["app.db"])
    }

    @Test func anIndexOnTheAppsFunctionComputedOtherwiseFailsTheCheck() throws {
        let db = try Connection(path: path, key: key)
        try db.add(function: DatabaseFunction("slug", argumentCount: 1, pure: true) { values in
            guard case .text(let text)? = values.first else { return nil }
            return text.lowercased()
        })
        try db.execute(sql: "CREATE INDEX word_slug ON word(slug(text))")
        try db.close()
        var otherSlug = DatabaseFileOptions()
        otherSlug.prepareDatabase { db in
            try db.add(collation: Self.myapp)
            try db.add(function: DatabaseFunction("slug", argumentCount: 1, pure: true) { values in
                guard case .text(let text)? = values.first else { return nil }
                return text.uppercased()
            })
        }
        let copy = directory.path("copy.db")
        let error = try #require(throws: DatabaseFileError.self) {
            try DatabaseBackup.backup(path: path, key: key, to: copy, options: otherSlug)
        }
        // Only a collation is told apart from damage (by the index's key columns); a function
        // in an index's expression is not, and the check fails as for any damage.
        guard case .verificationFailed(let detail) = error else { Issue.record("\(error)"); return }
        #expect(detail.contains("word_slug"), "\(detail)")
        #expect(!FileManager.default.fileExists(atPath: copy))
    }

    @Test func givenGRDBsCollationAgainTheToolUsesItInsteadOfAStandIn() throws {
        let file = directory.path("grdb.db")
        let db = try Connection(path: file, key: key)
        try db.execute(sql: "CREATE TABLE name(text TEXT COLLATE swiftCaseInsensitiveCompare UNIQUE)")
        try db.execute(sql: "INSERT INTO name VALUES ('b'), ('A'), ('c')")
        try db.close()
        let standIn = try DatabaseBackup.backup(path: file, key: key, to: directory.path("stand-in.db"))
        #expect(standIn.verification.placeholderCollations.names == ["swiftCaseInsensitiveCompare"])
        var options = DatabaseFileOptions()
        options.prepareDatabase { db in try db.add(collation: .caseInsensitiveCompare) }
        let checked = try DatabaseBackup.backup(path: file, key: key, to: directory.path("checked.db"), options: options)
        #expect(checked.verification.placeholderCollations.isEmpty)
    }

    @Test func aKeyChangeInPlaceLeavesTheRowsAsTheyWere() throws {
        let newKey = try DatabaseKey.rawKey(hex: String(repeating: "6e", count: 32))
        try DatabaseFile.changeKey(path: path, oldKey: key, newKey: newKey, options: options)
        let state = try state(of: path, key: newKey)
        #expect(state.journalMode == "delete")
        #expect(!state.hasAudit)
        #expect(state.integrity == "ok")
    }

    @Test func aPoolsKeyChangeUsesThePreparationThatReadsTheDatabase() throws {
        let db = try Connection(path: path, key: key)
        try db.execute(sql: "PRAGMA user_version = 1")
        try db.close()
        var configuration = Configuration()
        // The collation depends on the file: version 1 files sort in reverse.
        configuration.prepareDatabase { db in
            let version = try db.fetchScalar(Int.self, sql: "PRAGMA user_version") ?? 0
            try db.add(collation: version >= 1 ? Self.myapp : DatabaseCollation("myapp") { lhs, rhs in lhs.compare(rhs) })
            // An app's temporary trigger on its own table: on the app's connections only.
            try db.execute(sql: "CREATE TEMP TRIGGER IF NOT EXISTS word_log AFTER INSERT ON main.word BEGIN INSERT INTO word(text) VALUES ('logged ' || new.id); END")
        }
        let pool = try DatabasePool(path: path, key: key, configuration: configuration)
        defer { try? pool.close() }
        let newKey = try DatabaseKey.rawKey(hex: String(repeating: "6e", count: 32))
        try pool.changeKey(to: newKey)
        let (integrity, found) = try pool.read { db -> (String?, Int?) in
            (try db.fetchScalar(String.self, sql: "PRAGMA integrity_check"),
             try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM word WHERE text = 'w0150'"))
        }
        #expect(integrity == "ok")
        #expect(found == 1)
        #expect(try pool.read { db in try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM word") } == 200)
    }
}
