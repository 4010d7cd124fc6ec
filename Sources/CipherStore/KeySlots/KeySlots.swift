import Crypto
import Foundation

/// Key slots: a database encrypted with a random data key, kept wrapped under one or more
/// passphrases (and recovery keys) in a slot file beside it, `<database>.keys`.
///
/// ```swift
/// try KeySlots.encrypt(path: "app.db", passphrase: Passphrase("first passphrase"))
/// let key = try DatabaseKey.slots(passphrase: Passphrase("first passphrase"), path: "app.db")
/// let queue = try DatabaseQueue(path: "app.db", key: key)
/// try KeySlots.changePassphrase(path: "app.db", from: Passphrase("first passphrase"),
///                               to: Passphrase("second passphrase"))
/// ```
///
/// The format, the threat model, what it does not protect and how to recover are in the
/// <doc:KeySlotsDesign> article. Every operation takes the database's path; the slot file's path
/// follows from it (``slotFilePath(forDatabase:)``).
public enum KeySlots {
    /// Where the slot file of a database lives: beside it, its name followed by `.keys`.
    public static func slotFilePath(forDatabase path: String) -> String {
        path + ".keys"
    }

    /// The file that holds the slots: ``slotFilePath(forDatabase:)``, or the file it links to
    /// when it is a symbolic link. Changes are written beside that file and renamed over it,
    /// so the link keeps leading to the current slots.
    static func slotFileTarget(forDatabase path: String) -> String {
        let name = slotFilePath(forDatabase: path)
        guard FileSystem.isSymbolicLink(name) else { return name }
        return FileSystem.resolvingLinks(name) ?? name
    }

    /// Encrypts a plaintext database in place under a new random data key, with a first
    /// passphrase slot. The slot file is written first; the database is then rewritten with the
    /// verified, atomic conversion of ``DatabaseFile/encrypt(path:key:cipher:to:options:)-9f43n``.
    ///
    /// - Parameters:
    ///   - path: the plaintext database.
    ///   - passphrase: the first passphrase.
    ///   - label: a name for the slot, shown by ``list(path:)``.
    ///   - kdf: how the passphrase is stretched.
    ///   - cipher: cipher settings of the result; the same must be given when opening. Unlike
    ///     `encrypt`, a page size left `nil` is the linked SQLCipher's default (not the
    ///     source's), so that the key of ``DatabaseKey/slots(passphrase:path:)-6o46u`` opens the
    ///     result with default settings.
    ///   - options: progress, cancellation, busy timeout.
    /// - Returns: the new slot.
    /// - Throws: ``KeySlotError/slotFileExists(path:)``, ``DatabaseFileError`` (not plaintext…),
    ///   ``CipherStoreError``, ``DatabaseError``. On failure nothing is left changed.
    @discardableResult
    public static func encrypt(path: String, passphrase: Passphrase, label: String = "passphrase", kdf: KeySlotKDF = .default,
                               cipher: CipherSettings = .libraryDefaults, options: DatabaseFileOptions = DatabaseFileOptions()) throws -> KeySlotInfo {
        var cipher = cipher
        cipher.pageSize = cipher.pageSize ?? SQLCipherLibrary.defaultPageSize
        try refusePlaintextHeader(cipher.plaintextHeaderSize)
        return try makeSlotDatabase(path: path, passphrase: passphrase, label: label, kdf: kdf) { [cipher] key in
            try DatabaseFile.encrypt(path: path, key: key, cipher: cipher, to: .inPlace(), options: options)
        }.slot
    }

