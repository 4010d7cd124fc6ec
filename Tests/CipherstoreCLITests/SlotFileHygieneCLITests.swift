import CipherStore
import Foundation
import TestSupport
import Testing

/// Slot files that are stale, crafted or limited, seen from the command line.
@Suite struct SlotFileHygieneCLITests {
    let workspace: TemporaryDirectory
    let database: String
    let keyFile: String

    init() throws {
        workspace = try TemporaryDirectory()
        database = workspace.path("app.db")
        keyFile = try workspace.keyFile("k.key", "plain passphrase")
        let db = try Connection(path: database, key: nil)
        try db.executeScript("CREATE TABLE t(x); INSERT INTO t VALUES ('row');")
        try db.close()
    }

    /// What an interrupted `keys init` leaves beside a passphrase database: a slot file bound to
    /// a salt the database never got. The right passphrase still opens the database, and the
    /// command says the slot file is stale.
    @Test func aStaleSlotFileBesideAPassphraseDatabaseDoesNotStopTheRightPassphrase() throws {
        try DatabaseFile.encrypt(path: database, key: .passphrase("plain passphrase"), to: .inPlace())
        let other = workspace.path("other.db")
        let otherDB = try Connection(path: other, key: nil)
        try otherDB.executeScript("CREATE TABLE u(y);")
        try otherDB.close()
        try KeySlots.encrypt(path: other, passphrase: Passphrase("plain passphrase"), kdf: .scrypt(log2N: 14, blockSize: 1, parallelism: 1))
        try FileManager.default.copyItem(atPath: other + ".keys", toPath: database + ".keys")

        let verify = try CLI.run(["verify", database, "--key-file", keyFile])
        #expect(verify.status == 0, "\(verify.errorOutput)")
        #expect(verify.errorOutput.contains("stale"), "\(verify.errorOutput)")
        let query = try CLI.run(["query", database, "--key-file", keyFile, "SELECT x FROM t"])
        #expect(query.status == 0 && query.output.contains("row"), "\(query.errorOutput)")
        // rekey --in-place treats it as the passphrase database it is.
        let newKey = try workspace.keyFile("n.key", "new passphrase")
        let rekey = try CLI.run(["rekey", database, "--in-place", "--old-key-file", keyFile, "--new-key-file", newKey])
        #expect(rekey.status == 0, "\(rekey.errorOutput)")
        #expect(try CLI.run(["verify", database, "--key-file", newKey]).status == 0)
        // A wrong passphrase is still wrong: the slot file's mismatch is what is reported.
        let wrong = try CLI.run(["verify", database, "--key-file", keyFile])
        #expect(wrong.status == 66 && wrong.errorOutput.contains("another database"), "\(wrong.errorOutput)")
    }

    /// A label crafted with terminal escapes and a line break is damage, not output.
    @Test func aCraftedLabelNeverReachesTheTerminal() throws {
        try KeySlots.encrypt(path: database, passphrase: Passphrase("plain passphrase"), label: "laptop",
                             kdf: .scrypt(log2N: 14, blockSize: 1, parallelism: 1))
        var bytes = Array(fileBytes(database + ".keys"))
        let label = Array("laptop".utf8)
        let at = try #require((0...(bytes.count - label.count)).first { Array(bytes[$0..<$0 + label.count]) == label })
        bytes.replaceSubrange(at..<at + label.count, with: Array("\u{1B}[2J\nX".utf8))
        // A fresh checksum, as a deliberate change would have.
        let body = Array(bytes.dropLast(32))
        let resealed = body + Array(try #require(sha256(body)))
        try Data(resealed).write(to: URL(fileURLWithPath: database + ".keys"))
        let list = try CLI.run(["keys", "list", database])
        #expect(list.status == 67, "\(list.output) \(list.errorOutput)")
        #expect(!list.output.contains("\u{1B}") && !list.errorOutput.contains("\u{1B}"))
        #expect(list.errorOutput.contains("control characters"), "\(list.errorOutput)")
    }

    /// The SHA-256 of `bytes`, from the system's `sha256sum`.
    func sha256(_ bytes: [UInt8]) -> [UInt8]? {
        let path = workspace.path("body")
        guard (try? Data(bytes).write(to: URL(fileURLWithPath: path))) != nil else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [path]
        let output = Pipe()
        process.standardOutput = output
        guard (try? process.run()) != nil else { return nil }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let hex = Array(text.prefix(64).utf8)
        guard hex.count == 64 else { return nil }
        return stride(from: 0, to: 64, by: 2).compactMap { UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16) }
    }

    /// `keys list` takes no key: a plaintext database is named as one, without speaking of a key.
    @Test func listingAPlaintextDatabaseSpeaksOfNoKey() throws {
        let list = try CLI.run(["keys", "list", database])
        #expect(list.status == 66, "\(list.errorOutput)")
        #expect(list.errorOutput.contains("plaintext") && list.errorOutput.contains("keys init"), "\(list.errorOutput)")
        #expect(!list.errorOutput.contains("a key was given"), "\(list.errorOutput)")
    }
}
