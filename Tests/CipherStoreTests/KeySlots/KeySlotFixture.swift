@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// Every key-slot suite, one test at a time (each test counts its own key derivations, see
/// ``KeySlotFixture/derivations(_:)``; one at a time keeps their timings apart).
@Suite(.serialized) enum KeySlotSuites {}

/// A slot database in a temporary directory, made with a tiny scrypt so tests stay fast.
struct KeySlotFixture {
    /// N = 2^14, r = 1 (the floor for new slots): a few milliseconds. Real slots are calibrated to about 0.25 s.
    static let fastKDF = KeySlotKDF.scrypt(log2N: 14, blockSize: 1, parallelism: 1)

    let directory: TemporaryDirectory
    let path: String
    var slotPath: String { KeySlots.slotFilePath(forDatabase: path) }

    /// A plaintext database with the sample schema, made a slot database with `passphrase`.
    init(passphrase: String = "first passphrase") throws {
        directory = try TemporaryDirectory()
        path = directory.path("app.db")
        try SampleDatabases.makeRichPlaintext(at: path)
        try KeySlots.encrypt(path: path, passphrase: Passphrase(passphrase), kdf: Self.fastKDF)
    }

    /// The authors' names, read through a queue opened with `passphrase` via the slot file.
    func authors(opening passphrase: String) throws -> [String] {
        let key = try DatabaseKey.slots(passphrase: Passphrase(passphrase), path: path)
        let queue = try DatabaseQueue(path: path, key: key)
        defer { try? queue.close() }
        return try queue.inDatabase { db in
            try db.fetchAll(sql: "SELECT name FROM author ORDER BY id").map { try $0.value(String.self, at: 0) }
        }
    }

    var slotFileBytes: [UInt8] { Array(fileBytes(slotPath)) }

    func writeSlotFile(_ bytes: [UInt8]) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: slotPath))
    }

    /// `bytes` with its trailing SHA-256 recomputed, as a deliberate (not accidental) change would.
    static func resealed(_ bytes: [UInt8]) -> [UInt8] {
        var body = Array(bytes.dropLast(32))
        body += KeySlotFile.checksum(body)
        return body
    }

    /// Adds a second slot for `passphrase`, as a change interrupted after its first write
    /// leaves (``KeySlots/addPassphrase(path:existing:new:label:kdf:)`` refuses to).
    func addDuplicateSlot(for passphrase: String) throws {
        try KeySlots.modify(path) { state in
            let opened = try state.unlock(Passphrase(passphrase))
            let key = try Passphrase(passphrase).bytes.withUnsafeBytes { try SlotSealer.newKey(secret: $0, derivation: opened.slot.derivation) }
            var file = state.file
            file.slots.append(try SlotSealer.seal(opened.dataKey, into: file, id: file.nextSlotID, kind: .passphrase, key: key,
                                                  databaseSalt: state.databaseSalt, label: opened.slot.label))
            try state.replaceSlotFile(with: file, change: .init(nowOnDisk: "a duplicate slot", previousState: "no duplicate"))
        }
    }

    /// How many scrypt/PBKDF2 derivations `body` ran.
    static func derivations(_ body: () throws -> Void) rethrows -> Int {
        let counter = KeyDerivation.Counter()
        try KeyDerivation.$derivationCounter.withValue(counter) { try body() }
        return counter.value.load(ordering: .relaxed)
    }
}