    /// Turns a database encrypted with a passphrase (or raw key) into a slot database, in
    /// place, through the verified, atomic rewrite of
    /// ``DatabaseFile/changeKey(path:oldKey:oldCipher:newKey:newCipher:to:options:)-1h48f``.
    ///
    /// - Parameters:
    ///   - path: the encrypted database.
    ///   - currentKey: the database's key now.
    ///   - currentCipher: the database's cipher settings now.
    ///   - passphrase: the first passphrase.
    ///   - label: a name for the slot, shown by ``list(path:)``.
    ///   - kdf: how the passphrase is stretched.
    ///   - cipher: settings of the result; each left `nil` is the source's.
    ///   - options: progress, cancellation, busy timeout.
    /// - Returns: the new slot.
    /// - Throws: as ``encrypt(path:passphrase:label:kdf:cipher:options:)-83cks``, and
    ///   ``CipherStoreError/wrongKey(path:)`` for a wrong current key.
    @discardableResult
    public static func convert(path: String, currentKey: DatabaseKey, currentCipher: CipherSettings = .libraryDefaults,
                               passphrase: Passphrase, label: String = "passphrase", kdf: KeySlotKDF = .default,
                               cipher: CipherSettings = .libraryDefaults, options: DatabaseFileOptions = DatabaseFileOptions()) throws -> KeySlotInfo {
        try refusePlaintextHeader(cipher.plaintextHeaderSize ?? currentCipher.plaintextHeaderSize)
        return try makeSlotDatabase(path: path, passphrase: passphrase, label: label, kdf: kdf) { key in
            try DatabaseFile.changeKey(path: path, oldKey: currentKey, oldCipher: currentCipher, newKey: key,
                                              newCipher: cipher, to: .inPlace(), options: options)
        }.slot
    }

    /// The key that opens a slot database: one key derivation, then the raw data key with the
    /// database's salt. Keep it for the process's later connections. Same as
    /// ``DatabaseKey/slots(passphrase:path:)-6o46u``.
    ///
    /// - Throws: ``CipherStoreError/wrongKey(path:)`` when no slot opens with the passphrase,
    ///   ``KeySlotError`` for a missing, damaged or foreign slot file, ``DatabaseFileError/sourceMissing(path:)``,
    ///   ``CipherStoreError/notEncrypted(path:)``.
    public static func unlock(path: String, passphrase: Passphrase) throws -> DatabaseKey {
        let state = try SlotState.load(database: path)
        let opened = try state.unlock(passphrase)
        return try opened.dataKey.withUnsafeBytes { try DatabaseKey.rawKey($0, salt: state.databaseSalt) }
    }

    /// The key of a slot database whose first 16 bytes (the salt its slots are bound to) may
    /// be damaged, for ``DatabaseRepair``: the data key with the salt recorded by the slot the
    /// passphrase opens, whatever the database's first bytes hold. Tries each salt the slot
    /// file records, one key derivation per slot tried.
    /// - Throws: ``CipherStoreError/wrongKey(path:)`` when no slot opens with the passphrase,
    ///   ``KeySlotError`` for a missing or damaged slot file.
    public static func unlockIgnoringDatabaseSalt(path: String, passphrase: Passphrase) throws -> DatabaseKey {
        let slotPath = slotFileTarget(forDatabase: path)
        let file = try KeySlotStore.read(slotPath, database: path)
        var salts: [[UInt8]] = []
        for slot in file.slots where !salts.contains(slot.databaseSalt) { salts.append(slot.databaseSalt) }
        for salt in salts {
            let state = SlotState(databasePath: path, slotPath: slotPath, databaseSalt: salt, file: file, lock: nil)
            if let opened = try? state.unlock(passphrase) {
                return try opened.dataKey.withUnsafeBytes { try DatabaseKey.rawKey($0, salt: salt) }
            }
        }
        throw CipherStoreError.wrongKey(path: path)
    }

    /// The slots of a database's slot file, without secrets. Runs no key derivation.
    /// - Throws: ``KeySlotError`` for a missing or damaged slot file, or one of another
    ///   database (no slot belongs to the database's salt);
    ///   ``CipherStoreError/notEncrypted(path:)`` when the database is plaintext.
    public static func list(path: String) throws -> [KeySlotInfo] {
        let state = try SlotState.load(database: path)
        return state.file.slots.map { KeySlotInfo($0, currentSalt: state.databaseSalt) }
    }

    /// The slots of the current database that `passphrase` (or a recovery key, as text)
    /// opens, without secrets: what `rotateDataKey(path:keeping:cipher:options:)` keeps
    /// for it. One key derivation per slot tried.
    ///
    /// ```swift
    /// let kept = try KeySlots.slots(openedBy: Passphrase("first passphrase"), path: "app.db")
    /// let dropped = try KeySlots.list(path: "app.db").filter { slot in slot.opensCurrentDatabase && !kept.contains(slot) }
    /// ```
    /// - Returns: the slots opened; empty when none opens with it.
    /// - Throws: as ``list(path:)``.
    public static func slots(openedBy passphrase: Passphrase, path: String) throws -> [KeySlotInfo] {
        let state = try SlotState.load(database: path)
        return try state.slots(openedBy: passphrase).map { KeySlotInfo($0.slot, currentSalt: state.databaseSalt) }
    }

