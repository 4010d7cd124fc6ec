/// The `async` forms of the conversions: each runs on a thread of its own (never one of the
/// cooperative pool's), and cancelling the calling task cancels the conversion, which then
/// throws ``DatabaseFileError/cancelled`` and leaves everything as it was. A task cancelled
/// before the call gets `CancellationError`. See ``ConversionThread``.
extension DatabaseFile {
    /// The `async` form of `encrypt(path:key:cipher:to:options:)`.
    @discardableResult
    public static func encrypt(path: String, key: DatabaseKey, cipher: CipherSettings = .libraryDefaults,
                               to destination: OutputDestination, options: DatabaseFileOptions = DatabaseFileOptions()) async throws -> DatabaseFileReport {
        try await ConversionThread.run(options: options) { options in
            try encrypt(path: path, key: key, cipher: cipher, to: destination, options: options)
        }
    }

    /// The `async` form of `decrypt(path:key:cipher:to:options:)`.
    @discardableResult
    public static func decrypt(path: String, key: DatabaseKey, cipher: CipherSettings = .libraryDefaults,
                               to destination: OutputDestination, options: DatabaseFileOptions = DatabaseFileOptions()) async throws -> DatabaseFileReport {
        try await ConversionThread.run(options: options) { options in
            try decrypt(path: path, key: key, cipher: cipher, to: destination, options: options)
        }
    }

    /// The `async` form of `changeKey(path:oldKey:oldCipher:newKey:newCipher:to:options:)`.
    @discardableResult
    public static func changeKey(path: String, oldKey: DatabaseKey, oldCipher: CipherSettings = .libraryDefaults,
                                 newKey: DatabaseKey, newCipher: CipherSettings = .libraryDefaults,
                                 to destination: OutputDestination = .inPlace(),
                                 options: DatabaseFileOptions = DatabaseFileOptions()) async throws -> DatabaseFileReport {
        try await ConversionThread.run(options: options) { options in
            try changeKey(path: path, oldKey: oldKey, oldCipher: oldCipher, newKey: newKey, newCipher: newCipher, to: destination, options: options)
        }
    }

    /// The `async` form of `upgrade(path:key:oldCipher:newKey:newCipher:to:options:)`.
    @discardableResult
    public static func upgrade(path: String, key: DatabaseKey, oldCipher: CipherSettings = .sqlcipher3,
                               newKey: DatabaseKey? = nil, newCipher: CipherSettings = .sqlcipher4,
                               to destination: OutputDestination = .inPlace(),
                               options: DatabaseFileOptions = DatabaseFileOptions()) async throws -> DatabaseFileReport {
        try await ConversionThread.run(options: options) { options in
            try upgrade(path: path, key: key, oldCipher: oldCipher, newKey: newKey, newCipher: newCipher, to: destination, options: options)
        }
    }

    /// The `async` form of `verify(path:key:cipher:)`; it has no cancellation point, so a task
    /// cancelled while it runs lets it finish.
    public static func verify(path: String, key: DatabaseKey?, cipher: CipherSettings = .libraryDefaults) async throws -> VerificationReport {
        try await ConversionThread.run { _ in try verify(path: path, key: key, cipher: cipher) }
    }
}

extension DatabaseBackup {
    /// The `async` form of `backup(path:key:cipher:to:newKey:overwrite:options:)`.
    @discardableResult
    public static func backup(path: String, key: DatabaseKey?, cipher: CipherSettings = .libraryDefaults, to output: String,
                              newKey: DatabaseKey? = nil, overwrite: Bool = false,
                              options: DatabaseFileOptions = DatabaseFileOptions()) async throws -> DatabaseFileReport {
        try await ConversionThread.run(options: options) { options in
            try backup(path: path, key: key, cipher: cipher, to: output, newKey: newKey, overwrite: overwrite, options: options)
        }
    }

    /// The `async` form of `restore(backup:key:cipher:over:currentKey:replacingUnreadable:replacingOtherLinks:options:)`.
    @discardableResult
    public static func restore(backup: String, key: DatabaseKey?, cipher: CipherSettings = .libraryDefaults, over path: String,
                               currentKey: DatabaseKey? = nil, replacingUnreadable: Bool = false, replacingOtherLinks: Bool = false,
                               options: DatabaseFileOptions = DatabaseFileOptions()) async throws -> DatabaseFileReport {
        try await ConversionThread.run(options: options) { options in
            try restore(backup: backup, key: key, cipher: cipher, over: path, currentKey: currentKey,
                        replacingUnreadable: replacingUnreadable, replacingOtherLinks: replacingOtherLinks, options: options)
        }
    }
}

extension DatabaseRepair {
    /// The `async` form of `salvage(path:key:cipher:to:newKey:overwrite:options:)`.
    @discardableResult
    public static func salvage(path: String, key: DatabaseKey, cipher: CipherSettings = .libraryDefaults, to output: String,
                               newKey: DatabaseKey? = nil, overwrite: Bool = false,
                               options: DatabaseFileOptions = DatabaseFileOptions()) async throws -> RepairReport {
        try await ConversionThread.run(options: options) { options in
            try salvage(path: path, key: key, cipher: cipher, to: output, newKey: newKey, overwrite: overwrite, options: options)
        }
    }
}
