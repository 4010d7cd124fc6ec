@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// The limits of a slot file (32 slots, the key-derivation work of all slots together), slot
/// numbers, labels and the KDF floor: every write is checked by the reader's own rules before
/// it takes the name, so no command writes a file it then refuses.
extension KeySlotSuites { @Suite struct KeySlotLimitTests {
    let first = "first passphrase"

    /// Adds a slot as a crafted or older file would have it: sealed, then given `id`, `label` or
    /// `derivation` (which its AES-GCM then no longer authenticates: it opens nothing), written
    /// straight to disk without the write checks. A recovery-key slot, so that passphrases
    /// never run its derivation.
    func addCraftedSlot(_ fixture: KeySlotFixture, id: Int? = nil, label: String = "crafted",
                        derivation: KeyDerivation? = nil) throws {
        try KeySlots.modify(fixture.path) { state in
            let opened = try state.unlock(Passphrase(first))
            var file = state.file
            let key = try Array("crafted".utf8).withUnsafeBytes {
                try SlotSealer.newKey(secret: $0, derivation: KeyDerivation(algorithm: .hkdfSHA256, parameters: (0, 0, 0)))
            }
            var slot = try SlotSealer.seal(opened.dataKey, into: file, id: file.nextSlotID, kind: .recoveryKey, key: key,
                                           databaseSalt: state.databaseSalt, label: "crafted")
            slot.id = id ?? slot.id
            slot.label = label
            slot.derivation = derivation ?? slot.derivation
            file.slots.append(slot)
            try fixture.writeSlotFile(file.serialized())
        }
    }

    /// A fixture whose slot file is full: the first passphrase and 31 recovery keys.
    func fullFixture() throws -> KeySlotFixture {
        let fixture = try KeySlotFixture()
        for _ in 1..<KeySlotFile.maximumSlots { _ = try KeySlots.addRecoveryKey(path: fixture.path, existing: Passphrase(first)) }
        #expect(try KeySlots.list(path: fixture.path).count == KeySlotFile.maximumSlots)
        return fixture
    }

    @Test func aRotationWhoseNewSlotsWouldNotFitIsRefusedAndChangesNothing() throws {
        let fixture = try fullFixture()
        let slotFile = fixture.slotFileBytes
        let database = fileBytes(fixture.path)
        // 32 slots now and one more for the new data key during the rewrite: 33, more than a file holds.
        #expect(throws: KeySlotError.noRoomForRotation(path: fixture.slotPath, slots: 32, kept: 1, maximum: 32)) {
            try KeySlots.rotateDataKey(path: fixture.path, keeping: [Passphrase(first)])
        }
        #expect(fixture.slotFileBytes == slotFile && fileBytes(fixture.path) == database)
        #expect(try fixture.authors(opening: first).count == 2)
    }

    @Test func aChangeOnAFullSlotFileWorks() throws {
        let fixture = try fullFixture()
        try KeySlots.changePassphrase(path: fixture.path, from: Passphrase(first), to: Passphrase("second passphrase"))
        #expect(try KeySlots.list(path: fixture.path).count == KeySlotFile.maximumSlots)
        #expect(try fixture.authors(opening: "second passphrase").count == 2)
        #expect(throws: CipherStoreError.wrongKey(path: fixture.path)) { try fixture.authors(opening: first) }
    }

