@testable import CipherStore
import Foundation
import TestSupport
import Testing

/// Key slots end to end: a slot database opens with each slot's passphrase, passphrases change
/// without touching the database, and the data key opens it in the real `sqlcipher` shell.
/// Serialized with the other key-slot suites.
extension KeySlotSuites { @Suite struct KeySlotTests {
    @Test func plaintextDatabaseBecomesASlotDatabaseThatOpensWithItsPassphrase() throws {
        let fixture = try KeySlotFixture()
        #expect(DatabaseFileInfo.inspect(path: fixture.path).kind == .encrypted)
        #expect(try fixture.authors(opening: "first passphrase") == ["冰儿", "Lily \"quoted\""])
        let mode = try FileManager.default.attributesOfItem(atPath: fixture.slotPath)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let slots = try KeySlots.list(path: fixture.path)
        #expect(slots.count == 1)
        #expect(slots.first?.kind == .passphrase && slots.first?.opensCurrentDatabase == true)
        #expect(slots.first?.kdf == "scrypt(N=2^14, r=1, p=1)")
        // The database's salt is the one the slots are bound to.
        #expect(try Array(fileBytes(fixture.path).prefix(16)) == KeySlotFile(parsing: fixture.slotFileBytes, path: "").slots[0].databaseSalt)
    }

    @Test func passphraseDatabaseIsConvertedAndItsOldPassphraseNoLongerOpensIt() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("old.db")
        let oldKey = try DatabaseKey.passphrase("old style passphrase")
        try SampleDatabases.makeLarge(at: path, rows: 200, key: oldKey)
        try KeySlots.convert(path: path, currentKey: oldKey, passphrase: Passphrase("slot passphrase"), kdf: KeySlotFixture.fastKDF)
        let key = try DatabaseKey.slots(passphrase: Passphrase("slot passphrase"), path: path)
        #expect(key.kind == .rawKeyWithSalt)
        let db = try Connection(path: path, key: key)
        #expect(try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM big") == 200)
        try db.close()
        #expect(throws: CipherStoreError.wrongKey(path: path)) { try Connection(path: path, key: oldKey) }
    }

