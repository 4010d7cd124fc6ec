import CipherStore
import Foundation
import TestSupport
import Testing

/// kill -9 a process that changes a slot database's passphrase back and forth: whenever it
/// dies, the slot file must open the database with the old or the new passphrase.
@Suite(.serialized) struct KeySlotKillTests {
    static let changer = CLI.executable.deletingLastPathComponent().appendingPathComponent("key-slot-changer")
    static let passphrases = ["passphrase one", "passphrase two"]

    /// Which of the two passphrases open the database through its slot file.
    static func opening(_ path: String) -> [String] {
        passphrases.filter { text in
            guard let passphrase = try? Passphrase(text),
                  let key = try? DatabaseKey.slots(passphrase: passphrase, path: path),
                  let db = try? Connection(path: path, key: key, configuration: Configuration(readOnly: true)) else { return false }
            defer { try? db.close() }
            return (try? db.fetchScalar(Int.self, sql: "SELECT count(*) FROM big")) == 100
        }
    }

    /// A slot database of 100 rows opened by the first passphrase, with a tiny scrypt.
    static func makeSlotDatabase(_ path: String) throws {
        let source = try Connection(path: path, key: nil)
        try source.execute(sql: "PRAGMA page_size = \(SQLCipherLibrary.defaultPageSize)")
        try source.execute(sql: "CREATE TABLE big(id INTEGER PRIMARY KEY)")
        try source.execute(sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100) INSERT INTO big SELECT i FROM n")
        try source.close()
        try KeySlots.encrypt(path: path, passphrase: Passphrase(passphrases[0]), kdf: .scrypt(log2N: 14, blockSize: 1, parallelism: 1))
    }

    /// Runs the changer in `mode` with `first` and `second` as its passphrases, kills it with
    /// SIGKILL after `seconds`, and returns how many steps it reported.
    static func runAndKill(_ path: String, mode: String, first: String, second: String, after seconds: Double) throws -> Int {
        let process = Process()
        process.executableURL = changer
        process.arguments = [path, mode]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data("\(first)\n\(second)\n".utf8))
        try input.fileHandleForWriting.close()
        Thread.sleep(forTimeInterval: seconds)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n").count
    }

    @Test func killedPassphraseChangeLeavesASlotFileThatOpensWithTheOldOrTheNewPassphrase() throws {
        let workspace = try TemporaryDirectory()
        let path = workspace.path("slots.db")
        try Self.makeSlotDatabase(path)
        var totalChanges = 0
        var outcomes: [String: Int] = [:]
        for round in 0..<12 {
            guard let current = Self.opening(path).first else {
                Issue.record("round \(round): the database opens with neither passphrase")
                return
            }
            let other = Self.passphrases.first { $0 != current }!
            totalChanges += try Self.runAndKill(path, mode: "change", first: current, second: other, after: 0.25 + Double(round) * 0.04)
            let opens = Self.opening(path)
            #expect(!opens.isEmpty, "round \(round): opens with neither passphrase")
            let outcome = opens.count == 2 ? "both (new slot added, old not yet removed)" : "one"
            outcomes[outcome, default: 0] += 1
        }
        // The kills interrupted a process that was really changing passphrases.
        // Slots use the floor of key derivation for new slots (scrypt 2^14): tens of milliseconds a change.
        #expect(totalChanges > 8, "only \(totalChanges) changes completed before the kills")
        print("key-slot kill outcomes: \(outcomes), \(totalChanges) changes completed")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: workspace.url.path).filter { $0.contains(".cipherstore-") }
        // Temporary files of killed runs are removed by the next change.
        // A clean change afterwards leaves the old passphrase opening nothing, even when a kill
        // left a slot for each.
        let current = try #require(Self.opening(path).first)
        let other = Self.passphrases.first { $0 != current }!
        try KeySlots.changePassphrase(path: path, from: Passphrase(current), to: Passphrase(other))
        #expect(Self.opening(path) == [other])
        let remaining = try FileManager.default.contentsOfDirectory(atPath: workspace.url.path).filter { $0.contains(".cipherstore-") }
        #expect(remaining.isEmpty, "left behind: \(remaining) (before clean-up: \(leftovers))")
    }

    @Test func killedAddAndRemoveLeaveASlotFileThatOpensWithTheFirstPassphrase() throws {
        let workspace = try TemporaryDirectory()
        let path = workspace.path("adding.db")
        try Self.makeSlotDatabase(path)
        var steps = 0
        var slotCounts: [Int] = []
        for round in 0..<12 {
            steps += try Self.runAndKill(path, mode: "add-remove", first: Self.passphrases[0], second: Self.passphrases[1],
                                         after: 0.3 + Double(round) * 0.05)
            // The first passphrase opens whatever moment the kill hit; the second at most as added.
            #expect(Self.opening(path).first == Self.passphrases[0], "round \(round): the first passphrase no longer opens")
            slotCounts.append(try KeySlots.list(path: path).count)
        }
        #expect(steps > 12, "only \(steps) adds and removals completed before the kills")
        print("add/remove kill: \(steps) steps completed, slots after each kill: \(slotCounts)")
    }

    @Test func killedDataKeyRotationLeavesADatabaseAndSlotFileThatStillMatch() throws {
        let workspace = try TemporaryDirectory()
        let path = workspace.path("rotating.db")
        let source = try Connection(path: path, key: nil)
        try source.execute(sql: "PRAGMA page_size = \(SQLCipherLibrary.defaultPageSize)")
        try source.execute(sql: "CREATE TABLE big(id INTEGER PRIMARY KEY, body TEXT)")
        // About 1 MB: each rotation rewrites it, so kills land before, during and after the rename.
        try source.execute(sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100) INSERT INTO big SELECT i, printf('%010000d', i) FROM n")
        try source.close()
        try KeySlots.encrypt(path: path, passphrase: Passphrase(Self.passphrases[0]), kdf: .scrypt(log2N: 14, blockSize: 1, parallelism: 1))
        let firstRawKey = try KeySlots.exportRawKey(path: path, passphrase: Passphrase(Self.passphrases[0]))
        var rotations = 0
        var slotsAfterKill: [Int] = []
        for round in 0..<10 {
            rotations += try Self.runAndKill(path, mode: "rotate", first: Self.passphrases[0], second: Self.passphrases[1],
                                             after: 0.4 + Double(round) * 0.06)
            #expect(Self.opening(path) == [Self.passphrases[0]], "round \(round): the database and its slot file no longer match")
            slotsAfterKill.append(try KeySlots.list(path: path).count)
        }
        #expect(rotations > 5, "only \(rotations) rotations completed before the kills")
        print("data-key rotation kill: \(rotations) rotations completed, slots after each kill: \(slotsAfterKill)")
        // The data key changed: the first one no longer opens the database.
        #expect(throws: CipherStoreError.wrongKey(path: path)) { try Connection(path: path, key: .rawKey(hex: firstRawKey)) }
    }
}
