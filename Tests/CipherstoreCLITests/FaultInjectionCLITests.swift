import CipherStore
import Foundation
import TestSupport
import Testing

/// Every writing command, with each of its file calls in turn failing with EIO or killing the
/// process (see ``FaultInjection``): the database must open with every row under the keys the
/// command promises — the old ones unless it succeeded, the new ones once it did — and the
/// message must say which state it left. An I/O error after the swap (the directory sync)
/// leaves the new state, reported with exit 75; any other failure leaves the old state.
@Suite(.serialized) struct FaultInjectionCLITests {
    static let first = "first passphrase"
    static let second = "second passphrase"
    static let rawKey = String(repeating: "3c", count: 32)
    static let newRawKey = String(repeating: "a7", count: 32)
    static let rows = 300
    /// New slots as the library makes them in tests: the floor for new slots, about a millisecond.
    static let fastKDF = KeySlotKDF.scrypt(log2N: 14, blockSize: 1, parallelism: 1)

    /// One command, the files it starts from, and the keys that open its database before and after.
    struct Scenario: CustomTestStringConvertible, Sendable {
        let name: String
        let arguments: @Sendable (_ directory: String) -> [String]
        let setUp: @Sendable (_ directory: String) throws -> Void
        let before: [ExpectedDatabase.Opener]
        let after: [ExpectedDatabase.Opener]
        /// What the user does after a crash that left neither state opening, when the command
        /// documents such a step (nothing is lost, one file is to be put back).
        var recoverAfterCrash: (@Sendable (_ directory: String) -> Void)? = nil
        var testDescription: String { name }

        /// Whether the database opens in the old or the new state, after the documented
        /// recovery step when it needs one.
        func opensBeforeOrAfter(_ database: ExpectedDatabase, in directory: String) -> Bool {
            if database.opens(with: before) || database.opens(with: after) { return true }
            guard let recoverAfterCrash else { return false }
            recoverAfterCrash(directory)
            return database.opens(with: before) || database.opens(with: after)
        }
    }

    /// A backup (or repair) over a slot database cut off between its slot file and its
    /// database leaves the old slot file as `app.db.keys.previous-PID-N`: put back, it opens
    /// the old database again (as `OutputDestination.publish(…writingSlotFile:…)` documents).
    static func putBackPreviousSlotFile(_ directory: String) {
        guard let name = try? FileManager.default.contentsOfDirectory(atPath: directory).first(where: { $0.hasPrefix("app.db.keys.previous-") }) else { return }
        _ = rename(directory + "/" + name, database(directory) + ".keys")
    }

    static func database(_ directory: String) -> String { directory + "/app.db" }