    @Test func wrongPassphraseThrowsTheWrongKeyErrorAfterOneDerivation() throws {
        let fixture = try KeySlotFixture()
        _ = try KeySlots.addRecoveryKey(path: fixture.path, existing: Passphrase("first passphrase"))
        let before = fixture.slotFileBytes
        let count = KeySlotFixture.derivations {
            #expect(throws: CipherStoreError.wrongKey(path: fixture.path)) {
                try DatabaseKey.slots(passphrase: Passphrase("not the passphrase"), path: fixture.path)
            }
        }
        #expect(count == 1)
        #expect(fixture.slotFileBytes == before)
        // The right one also costs exactly one derivation, then opens with a raw key.
        #expect(try KeySlotFixture.derivations { _ = try fixture.authors(opening: "first passphrase") } == 1)
    }

    @Test func changingThePassphraseRewrapsWithoutTouchingTheDatabase() throws {
        let fixture = try KeySlotFixture()
        let databaseBefore = fileBytes(fixture.path)
        let old = try #require(try KeySlots.list(path: fixture.path).first)
        var changed: KeySlotInfo?
        // One derivation opens the old passphrase's slot, one wraps the data key for the new one.
        #expect(try KeySlotFixture.derivations {
            changed = try KeySlots.changePassphrase(path: fixture.path, from: Passphrase("first passphrase"), to: Passphrase("second passphrase"))
        } == 2)
        let new = try #require(changed)
        #expect(fileBytes(fixture.path) == databaseBefore)
        #expect(try fixture.authors(opening: "second passphrase").count == 2)
        #expect(throws: CipherStoreError.wrongKey(path: fixture.path)) { try fixture.authors(opening: "first passphrase") }
        #expect(try KeySlots.list(path: fixture.path).map(\.id) == [new.id])
        #expect(new.id != old.id && new.label == old.label && new.kdf == old.kdf)
        #expect(throws: CipherStoreError.wrongKey(path: fixture.path)) {
            try KeySlots.changePassphrase(path: fixture.path, from: Passphrase("first passphrase"), to: Passphrase("third"))
        }
    }

    @Test func addedPassphrasesOpenAndRemovalKeepsAtLeastOneSlot() throws {
        let fixture = try KeySlotFixture()
        let second = try KeySlots.addPassphrase(path: fixture.path, existing: Passphrase("first passphrase"),
                                                new: Passphrase("second passphrase"), label: "laptop", kdf: .pbkdf2SHA256(iterations: 100_000))
        #expect(second.kdf == "PBKDF2-HMAC-SHA256(100000 iterations)" && second.label == "laptop")
        #expect(try fixture.authors(opening: "first passphrase").count == 2)
        #expect(try fixture.authors(opening: "second passphrase").count == 2)
        #expect(throws: CipherStoreError.wrongKey(path: fixture.path)) {
            try KeySlots.addPassphrase(path: fixture.path, existing: Passphrase("wrong"), new: Passphrase("x"), kdf: KeySlotFixture.fastKDF)
        }
        #expect(throws: KeySlotError.removalNeedsAnotherSlot(path: fixture.slotPath, slot: 1)) {
            try KeySlots.removeSlot(path: fixture.path, id: 1, remaining: Passphrase("first passphrase"))
        }
        #expect(throws: KeySlotError.noSuchSlot(path: fixture.slotPath, slot: 9)) {
            try KeySlots.removeSlot(path: fixture.path, id: 9, remaining: Passphrase("second passphrase"))
        }
        try KeySlots.removeSlot(path: fixture.path, id: 1, remaining: Passphrase("second passphrase"))
        #expect(throws: CipherStoreError.wrongKey(path: fixture.path)) { try fixture.authors(opening: "first passphrase") }
        #expect(throws: KeySlotError.lastSlot(path: fixture.slotPath, slot: second.id)) {
            try KeySlots.removeSlot(path: fixture.path, id: second.id, remaining: Passphrase("second passphrase"))
        }
        #expect(try fixture.authors(opening: "second passphrase").count == 2)
    }

    @Test func recoveryKeyOpensInAnyCaseWithoutDashesAndATypoIsNamed() throws {
        let fixture = try KeySlotFixture()
        let recovery = try KeySlots.addRecoveryKey(path: fixture.path, existing: Passphrase("first passphrase"))
        #expect(recovery.text.range(of: "^[A-Z2-7]{5}(-[A-Z2-7]{5}){7}$", options: .regularExpression) != nil)
        #expect(!"\(recovery)".contains(recovery.text))
        #expect(recovery.slot.kind == .recoveryKey && recovery.slot.kdf == "HKDF-SHA256")
        let typed = recovery.text.lowercased().replacingOccurrences(of: "-", with: " ")
        #expect(try KeySlotFixture.derivations { _ = try fixture.authors(opening: typed) } == 0)
        var mistyped = Array(recovery.text)
        mistyped[3] = mistyped[3] == "A" ? "B" : "A"
        #expect(throws: KeySlotError.recoveryKeyMistyped) { try fixture.authors(opening: String(mistyped)) }
        // A character left out, or one too many: named as a typo too, with no derivation run.
        var shorter = Array(recovery.text)
        shorter.remove(at: 8)
        #expect(throws: KeySlotError.recoveryKeyMistyped) { try fixture.authors(opening: String(shorter)) }
        #expect(throws: KeySlotError.recoveryKeyMistyped) { try fixture.authors(opening: recovery.text + "A") }
        // Digits mistaken for the letters O, I and B read as those letters.
        let digits = recovery.text.replacingOccurrences(of: "O", with: "0").replacingOccurrences(of: "I", with: "1")
            .replacingOccurrences(of: "B", with: "8")
        #expect(try KeySlotFixture.derivations { _ = try fixture.authors(opening: digits) } == 0)
        // A passphrase change made with the recovery key keeps it, and adds the new passphrase.
        try KeySlots.changePassphrase(path: fixture.path, from: Passphrase(recovery.text), to: Passphrase("chosen later"),
                                      kdf: KeySlotFixture.fastKDF)
        #expect(try fixture.authors(opening: "chosen later").count == 2)
        #expect(try fixture.authors(opening: recovery.text).count == 2)
        #expect(try fixture.authors(opening: "first passphrase").count == 2)
        #expect(try KeySlots.list(path: fixture.path).map(\.kind) == [.passphrase, .recoveryKey, .passphrase])
    }

    @Test func dataKeyOpensTheDatabaseInTheSQLCipherShell() throws {
        let fixture = try KeySlotFixture()
        let hex = try KeySlots.exportRawKey(path: fixture.path, passphrase: Passphrase("first passphrase"))
        #expect(hex.count == 96)
        let result = try SQLCipherShell.run(database: fixture.path, script: "PRAGMA key = \"x'\(hex)'\";\nSELECT name FROM author ORDER BY id;\n")
        #expect(SQLCipherShell.queryOutput(of: result) == "冰儿\nLily \"quoted\"\n", "\(result.errorOutput)")
        // The data key without the salt opens it too: SQLCipher reads the salt from the file.
        let keyOnly = try SQLCipherShell.run(database: fixture.path, script: "PRAGMA key = \"x'\(hex.prefix(64))'\";\nSELECT count(*) FROM book;\n")
        #expect(SQLCipherShell.queryOutput(of: keyOnly) == "2\n", "\(keyOnly.errorOutput)")
    }

    @Test func makingASlotDatabaseRefusesAnExistingSlotFileAndCleansUpAfterAFailure() throws {
        let fixture = try KeySlotFixture()
        let slotBytes = fixture.slotFileBytes
        #expect(throws: KeySlotError.slotFileExists(path: fixture.slotPath)) {
            try KeySlots.encrypt(path: fixture.path, passphrase: Passphrase("again"), kdf: KeySlotFixture.fastKDF)
        }
        #expect(fixture.slotFileBytes == slotBytes)
        // An encrypted database is no plaintext source: the conversion fails, no slot file stays.
        let other = fixture.directory.path("other.db")
        try SampleDatabases.makeLarge(at: other, rows: 10, key: .passphrase("p"))
        #expect(throws: DatabaseFileError.alreadyEncrypted(path: other)) {
            try KeySlots.encrypt(path: other, passphrase: Passphrase("new"), kdf: KeySlotFixture.fastKDF)
        }
        #expect(!FileManager.default.fileExists(atPath: KeySlots.slotFilePath(forDatabase: other)))
    }

    @Test func kdfChoicesAreCalibratedAndCheckedBeforeUse() throws {
        let scrypt = try KeySlotKDF.scrypt(targetDuration: .milliseconds(1)).resolve()
        #expect(scrypt.algorithm == .scrypt && scrypt.parameters.0 >= 11 && scrypt.parameters.1 == 8)
        let pbkdf2 = try KeySlotKDF.pbkdf2SHA256(targetDuration: .milliseconds(1)).resolve()
        #expect(pbkdf2.algorithm == .pbkdf2SHA256 && pbkdf2.parameters.0 >= 100_000)
        #expect(throws: KeySlotError.self) { try KeySlotKDF.scrypt(log2N: 25).resolve() }
        #expect(throws: KeySlotError.self) { try KeySlotKDF.pbkdf2SHA256(iterations: 0).resolve() }
        #expect(throws: KeySlotError.self) { try KeySlotKDF.scrypt(targetDuration: .zero).resolve() }
        #expect(throws: KeySlotError.invalidLabel(reason: "it contains control characters or invisible formatting characters (line breaks, tabs, text-direction overrides, zero-width spaces…); use printable text.")) {
            try KeySlots.addPassphrase(path: "/nonexistent.db", existing: Passphrase("a"), new: Passphrase("b"), label: "two\nlines")
        }
    }
} }

