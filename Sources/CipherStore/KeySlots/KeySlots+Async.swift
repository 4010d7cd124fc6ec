/// The `async` forms of the key-slot operations: each runs on a thread of its own (a slot's key
/// derivation takes a quarter of a second, a rewrite minutes on a large file), never one of
/// the cooperative pool's. Cancelling the task cancels a rewrite (``DatabaseFileError/cancelled``,
/// nothing changed); a slot-file change, one key derivation and one write, runs to its end. A
/// task cancelled before the call gets `CancellationError`. See ``ConversionThread``.
extension KeySlots {
    /// The `async` form of `encrypt(path:passphrase:label:kdf:cipher:options:)`.
    @discardableResult
    public static func encrypt(path: String, passphrase: Passphrase, label: String = "passphrase", kdf: KeySlotKDF = .default,
                               cipher: CipherSettings = .libraryDefaults, options: DatabaseFileOptions = DatabaseFileOptions()) async throws -> KeySlotInfo {
        try await ConversionThread.run(options: options) { options in
            try encrypt(path: path, passphrase: passphrase, label: label, kdf: kdf, cipher: cipher, options: options)
        }
    }

    /// The `async` form of `convert(path:currentKey:currentCipher:passphrase:label:kdf:cipher:options:)`.
    @discardableResult
    public static func convert(path: String, currentKey: DatabaseKey, currentCipher: CipherSettings = .libraryDefaults,
                               passphrase: Passphrase, label: String = "passphrase", kdf: KeySlotKDF = .default,
                               cipher: CipherSettings = .libraryDefaults, options: DatabaseFileOptions = DatabaseFileOptions()) async throws -> KeySlotInfo {
        try await ConversionThread.run(options: options) { options in
            try convert(path: path, currentKey: currentKey, currentCipher: currentCipher, passphrase: passphrase, label: label,
                        kdf: kdf, cipher: cipher, options: options)
        }
    }

    /// The `async` form of `rotateDataKey(path:keeping:cipher:options:)`.
    @discardableResult
    public static func rotateDataKey(path: String, keeping passphrases: [Passphrase], cipher: CipherSettings = .libraryDefaults,
                                     options: DatabaseFileOptions = DatabaseFileOptions()) async throws -> [KeySlotInfo] {
        try await ConversionThread.run(options: options) { options in
            try rotateDataKey(path: path, keeping: passphrases, cipher: cipher, options: options)
        }
    }

    /// The `async` form of `backup(path:key:cipher:to:passphrase:label:kdf:options:)`.
    @discardableResult
    public static func backup(path: String, key: DatabaseKey, cipher: CipherSettings = .libraryDefaults, to output: String,
                              passphrase: Passphrase, label: String = "passphrase", kdf: KeySlotKDF = .default,
                              options: DatabaseFileOptions = DatabaseFileOptions()) async throws -> DatabaseFileReport {
        try await ConversionThread.run(options: options) { options in
            try backup(path: path, key: key, cipher: cipher, to: output, passphrase: passphrase, label: label, kdf: kdf, options: options)
        }
    }

    /// The `async` form of `unlock(path:passphrase:)`.
    public static func unlock(path: String, passphrase: Passphrase) async throws -> DatabaseKey {
        try await ConversionThread.run { _ in try unlock(path: path, passphrase: passphrase) }
    }

    /// The `async` form of `addPassphrase(path:existing:new:label:kdf:)`.
    @discardableResult
    public static func addPassphrase(path: String, existing: Passphrase, new: Passphrase, label: String = "passphrase",
                                     kdf: KeySlotKDF = .default) async throws -> KeySlotInfo {
        try await ConversionThread.run { _ in try addPassphrase(path: path, existing: existing, new: new, label: label, kdf: kdf) }
    }

    /// The `async` form of `addRecoveryKey(path:existing:label:)`.
    public static func addRecoveryKey(path: String, existing: Passphrase, label: String = "recovery key") async throws -> NewRecoveryKey {
        try await ConversionThread.run { _ in try addRecoveryKey(path: path, existing: existing, label: label) }
    }

    /// The `async` form of `removeSlot(path:id:remaining:)`.
    public static func removeSlot(path: String, id: Int, remaining: Passphrase) async throws {
        try await ConversionThread.run { _ in try removeSlot(path: path, id: id, remaining: remaining) }
    }

    /// The `async` form of `changePassphrase(path:from:to:kdf:)`.
    @discardableResult
    public static func changePassphrase(path: String, from old: Passphrase, to new: Passphrase, kdf: KeySlotKDF? = nil) async throws -> KeySlotInfo {
        try await ConversionThread.run { _ in try changePassphrase(path: path, from: old, to: new, kdf: kdf) }
    }
}
