@testable import CipherStore
import Foundation
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
