@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// File names SQLite would read as something else (`:memory:`, `file:` URIs, `""`) are files.
@Suite struct DatabaseLocationTests {
    @Test(arguments: [(":memory:", "./:memory:"), ("file:x.db", "./file:x.db"), ("app.db", "./app.db"),
                      ("dir/app.db", "./dir/app.db"), ("./app.db", "././app.db"), ("/tmp/:memory:", "/tmp/:memory:")])
    func filePathsAreSpelledAsFiles(_ path: String, _ expected: String) throws {
        #expect(try DatabaseLocation.file(path).sqlitePath() == expected)
    }

    @Test func inMemoryAndTemporaryKeepTheirNames() throws {
        #expect(try DatabaseLocation.inMemory.sqlitePath() == ":memory:")
        #expect(try DatabaseLocation.temporary.sqlitePath() == "")
    }

    @Test func anEmptyPathIsRefused() {
        #expect(throws: CipherStoreError.self) { try DatabaseLocation.file("").sqlitePath() }
        #expect(throws: CipherStoreError.self) { try Connection(path: "", key: .passphrase("k")) }
        #expect(throws: CipherStoreError.self) { try DatabaseQueue(path: "", key: nil) }
    }

    /// `name` inside `directory`, as a path relative to the current directory (tests run in
    /// parallel, so none of them may change it).
    static func relativePath(_ name: String, in directory: TemporaryDirectory) -> String {
        let depth = FileManager.default.currentDirectoryPath.split(separator: "/").count
        return String(repeating: "../", count: depth) + directory.path(name).dropFirst()
    }

    @Test(arguments: [":memory:", "file:x.db"])
    func aRelativeFileWithASpecialNameKeepsItsDataAndRefusesAWrongKey(_ name: String) throws {
        let directory = try TemporaryDirectory()
        let path = Self.relativePath(name, in: directory)
        #expect(!path.hasPrefix("/"))
        let db = try Connection(path: path, key: .passphrase("right"))
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.execute(sql: "INSERT INTO t VALUES ('kept')")
        try db.close()

        #expect(DatabaseFileInfo.inspect(path: directory.path(name)).kind == .encrypted)
        let reopened = try Connection(path: path, key: .passphrase("right"))
        #expect(try reopened.fetchScalar(String.self, sql: "SELECT x FROM t") == "kept")
        #expect(throws: CipherStoreError.wrongKey(path: path)) { try Connection(path: path, key: .passphrase("wrong")) }
    }
}
