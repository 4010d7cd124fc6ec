@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// A damaged, foreign, future or hostile slot file gets its own error, runs no derivation
/// where that is avoidable, and is left as it was.
extension KeySlotSuites { @Suite struct KeySlotFileTests {
    /// Offsets in a file with one slot: a 36-byte header, then the slot's fields.
    static let versionOffset = 16, log2NOffset = 36 + 6, labelOffset = 36 + 76

    /// Writes `bytes` as the slot file, checks that opening throws `expected` after
    /// `derivations` key derivations, and that the file was not changed.
    func expectOpening(_ fixture: KeySlotFixture, with bytes: [UInt8], throws expected: any Error & Equatable,
                       derivations: Int = 0, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try fixture.writeSlotFile(bytes)
        let count = KeySlotFixture.derivations {
            do {
                _ = try DatabaseKey.slots(passphrase: Passphrase("first passphrase"), path: fixture.path)
                Issue.record("opened", sourceLocation: sourceLocation)
            } catch {
                #expect("\(error)" == "\(expected)", sourceLocation: sourceLocation)
                #expect(!"\(error)".contains("first passphrase"), sourceLocation: sourceLocation)
            }
        }
        #expect(count == derivations, sourceLocation: sourceLocation)
        #expect(fixture.slotFileBytes == bytes, sourceLocation: sourceLocation)
    }

    @Test func missingSlotFileNamesWhereItWasExpected() throws {
        let fixture = try KeySlotFixture()
        try FileManager.default.removeItem(atPath: fixture.slotPath)
        #expect(throws: KeySlotError.slotFileMissing(expectedAt: fixture.slotPath, database: fixture.path)) {
            try DatabaseKey.slots(passphrase: Passphrase("first passphrase"), path: fixture.path)
        }
        #expect("\(KeySlotError.slotFileMissing(expectedAt: fixture.slotPath, database: fixture.path))".contains(fixture.slotPath))
    }

    @Test func truncatedAppendedAndBitFlippedFilesAreDamaged() throws {
        let fixture = try KeySlotFixture()
        let good = fixture.slotFileBytes
        let damaged = KeySlotError.damaged(path: fixture.slotPath, detail: "its checksum does not match: bytes were changed, cut or appended")
        for cut in [1, 40, good.count / 2] {
            try expectOpening(fixture, with: Array(good.dropLast(cut)), throws: damaged)
        }
        try expectOpening(fixture, with: good + [0], throws: damaged)
        for position in [20, Self.log2NOffset, Self.labelOffset, good.count - 50, good.count - 1] {
            var flipped = good
            flipped[position] ^= 0x04
            try expectOpening(fixture, with: flipped, throws: damaged)
        }
        try expectOpening(fixture, with: Array(good.prefix(20)),
                          throws: KeySlotError.damaged(path: fixture.slotPath, detail: "it is cut short (20 bytes)"))
        try fixture.writeSlotFile(good)
        #expect(try fixture.authors(opening: "first passphrase").count == 2)
    }

    @Test func otherFilesAndVersionsAreNamed() throws {
        let fixture = try KeySlotFixture()
        let good = fixture.slotFileBytes
        try expectOpening(fixture, with: Array("not a slot file at all, just text".utf8), throws: KeySlotError.notASlotFile(path: fixture.slotPath))
        var future = good
        future[Self.versionOffset + 1] = 2
        try expectOpening(fixture, with: KeySlotFixture.resealed(future), throws: KeySlotError.unsupportedVersion(path: fixture.slotPath, version: 2))
        // The slot file of another database (another data key and salt).
        let other = try KeySlotFixture()
        try expectOpening(fixture, with: other.slotFileBytes,
                          throws: KeySlotError.belongsToAnotherDatabase(slotFile: fixture.slotPath, database: fixture.path))
    }

    @Test func absurdKDFParametersAreRefusedBeforeAnyDerivation() throws {
        let fixture = try KeySlotFixture()
        var hostile = fixture.slotFileBytes
        hostile[Self.log2NOffset + 3] = 30  // N = 2^30 with r = 1: 128 GiB
        try expectOpening(fixture, with: KeySlotFixture.resealed(hostile),
                          throws: KeySlotError.kdfParametersOutOfRange(path: fixture.slotPath, slot: 1, detail: "scrypt N = 2^30, r = 1, p = 1 needs more than 1 GiB of memory"))
    }