extension KeySlotSuites.KeySlotTests {
    @Test func changeRemovesEverySlotTheOldPassphraseOpens() throws {
        let fixture = try KeySlotFixture()
        // Two slots for one passphrase, as a change interrupted after its first write leaves.
        try fixture.addDuplicateSlot(for: "first passphrase")
        try KeySlots.changePassphrase(path: fixture.path, from: Passphrase("first passphrase"), to: Passphrase("second passphrase"))
        #expect(throws: CipherStoreError.wrongKey(path: fixture.path)) { try fixture.authors(opening: "first passphrase") }
        #expect(try KeySlots.list(path: fixture.path).count == 1)
    }

    /// A change killed between its two writes leaves a slot for each passphrase; running it
    /// again leaves one slot, for the new passphrase, in the old one's place — not a pile of
    /// duplicates that slow every open down and fill the file.
    @Test func runningAnInterruptedChangeAgainLeavesOneSlotInTheOldOnesPlace() throws {
        let fixture = try KeySlotFixture()
        let first = try Passphrase("first passphrase")
        _ = try KeySlots.addRecoveryKey(path: fixture.path, existing: first)
        // What the interrupted change left: the old passphrase's slot, and the new one's at the end.
        try KeySlots.addPassphrase(path: fixture.path, existing: first, new: Passphrase("second passphrase"), kdf: KeySlotFixture.fastKDF)
        try KeySlots.changePassphrase(path: fixture.path, from: first, to: Passphrase("second passphrase"))
        #expect(try KeySlots.list(path: fixture.path).map(\.kind) == [.passphrase, .recoveryKey])
        for _ in 0..<3 {
            // As if interrupted again: the old passphrase back beside the new one.
            try KeySlots.addPassphrase(path: fixture.path, existing: Passphrase("second passphrase"), new: first, kdf: KeySlotFixture.fastKDF)
            try KeySlots.changePassphrase(path: fixture.path, from: first, to: Passphrase("second passphrase"))
            #expect(try KeySlots.list(path: fixture.path).count == 2)
            #expect(try fixture.authors(opening: "second passphrase").count == 2)
            #expect(throws: CipherStoreError.wrongKey(path: fixture.path)) { try fixture.authors(opening: "first passphrase") }
        }
    }