    /// The plaintext database and the key files every scenario starts from.
    static func plaintext(_ directory: String) throws {
        _ = try ExpectedDatabase.makePlaintext(at: database(directory), rows: rows)
        for (name, text) in [("k1", first), ("k2", second), ("raw1", rawKey), ("raw2", newRawKey)] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: directory + "/" + name))
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: directory + "/" + name)
        }
    }

    /// A slot database opened by `first` (and `second` with `twoSlots`).
    static func slotDatabase(_ directory: String, twoSlots: Bool) throws {
        try plaintext(directory)
        try KeySlots.encrypt(path: database(directory), passphrase: Passphrase(first), kdf: fastKDF)
        if twoSlots {
            try KeySlots.addPassphrase(path: database(directory), existing: Passphrase(first), new: Passphrase(second), kdf: fastKDF)
        }
    }

    static let fast = ["--slot-kdf-ms", "10"]

    /// The slot database opened by `first`, and beside it `source.db`, another with the same
    /// rows, opened by `second`: a backup or repair of it over the first replaces both the
    /// database and its slot file.
    static func slotDatabaseAndAnotherAsSource(_ directory: String) throws {
        try slotDatabase(directory, twoSlots: false)
        let source = directory + "/source.db"
        _ = try ExpectedDatabase.makePlaintext(at: source, rows: rows)
        try KeySlots.encrypt(path: source, passphrase: Passphrase(second), kdf: fastKDF)
    }

    static let scenarios: [Scenario] = commonScenarios + (SQLCipherLibrary.sqlcipherMajorVersion >= 4 ? [upgrade] : [])

    /// SQLCipher 4 only: a SQLCipher 3 file rewritten in SQLCipher 4's format.
    static let upgrade = Scenario(
        name: "upgrade --in-place", arguments: { ["upgrade", database($0), "--in-place", "--raw-key", "--key-file", $0 + "/raw1"] },
        setUp: {
            try plaintext($0)
            try DatabaseFile.encrypt(path: database($0), key: .rawKey(hex: Array(rawKey.utf8)), cipher: .sqlcipher3, to: .inPlace())
        },
        before: [.rawKeySQLCipher3(rawKey)], after: [.rawKey(rawKey)])

    static let commonScenarios: [Scenario] = [
        Scenario(name: "keys init", arguments: { ["keys", "init", database($0), "--new-key-file", $0 + "/k1"] + fast },
                 setUp: plaintext, before: [.plaintext], after: [.slots(first)]),
        Scenario(name: "encrypt --key-slots", arguments: { ["encrypt", database($0), "--in-place", "--key-slots", "--key-file", $0 + "/k1"] + fast },
                 setUp: plaintext, before: [.plaintext], after: [.slots(first)]),
        Scenario(name: "keys change", arguments: { ["keys", "change", database($0), "--key-file", $0 + "/k1", "--new-key-file", $0 + "/k2"] },
                 setUp: { try slotDatabase($0, twoSlots: false) }, before: [.slots(first)], after: [.slots(second)]),
        Scenario(name: "keys add", arguments: { ["keys", "add", database($0), "--key-file", $0 + "/k1", "--new-key-file", $0 + "/k2"] + fast },
                 setUp: { try slotDatabase($0, twoSlots: false) }, before: [.slots(first)], after: [.slots(first), .slots(second)]),
        Scenario(name: "keys remove", arguments: { ["keys", "remove", database($0), "--slot", "2", "--key-file", $0 + "/k1"] },
                 setUp: { try slotDatabase($0, twoSlots: true) }, before: [.slots(first), .slots(second)], after: [.slots(first)]),
        Scenario(name: "keys recovery", arguments: { ["keys", "recovery", database($0), "--key-file", $0 + "/k1"] },
                 setUp: { try slotDatabase($0, twoSlots: false) }, before: [.slots(first)], after: [.slots(first)]),
        Scenario(name: "keys rotate", arguments: { ["keys", "rotate", database($0), "--key-file", $0 + "/k1", "--keep-key-file", $0 + "/k2"] },
                 setUp: { try slotDatabase($0, twoSlots: true) }, before: [.slots(first), .slots(second)], after: [.slots(first), .slots(second)]),
        Scenario(name: "encrypt --in-place", arguments: { ["encrypt", database($0), "--in-place", "--raw-key", "--key-file", $0 + "/raw1"] },
                 setUp: plaintext, before: [.plaintext], after: [.rawKey(rawKey)]),
        Scenario(name: "rekey --in-place",
                 arguments: { ["rekey", database($0), "--in-place", "--old-raw-key", "--old-key-file", $0 + "/raw1", "--new-raw-key", "--new-key-file", $0 + "/raw2"] },
                 setUp: {
                     try plaintext($0)
                     try DatabaseFile.encrypt(path: database($0), key: .rawKey(hex: Array(rawKey.utf8)), to: .inPlace())
                 },
                 before: [.rawKey(rawKey)], after: [.rawKey(newRawKey)]),
        Scenario(name: "restore",
                 arguments: { ["restore", $0 + "/backup.db", "--to", database($0), "--raw-key", "--key-file", $0 + "/raw2",
                               "--old-raw-key", "--old-key-file", $0 + "/raw1"] },
                 setUp: {
                     try plaintext($0)
                     let key = try DatabaseKey.rawKey(hex: Array(rawKey.utf8))
                     try DatabaseFile.encrypt(path: database($0), key: key, to: .inPlace())
                     try DatabaseBackup.backup(path: database($0), key: key, to: $0 + "/backup.db", newKey: .rawKey(hex: Array(newRawKey.utf8)))
                 },
                 before: [.rawKey(rawKey)], after: [.rawKey(newRawKey)]),
        Scenario(name: "backup --force over a slot database",
                 arguments: { ["backup", $0 + "/source.db", "-o", database($0), "--force", "--key-file", $0 + "/k2"] },
                 setUp: slotDatabaseAndAnotherAsSource, before: [.slots(first)], after: [.slots(second)],
                 recoverAfterCrash: putBackPreviousSlotFile),
        // `repair --force` publishes its database and slot file through the same
        // OutputDestination.publish as backup.
        Scenario(name: "decrypt --in-place", arguments: { ["decrypt", database($0), "--in-place", "--raw-key", "--key-file", $0 + "/raw1"] },
                 setUp: {
                     try plaintext($0)
                     try DatabaseFile.encrypt(path: database($0), key: .rawKey(hex: Array(rawKey.utf8)), to: .inPlace())
                 },
                 before: [.rawKey(rawKey)], after: [.plaintext]),
    ]

    @Test(arguments: scenarios)
    func everyFileCallThatFailsOrCrashesLeavesTheOldOrTheNewDatabase(_ scenario: Scenario) throws {
        try #require(FaultInjection.library != nil, "no C compiler to build the fault-injection library")
        let workspace = try TemporaryDirectory()
        let template = workspace.path("template")
        try FileManager.default.createDirectory(atPath: template, withIntermediateDirectories: true)
        try scenario.setUp(template)
        let run = workspace.path("run")
        func fresh() throws -> ExpectedDatabase {
            try? FileManager.default.removeItem(atPath: run)
            try FileManager.default.copyItem(atPath: template, toPath: run)
            return ExpectedDatabase(path: Self.database(run), rows: Self.rows)
        }

        let original = fileBytes(Self.database(template))
        _ = try fresh()
        let calls = try FaultInjection.callCount(scenario.arguments(run), directory: run)
        try #require(calls > 3, "the command made \(calls) counted file calls")
        var replacedButNotDurable = 0
        var outcomes: [String: Int] = [:]
        for mode in FaultInjection.Mode.allCases {
            for call in 1...calls {
                let database = try fresh()
                let result = try FaultInjection.run(scenario.arguments(run), directory: run, at: call, mode: mode)
                let context = "\(scenario.name), \(mode) at file call \(call) of \(calls): exit \(result.status); \(result.errorOutput)"
                // Exit 75: the change was made, not confirmed on disk — or, for a rotation, made
                // with the old slots left in the slot file.
                let notDurable = result.errorOutput.contains("not confirmed on disk") || result.errorOutput.contains("The data key was rotated")
                outcomes["\(mode) → \(result.status == 0 ? "new" : mode == .crash ? "killed" : notDurable ? "75 new" : "old")", default: 0] += 1
                switch (mode, result.status) {
                case (_, 0):
                    #expect(database.opens(with: scenario.after), "\(context)")
                case (.eio, 75):
                    replacedButNotDurable += 1
                    #expect(notDurable, "\(context)")
                    #expect(database.opens(with: scenario.after), "after 75 the new state must be in place: \(context)")
                case (.eio, _):
                    #expect([64, 65, 66, 67, 74].contains(result.status), "\(context)")
                    #expect(!notDurable, "\(context)")
                    #expect(database.opens(with: scenario.before), "a failure that is not 75 must leave the old state: \(context)")
                    #expect(fileBytes(database.path) == original, "a failure that is not 75 must leave the database as it was: \(context)")
                case (.crash, _):
                    #expect(result.status == SIGKILL, "\(context)")
                    #expect(scenario.opensBeforeOrAfter(database, in: run), "\(context)")
                }
            }
        }
        // The tally behind SECURITY.md's fault-injection row.
        print("fault injection: \(scenario.name): \(calls) file calls; " + outcomes.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
        // The directory sync after the database's or the slot file's swap is among the calls.
        #expect(replacedButNotDurable > 0, "\(scenario.name): no EIO left the change made but not confirmed")
    }
}