    @Test func theKeyDerivationCapIsCheckedBeforeWritingAndAChangeStaysWithinIt() throws {
        let fixture = try KeySlotFixture()
        // Two slots at 0.999 of the per-slot cap each: with the first slot, just under the
        // file's cap of 2.0.
        let heavy = KeyDerivation(algorithm: .pbkdf2SHA256, parameters: (49_950_000, 0, 0))
        try addCraftedSlot(fixture, derivation: heavy)
        try addCraftedSlot(fixture, derivation: heavy)
        let before = fixture.slotFileBytes
        #expect {
            try KeySlots.addPassphrase(path: fixture.path, existing: Passphrase(first), new: Passphrase("third passphrase"),
                                       kdf: .pbkdf2SHA256(iterations: 200_000))
        } throws: { error in
            guard case KeySlotError.changeWouldBeUnreadable(_, let detail) = error else { return false }
            return detail.contains("key-derivation work")
        }
        #expect(fixture.slotFileBytes == before)
        // A change replaces its slot in one write: no temporary extra slot pushes the file over.
        try KeySlots.changePassphrase(path: fixture.path, from: Passphrase(first), to: Passphrase("second passphrase"))
        #expect(try fixture.authors(opening: "second passphrase").count == 2)
        #expect(try KeySlots.list(path: fixture.path).count == 3)
    }

    @Test func aSymbolicLinkToTheSlotFileStaysALinkToTheChangedFile() throws {
        let fixture = try KeySlotFixture()
        let elsewhere = fixture.directory.path("keys")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        let target = elsewhere + "/app.keys"
        try FileManager.default.moveItem(atPath: fixture.slotPath, toPath: target)
        try FileManager.default.createSymbolicLink(atPath: fixture.slotPath, withDestinationPath: target)
        try KeySlots.changePassphrase(path: fixture.path, from: Passphrase(first), to: Passphrase("second passphrase"))
        #expect(FileSystem.isSymbolicLink(fixture.slotPath))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: fixture.slotPath) == target)
        #expect(try fixture.authors(opening: "second passphrase").count == 2)
        // The target itself holds the change: the old passphrase opens nothing through it.
        #expect(throws: CipherStoreError.wrongKey(path: fixture.path)) { try fixture.authors(opening: first) }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: elsewhere) + FileManager.default.contentsOfDirectory(atPath: fixture.directory.url.path)
        #expect(leftovers.filter { $0.contains(".tmp") }.isEmpty, "\(leftovers)")
    }

    @Test func theLargestSlotNumberDoesNotStopNewSlots() throws {
        let fixture = try KeySlotFixture()
        try addCraftedSlot(fixture, id: Int(UInt32.max))
        let added = try KeySlots.addPassphrase(path: fixture.path, existing: Passphrase(first), new: Passphrase("second passphrase"),
                                               kdf: KeySlotFixture.fastKDF)
        #expect(added.id == 2)
        let recovery = try KeySlots.addRecoveryKey(path: fixture.path, existing: Passphrase(first))
        #expect(recovery.slot.id == 3)
        try KeySlots.changePassphrase(path: fixture.path, from: Passphrase("second passphrase"), to: Passphrase("third passphrase"))
        let rotated = try KeySlots.rotateDataKey(path: fixture.path, keeping: [Passphrase(first)])
        #expect(rotated.count == 1 && rotated[0].opensCurrentDatabase)
        #expect(try fixture.authors(opening: first).count == 2)
    }

    @Test func aLabelWithControlOrInvisibleCharactersIsRefusedOnWriteAndDamageWhenRead() throws {
        let clean = try KeySlotFixture()
        for label in ["laptop\u{1B}[2J\nslot 9: passphrase 'admin'", "admin\u{202E}gnp.exe", "x\u{2028}y\u{200B}z"] {
            let fixture = try KeySlotFixture()
            try addCraftedSlot(fixture, label: label)
            #expect {
                try KeySlots.list(path: fixture.path)
            } throws: { error in
                guard case KeySlotError.damaged(_, let detail) = error else { return false }
                return detail.contains("control characters")
            }
            #expect {
                try KeySlots.addPassphrase(path: clean.path, existing: Passphrase(first), new: Passphrase("other"), label: label)
            } throws: { error in
                guard case KeySlotError.invalidLabel = error else { return false }
                return true
            }
        }
    }

    @Test func newSlotsHaveAFloorOfKeyDerivationWork() throws {
        #expect(throws: KeySlotError.self) { try KeySlotKDF.scrypt(log2N: 1, blockSize: 1, parallelism: 1).resolve() }
        #expect(throws: KeySlotError.self) { try KeySlotKDF.scrypt(log2N: 10).resolve() }
        #expect(throws: KeySlotError.self) { try KeySlotKDF.pbkdf2SHA256(iterations: 1).resolve() }
        #expect(throws: KeySlotError.self) { try KeySlotKDF.pbkdf2SHA256(iterations: 99_999).resolve() }
        #expect(try KeySlotKDF.scrypt(log2N: 11).resolve().parameters == (11, 8, 1))
        #expect(try KeySlotKDF.pbkdf2SHA256(iterations: 100_000).resolve().parameters == (100_000, 0, 0))
        let fixture = try KeySlotFixture()
        #expect(throws: KeySlotError.self) {
            try KeySlots.addPassphrase(path: fixture.path, existing: Passphrase(first), new: Passphrase("weak"),
                                       kdf: .pbkdf2SHA256(iterations: 1))
        }
    }
} }