    /// The raw data key and the database's salt as 96 hexadecimal digits, for recovery without
    /// the slot file (`PRAGMA key = "x'…'"` in the `sqlcipher` shell). Keep it offline; anyone
    /// who has it can read the database.
    /// - Throws: as ``unlock(path:passphrase:)-9bmii``.
    public static func exportRawKey(path: String, passphrase: Passphrase) throws -> String {
        let state = try SlotState.load(database: path)
        let opened = try state.unlock(passphrase)
        // Straight from the wiped buffer into the text: no other copy of the key.
        let digits = Array("0123456789abcdef".utf8)
        return opened.dataKey.withUnsafeBytes { key in
            String(unsafeUninitializedCapacity: (key.count + state.databaseSalt.count) * 2) { text in
                var index = 0
                func put(_ byte: UInt8) {
                    text[index] = digits[Int(byte >> 4)]
                    text[index + 1] = digits[Int(byte & 0xF)]
                    index += 2
                }
                key.forEach(put)
                state.databaseSalt.forEach(put)
                return index
            }
        }
    }

    /// Parses slot-file bytes and opens its recovery-key slots with `recoveryKey` (no key
    /// stretching), without files: for the fuzz target of the slot-file parser, which runs it
    /// thousands of times a second. Returns the slots and how many opened.
    @_spi(Fuzzing)
    public static func parseAndOpenRecoverySlots(_ bytes: [UInt8], recoveryKey: Passphrase) throws -> (slots: [KeySlotInfo], opened: Int) {
        let file = try KeySlotFile(parsing: bytes, path: "fuzz input")
        var opened = 0
        if case .valid(let secret) = recoveryKey.bytes.withUnsafeBytes({ RecoveryKey.read($0) }) {
            for slot in file.slots where slot.kind == .recoveryKey {
                let key = try secret.withUnsafeBytes { try slot.derivation.deriveKey(from: $0, salt: slot.kdfSalt) }
                if SlotSealer.open(slot, of: file, with: key) != nil { opened += 1 }
            }
        }
        return (file.slots.map { KeySlotInfo($0, currentSalt: $0.databaseSalt) }, opened)
    }

    // MARK: Making a slot database

    /// A slot file is bound to the salt in the database's first bytes, which a plaintext
    /// header keeps out of the file: the two do not go together.
    static func refusePlaintextHeader(_ size: Int?) throws {
        guard (size ?? 0) > 0 else { return }
        throw CipherStoreError.invalidConfiguration(reason: "a key-slot database cannot have a plaintext header: its slot file is bound to the salt in the database's first 16 bytes, which a plaintext header keeps out of the file. Drop the plaintext header (plaintextHeaderSize 0), or use a passphrase or raw key with the salt kept by the app.")
    }

