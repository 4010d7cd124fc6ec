import CipherStore
import Foundation
import TestSupport
import Testing

@Suite struct FailClosedTests {
    /// Plain SQLite loaded first takes over every sqlite3_* symbol: `PRAGMA key` would then do
    /// nothing and data would be written in plaintext. CipherStore must refuse to open.
    @Test func refusesToRunOnPlainSQLite() throws {
        let plainSQLite = "/usr/lib/x86_64-linux-gnu/libsqlite3.so.0"
        try #require(FileManager.default.fileExists(atPath: plainSQLite), "plain SQLite is installed on this machine kind")
        let workspace = try TemporaryDirectory()
        let source = try Self.makePlainDatabase(in: workspace)
        let keyFile = try workspace.keyFile("key", "k")
        let output = workspace.path("out.db")
        let result = try CLI.run(["encrypt", source, "-o", output, "--key-file", keyFile],
                                 environment: ["LD_PRELOAD": plainSQLite])
        #expect(result.status != 0)
        #expect(result.errorOutput.contains("not SQLCipher"), "\(result.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: output))
        let demo = try CLI.run(["demo", "--directory", workspace.path("demo")], environment: ["LD_PRELOAD": plainSQLite])
        #expect(demo.status != 0)
        #expect(demo.errorOutput.contains("not SQLCipher"))
    }

    @Test func rawKeyFromTheCommandLineTools() throws {
        let workspace = try TemporaryDirectory()
        let source = try Self.makePlainDatabase(in: workspace)
        let hex = String(repeating: "a1", count: 32)
        let encrypted = workspace.path("raw.db")
        let result = try CLI.run(["encrypt", source, "-o", encrypted, "--raw-key", "--key-stdin"], input: hex + "\n")
        #expect(result.status == 0, "\(result.errorOutput)")
        _ = try Connection(path: encrypted, key: .rawKey(hex: hex))
        let bad = try CLI.run(["encrypt", source, "-o", workspace.path("x.db"), "--raw-key", "--key-stdin"], input: "abc\n")
        #expect(bad.status == 64)
        #expect(bad.errorOutput.contains("64 hexadecimal digits"))
    }