    @Test func listingNamesASlotFileOfAnotherDatabaseOrOfAPlaintextOne() throws {
        let fixture = try KeySlotFixture()
        let other = try KeySlotFixture()
        try fixture.writeSlotFile(other.slotFileBytes)
        #expect(throws: KeySlotError.belongsToAnotherDatabase(slotFile: fixture.slotPath, database: fixture.path)) {
            try KeySlots.list(path: fixture.path)
        }
        // A database decrypted in place, its slot file left beside it.
        let plaintext = try Connection(path: other.directory.path("plain.db"), key: nil)
        try plaintext.execute(sql: "CREATE TABLE t(x)")
        try plaintext.close()
        try FileManager.default.copyItem(atPath: other.slotPath, toPath: other.directory.path("plain.db.keys"))
        #expect(throws: CipherStoreError.notEncrypted(path: other.directory.path("plain.db"))) {
            try KeySlots.list(path: other.directory.path("plain.db"))
        }
    }

    @Test func aWrongKeyErrorSaysWhatTheSlotFileBesideItMeans() throws {
        let fixture = try KeySlotFixture()
        let beside = "\(CipherStoreError.wrongKey(path: fixture.path))"
        #expect(beside.contains("no slot of its slot file '\(fixture.slotPath)' opens with this passphrase"), "\(beside)")
        // The message says what the disk holds when it is printed: without the slot file, no
        // word of slots.
        try FileManager.default.removeItem(atPath: fixture.slotPath)
        let alone = "\(CipherStoreError.wrongKey(path: fixture.path))"
        #expect(!alone.contains("slot"), "\(alone)")
        #expect(alone.contains("the key is wrong"), "\(alone)")
    }

    @Test func aSlotDatabaseWithAPlaintextHeaderIsRefusedBeforeAnythingIsWritten() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        let plaintext = try Connection(path: path, key: nil)
        try plaintext.execute(sql: "CREATE TABLE t(x)")
        try plaintext.close()
        let before = fileBytes(path)
        #expect(throws: CipherStoreError.self) {
            try KeySlots.encrypt(path: path, passphrase: Passphrase("header"), kdf: KeySlotFixture.fastKDF,
                                 cipher: CipherSettings(plaintextHeaderSize: 32))
        }
        #expect(fileBytes(path) == before)
        #expect(!FileManager.default.fileExists(atPath: KeySlots.slotFilePath(forDatabase: path)))
    }

    @Test func scryptParametersTheCryptoLibraryWouldRefuseAreRefusedFirst() throws {
        let fixture = try KeySlotFixture()
        var hostile = fixture.slotFileBytes
        hostile[Self.log2NOffset + 3] = 17  // N = 2^17 with r = 1: scrypt wants N < 2^16
        try expectOpening(fixture, with: KeySlotFixture.resealed(hostile),
                          throws: KeySlotError.kdfParametersOutOfRange(path: fixture.slotPath, slot: 1,
                                                                       detail: "scrypt N = 2^17 needs r of at least 2 (N must be below 2^(16·r))"))
    }

    @Test func slotsThatTogetherAskForTooMuchWorkAreRefusedBeforeAnyDerivation() throws {
        let fixture = try KeySlotFixture()
        for passphrase in ["second passphrase", "third passphrase"] {
            try KeySlots.addPassphrase(path: fixture.path, existing: Passphrase("first passphrase"), new: Passphrase(passphrase),
                                       kdf: KeySlotFixture.fastKDF)
        }
        // Three slots, each PBKDF2 at its cap of 50,000,000 iterations: each allowed alone.
        var hostile = fixture.slotFileBytes
        var start = 36
        for _ in 0..<3 {
            // id, kind, KDF, 3 parameters, KDF salt, database salt, date: then the label's length.
            let labelLength = Int(hostile[start + 74]) << 8 | Int(hostile[start + 75])
            defer { start += 136 + labelLength }
            hostile[start + 5] = 2  // PBKDF2-HMAC-SHA256
            let parameters = [UInt8](repeating: 0, count: 12)
            hostile.replaceSubrange((start + 6)..<(start + 18), with: parameters)
            let iterations = UInt32(50_000_000)
            for byte in 0..<4 { hostile[start + 6 + byte] = UInt8(truncatingIfNeeded: iterations >> (24 - 8 * byte)) }
        }
        #expect(start == hostile.count - 32)
        try expectOpening(fixture, with: KeySlotFixture.resealed(hostile),
                          throws: KeySlotError.kdfParametersOutOfRange(
                            path: fixture.slotPath, slot: 3,
                            detail: "its slots together ask for 3.0 times the key-derivation work one slot may ask for (at most 2)"))
    }

    @Test func deliberateChangesWithAFreshChecksumFailAuthentication() throws {
        let fixture = try KeySlotFixture()
        var relabelled = fixture.slotFileBytes
        relabelled[Self.labelOffset] ^= 0x01  // "passphrase" → "qassphrase", checksum recomputed
        try expectOpening(fixture, with: KeySlotFixture.resealed(relabelled), throws: CipherStoreError.wrongKey(path: fixture.path), derivations: 1)
        var otherFileID = fixture.slotFileBytes
        otherFileID[20] ^= 0x80
        try expectOpening(fixture, with: KeySlotFixture.resealed(otherFileID), throws: CipherStoreError.wrongKey(path: fixture.path), derivations: 1)
    }
} }