    @Test func aPassphraseThatAlreadyHasASlotIsNotAddedAgain() throws {
        let fixture = try KeySlotFixture()
        let before = fixture.slotFileBytes
        #expect(throws: KeySlotError.passphraseAlreadyInSlot(path: fixture.slotPath, slot: 1)) {
            try KeySlots.addPassphrase(path: fixture.path, existing: Passphrase("first passphrase"), new: Passphrase("first passphrase"),
                                       kdf: KeySlotFixture.fastKDF)
        }
        #expect(fixture.slotFileBytes == before)
    }
}

extension KeySlotSuites.KeySlotTests {
    @Test func rotatingTheDataKeyKeepsTheGivenSecretsAndDropsTheRest() throws {
        let fixture = try KeySlotFixture()
        let first = try Passphrase("first passphrase")
        try KeySlots.addPassphrase(path: fixture.path, existing: first, new: Passphrase("leaked passphrase"), kdf: KeySlotFixture.fastKDF)
        let recovery = try KeySlots.addRecoveryKey(path: fixture.path, existing: first)
        let oldRawKey = try KeySlots.exportRawKey(path: fixture.path, passphrase: first)
        let oldSlotFile = fixture.slotFileBytes
        #expect(throws: CipherStoreError.wrongKey(path: fixture.path)) {
            try KeySlots.rotateDataKey(path: fixture.path, keeping: [first, Passphrase("never a passphrase")])
        }
        #expect(fixture.slotFileBytes == oldSlotFile)
        #expect(throws: KeySlotError.nothingToKeep) { try KeySlots.rotateDataKey(path: fixture.path, keeping: []) }