    @Test func readOnlyOutputDirectoryIsRefused() throws {
        let workspace = try TemporaryDirectory()
        let source = try Self.makePlainDatabase(in: workspace)
        let keyFile = try workspace.keyFile("key", "k")
        let readOnly = workspace.path("ro")
        try FileManager.default.createDirectory(atPath: readOnly, withIntermediateDirectories: true)
        // Root ignores directory permissions; a read-only mount stops it too.
        let mounted = getuid() == 0 && Shell.succeeds("mount -t tmpfs -o ro,size=64k tmpfs '\(readOnly)'")
        if getuid() != 0 { try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: readOnly) }
        defer { if mounted { _ = Shell.succeeds("umount '\(readOnly)'") } }
        try #require(getuid() != 0 || mounted, "as root, the test needs a read-only tmpfs mount")
        let result = try CLI.run(["encrypt", source, "-o", readOnly + "/out.db", "--key-file", keyFile])
        #expect(result.status == 74, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("not writable"))
    }

    @Test func aFullDiskMidwayLeavesTheOriginalAndNoPartialOutput() throws {
        try #require(getuid() == 0, "mounting a small file system needs root")
        let workspace = try TemporaryDirectory()
        let source = workspace.path("large.db")
        let db = try Connection(path: source, key: nil)
        try db.execute(sql: "CREATE TABLE big(body TEXT)")
        try db.execute(sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) INSERT INTO big SELECT printf('%01000d', i) FROM n")
        try db.close()
        let keyFile = try workspace.keyFile("key", "k")
        let small = workspace.path("small")
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
        try #require(Shell.succeeds("mount -t tmpfs -o size=1m tmpfs '\(small)'"))
        defer { _ = Shell.succeeds("umount '\(small)'") }
        let result = try CLI.run(["encrypt", source, "-o", small + "/out.db", "--key-file", keyFile])
        #expect(result.status == 74, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("full") || result.errorOutput.contains("space"), "\(result.errorOutput)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: small).isEmpty)
        #expect(DatabaseFileInfo.inspect(path: source).kind == .plaintext)
    }

    /// `query --write` on a full file system exits 74 and says to free space, in rollback and
    /// WAL mode (where the WAL index cannot grow either), and changes nothing.
    @Test func aWriteOnAFullDiskExits74AndSaysToFreeSpace() throws {
        try Self.onASmallFileSystem { workspace, small in
            let keyFile = try workspace.keyFile("key", "full disk passphrase")
            for mode in [JournalMode.delete, .wal] {
                let path = small + "/\(mode.rawValue).db"
                let db = try Connection(path: path, key: .passphrase("full disk passphrase"), configuration: Configuration(journalMode: mode))
                try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES ('row');")
                try db.close()
            }
            // Fill what is left.
            _ = Shell.succeeds("dd if=/dev/zero of='\(small)/fill' bs=4k count=1000 2>/dev/null")
            for mode in ["delete", "wal"] {
                let path = small + "/\(mode).db"
                let result = try CLI.run(["query", path, "INSERT INTO t SELECT randomblob(4000) FROM t", "--write", "--key-file", keyFile])
                #expect(result.status == 74, "\(mode): \(result.errorOutput)")
                #expect(result.errorOutput.contains("free space") || result.errorOutput.contains("Free some space"), "\(mode): \(result.errorOutput)")
            }
            try FileManager.default.removeItem(atPath: small + "/fill")
            for mode in ["delete", "wal"] {
                let count = try CLI.run(["query", small + "/\(mode).db", "SELECT count(*) FROM t", "--key-file", keyFile, "--format", "csv"])
                #expect(count.output == "count(*)\n1\n", "\(mode): \(count.output) \(count.errorOutput)")
            }
        }
    }

    /// A slot file that cannot be written on a full disk: exit 74, said as a full disk (not a
    /// raw system error), the slot file as it was and no temporary file left.
    @Test func aSlotFileWriteOnAFullDiskFailsCleanly() throws {
        try Self.onASmallFileSystem { workspace, small in
            let path = small + "/slots.db"
            let db = try Connection(path: path, key: nil)
            try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES ('row');")
            try db.close()
            let first = try workspace.keyFile("first", "first full-disk passphrase")
            let second = try workspace.keyFile("second", "second full-disk passphrase")
            try #require(try CLI.run(["keys", "init", path, "--new-key-file", first, "--slot-kdf-ms", "5", "--quiet"]).status == 0)
            _ = Shell.succeeds("dd if=/dev/zero of='\(small)/fill' bs=4k count=1000 2>/dev/null")
            let slots = fileBytes(path + ".keys")
            let listing = try FileManager.default.contentsOfDirectory(atPath: small).sorted()
            let result = try CLI.run(["keys", "add", path, "--key-file", first, "--new-key-file", second, "--slot-kdf-ms", "5"])
            #expect(result.status == 74, "\(result.errorOutput)")
            #expect(result.errorOutput.contains("The disk (or the user's quota) is full"), "\(result.errorOutput)")
            #expect(!result.errorOutput.contains("NSError") && !result.errorOutput.contains("Domain="), "\(result.errorOutput)")
            #expect(fileBytes(path + ".keys") == slots)
            #expect(try FileManager.default.contentsOfDirectory(atPath: small).sorted() == listing)
        }
    }

    /// Runs `body` with a workspace and a 256 KiB file system mounted in it, unmounted after.
    static func onASmallFileSystem(_ body: (TemporaryDirectory, String) throws -> Void) throws {
        try #require(getuid() == 0, "mounting a small file system needs root")
        let workspace = try TemporaryDirectory()
        let small = workspace.path("small")
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
        try #require(Shell.succeeds("mount -t tmpfs -o size=256k tmpfs '\(small)'"))
        defer { _ = Shell.succeeds("umount '\(small)'") }
        try body(workspace, small)
    }

    @Test func runningOutOfFileDescriptorsFailsCleanly() throws {
        let workspace = try TemporaryDirectory()
        let source = try Self.makePlainDatabase(in: workspace)
        let keyFile = try workspace.keyFile("key", "k")
        let before = fileBytes(source)
        let result = try CLI.run(["encrypt", source, "-o", workspace.path("out.db"), "--key-file", keyFile], wrapper: ["ulimit -n 6"])
        #expect(result.status == 74, "\(result.errorOutput)")
        #expect(result.errorOutput.contains("Too many open files") || result.errorOutput.contains("file descriptors"), "\(result.errorOutput)")
        #expect(fileBytes(source) == before)
        let created = try FileManager.default.contentsOfDirectory(atPath: workspace.url.path).filter { $0.contains("out") || $0.contains("cipherstore-") }
        #expect(created.isEmpty, "left behind: \(created)")
    }

    static func makePlainDatabase(in workspace: TemporaryDirectory) throws -> String {
        let source = workspace.path("plain.db")
        let db = try Connection(path: source, key: nil)
        // Conversions keep the source's page size; this one opens with the default settings.
        try db.execute(sql: "PRAGMA page_size = \(SQLCipherLibrary.defaultPageSize)")
        try db.execute(sql: "CREATE TABLE t(x)")
        try db.close()
        return source
    }
}