    /// Makes a slot file with one slot for a new data key, then has `convert` write the
    /// database under that key; removes the slot file again when the database was not written.
    /// - Returns: the slot, and the report of `convert`.
    static func makeSlotDatabase(path: String, passphrase: Passphrase, label: String, kdf: KeySlotKDF,
                                 convert: (DatabaseKey) throws -> DatabaseFileReport) throws -> (slot: KeySlotInfo, report: DatabaseFileReport) {
        let slotPath = slotFilePath(forDatabase: path)
        guard !FileSystem.exists(slotPath) else { throw KeySlotError.slotFileExists(path: slotPath) }
        try validate(label: label)
        let derivation = try kdf.resolve()
        let dataKey = SecureBytes(count: 32) { buffer in
            SymmetricKey(size: .bits256).withUnsafeBytes { buffer.copyMemory(from: $0) }
        }
        let salt = SecureRandom.bytes(16)
        var file = KeySlotFile(fileID: SecureRandom.bytes(16), slots: [])
        let key = try passphrase.bytes.withUnsafeBytes { try SlotSealer.newKey(secret: $0, derivation: derivation) }
        let slot = try SlotSealer.seal(dataKey, into: file, id: 1, kind: .passphrase, key: key, databaseSalt: salt, label: label)
        file.slots = [slot]
        try KeySlotStore.create(slotPath, with: file) { written in
            try SlotSealer.checkReadBack(written, database: path, slotID: slot.id, wrappingKey: key.wrappingKey, dataKey: dataKey)
        }
        let report: DatabaseFileReport
        do {
            let key = try dataKey.withUnsafeBytes { try DatabaseKey.rawKey($0, salt: salt) }
            report = try convert(key)
        } catch {
            // Read from the disk, not from the step that failed: once the database has the salt
            // the slot file is bound to, it is encrypted under the data key that exists only in
            // the slot file, which must stay.
            if DatabaseFileInfo.salt(of: path) == salt {
                throw NotDurableError(
                    path: path, failure: (error as? NotDurableError)?.failure ?? "\(error)",
                    nowOnDisk: "'\(path)' is a slot database under a new data key, which exists only in its slot file '\(slotPath)': the passphrase opens it through that file. Keep both",
                    previousState: "the original database (the slot file beside it is then stale: move it away before making a slot database again)",
                    nextStep: "Check the disk (`dmesg`) and run `sync` once it is healthy; `cipherstore verify` with the passphrase checks the database.")
            }
            // The database is unchanged: the slot file made for it must go too.
            FileSystem.removeIfPresent(slotPath)
            try? FileSystem.syncDirectory(of: slotPath)
            throw error
        }
        return (KeySlotInfo(slot, currentSalt: salt), report)
    }

    static func validate(label: String) throws {
        if let problem = labelProblem(label) { throw KeySlotError.invalidLabel(reason: problem) }
    }

    /// Why a label may not be written (or read): too long, or with control characters.
    static func labelProblem(_ label: String) -> String? {
        guard label.utf8.count <= KeySlotFile.maximumLabelBytes else {
            return "it is \(label.utf8.count) bytes long; at most \(KeySlotFile.maximumLabelBytes) are allowed."
        }
        guard !label.unicodeScalars.contains(where: isHiddenCharacter) else {
            return "it contains control characters or invisible formatting characters (line breaks, tabs, text-direction overrides, zero-width spaces…); use printable text."
        }
        return nil
    }

    /// Characters a label may not hold: controls, and formatting characters that change how
    /// the rest of a line reads (direction overrides, zero-width characters, line separators).
    static func isHiddenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: return true
        default: return false
        }
    }

}

extension DatabaseKey {
    /// The key of a slot database, unlocked with any slot's passphrase or recovery key: one key
    /// derivation, then the raw data key with the database's salt (no SQLCipher KDF at open).
    ///
    /// ```swift
    /// let key = try DatabaseKey.slots(passphrase: Passphrase("s3cret passphrase"), path: "app.db")
    /// let queue = try DatabaseQueue(path: "app.db", key: key)
    /// ```
    ///
    /// - Parameters:
    ///   - passphrase: a slot's passphrase, or a recovery key as text.
    ///   - path: the database; its slot file is ``KeySlots/slotFilePath(forDatabase:)``.
    /// - Throws: as ``KeySlots/unlock(path:passphrase:)-9bmii``.
    @available(*, noasync, message: "this form blocks the thread: in async code, `try await` the async form; in top-level code, where Swift picks this form even after await, move the code into an async function")
    public static func slots(passphrase: Passphrase, path: String) throws -> DatabaseKey {
        try KeySlots.unlock(path: path, passphrase: passphrase)
    }

    /// The key of a slot database, unlocked with any slot's passphrase or recovery key,
    /// without blocking the caller's thread: the key derivation runs on a thread of its own,
    /// never one of the cooperative pool's.
    ///
    /// ```swift
    /// let key = try await DatabaseKey.slots(passphrase: passphrase, path: "app.db")
    /// ```
    /// - Throws: `CancellationError` when the task is cancelled before the call (a derivation
    ///   that has started runs to its end), and the errors of the synchronous form.
    public static func slots(passphrase: Passphrase, path: String) async throws -> DatabaseKey {
        try await KeySlots.unlock(path: path, passphrase: passphrase)
    }
}