        let slots = try KeySlots.rotateDataKey(path: fixture.path, keeping: [first, Passphrase(recovery.text)])
        #expect(slots.map(\.kind) == [.passphrase, .recoveryKey] && slots.allSatisfy(\.opensCurrentDatabase))
        #expect(try fixture.authors(opening: "first passphrase").count == 2)
        #expect(try fixture.authors(opening: recovery.text).count == 2)
        #expect(throws: CipherStoreError.wrongKey(path: fixture.path)) { try fixture.authors(opening: "leaked passphrase") }
        #expect(throws: CipherStoreError.wrongKey(path: fixture.path)) { try Connection(path: fixture.path, key: .rawKey(hex: oldRawKey)) }
        // An old copy of the slot file belongs to the old data key: it opens nothing any more.
        try fixture.writeSlotFile(oldSlotFile)
        #expect(throws: KeySlotError.belongsToAnotherDatabase(slotFile: fixture.slotPath, database: fixture.path)) {
            try fixture.authors(opening: "leaked passphrase")
        }
    }

    @Test func slotsOfAnInterruptedRotationAreIgnoredAndListedAsSuch() throws {
        let fixture = try KeySlotFixture()
        let before = fixture.slotFileBytes
        // What step 1 of a rotation leaves: a slot bound to a salt the database does not have yet.
        var file = try KeySlotFile(parsing: before, path: fixture.slotPath)
        var pending = file.slots[0]
        pending.id = 2
        pending.databaseSalt = [UInt8](repeating: 7, count: 16)
        file.slots.append(pending)
        try fixture.writeSlotFile(file.serialized())
        #expect(try KeySlots.list(path: fixture.path).map(\.opensCurrentDatabase) == [true, false])
        #expect(try KeySlotFixture.derivations { _ = try fixture.authors(opening: "first passphrase") } == 1)
    }
}

extension KeySlotSuites.KeySlotTests {
    /// An addition that opens the slot file while a change is under way must wait for the whole
    /// change: otherwise it writes back the old slot, or the change drops the added one, while
    /// both report success.
    @Test func anAdditionStartedDuringAChangeWaitsForAllOfIt() throws {
        let fixture = try KeySlotFixture()
        // The change derives for this slot between its two writes: slow enough that the
        // addition starts in between.
        let slowKDF = KeySlotKDF.scrypt(log2N: 14)
        try KeySlots.addPassphrase(path: fixture.path, existing: Passphrase("first passphrase"), new: Passphrase("fourth"), kdf: slowKDF)
        let firstWrite = try #require(FileSystem.identity(fixture.slotPath))
        let path = fixture.path
        let changed = DispatchSemaphore(value: 0)
        let changeResult = Locked<Result<KeySlotInfo, any Error>?>(nil)
        DispatchQueue.global().async {
            let result = Result { try KeySlots.changePassphrase(path: path, from: Passphrase("first passphrase"), to: Passphrase("second")) }
            changeResult.withLock { $0 = result }
            changed.signal()
        }
        // The change's first write gives the slot file a new inode: start the addition then.
        let deadline = Date().addingTimeInterval(10)
        while FileSystem.identity(fixture.slotPath) == firstWrite, Date() < deadline { usleep(200) }
        try KeySlots.addPassphrase(path: path, existing: Passphrase("fourth"), new: Passphrase("third"), kdf: KeySlotFixture.fastKDF)
        changed.wait()
        _ = try #require(changeResult.withLock { $0 }).get()
        #expect(throws: CipherStoreError.wrongKey(path: path)) { try fixture.authors(opening: "first passphrase") }
        for passphrase in ["second", "third", "fourth"] {
            #expect(try fixture.authors(opening: passphrase).count == 2, "\(passphrase)")
        }
    }
}
