extension DatabasePool {
    /// Changes the database's key through the pool: waits for the running reads and writes,
    /// closes every connection, rewrites the file with
    /// ``DatabaseFile/changeKey(path:oldKey:oldCipher:newKey:newCipher:to:options:)-1h48f``
    /// (verified, atomic, in place), and opens the writer again with the new key. Readers open
    /// again as reads need them, with the new key (one key derivation for the pool, as at open).
    /// Blocks the calling thread.
    ///
    /// ```swift
    /// try pool.changeKey(to: .passphrase("new passphrase"))
    /// ```
    ///
    /// Reads and writes that were running finish on the old file first; those that arrive
    /// meanwhile wait and then run on the new one. None sees a wrong-key error.
    ///
    /// - Parameters:
    ///   - newKey: the new key.
    ///   - newCipher: new cipher settings; each one left `nil` is the database's current one.
    ///   - options: progress, cancellation, busy timeout of the rewrite. The rewrite's
    ///     connections get the functions and collations the pool's connections have (as its
    ///     ``Configuration/prepareDatabase(_:)`` added them for this database) first, then the
    ///     options' own.
    /// - Returns: the rewrite's report.
    /// - Throws: the errors of the key change, after which the pool goes on with the old key;
    ///   ``CipherStoreError/reentrantQueueAccess`` from inside a block of this pool;
    ///   ``CipherStoreError/connectionClosed`` after ``close()``.
    @available(*, noasync, message: "this form blocks the thread: in async code, `try await` the async form; in top-level code, where Swift picks this form even after await, move the code into an async function")
    @discardableResult
    public func changeKey(to newKey: DatabaseKey, cipher newCipher: CipherSettings = .libraryDefaults,
                          options: DatabaseFileOptions = DatabaseFileOptions()) throws -> DatabaseFileReport {
        var report: DatabaseFileReport?
        // The rewrite builds every index anew: with the functions and collations the pool's own
        // connections have, as its preparation chose them for this database (a preparation
        // given to a rewrite runs apart from the file, so it could not read it).
        let (functions, collations) = try read { db in (db.addedFunctions, db.addedCollations) }
        var options = options
        options.preparations.insert({ db in
            for function in functions { try db.add(function: function) }
            for collation in collations { try db.add(collation: collation) }
        }, at: 0)
        try withConnectionsClosed { path, currentKey, currentCipher in
            guard let currentKey else {
                throw CipherStoreError.invalidConfiguration(reason: "this pool's database is plaintext, so it has no key to change. Encrypt it with DatabaseFile.encrypt first.")
            }
            report = try DatabaseFile.changeKey(path: path, oldKey: currentKey, oldCipher: currentCipher,
                                                       newKey: newKey, newCipher: newCipher, to: .inPlace(), options: options)
            return (newKey, newCipher.filling(from: currentCipher))
        }
        return report!
    }

    /// Changes the database's key through the pool without blocking the caller's thread: the
    /// same verified, atomic rewrite as the synchronous form, on a thread of its own (never one
    /// of the cooperative pool's).
    ///
    /// ```swift
    /// try await pool.changeKey(to: .passphrase("new passphrase"))
    /// ```
    ///
    /// Cancelling the task cancels the rewrite: it throws ``DatabaseFileError/cancelled``, the
    /// file is left as it was, and the pool goes on with the old key.
    ///
    /// - Returns: the rewrite's report.
    /// - Throws: `CancellationError` when the task is cancelled before the call (nothing
    ///   changes then), ``DatabaseFileError/cancelled`` when it is cancelled during the
    ///   rewrite, and the errors of the synchronous form.
    @discardableResult
    public func changeKey(to newKey: DatabaseKey, cipher newCipher: CipherSettings = .libraryDefaults,
                          options: DatabaseFileOptions = DatabaseFileOptions()) async throws -> DatabaseFileReport {
        try await ConversionThread.run(options: options) { options in
            try self.changeKey(to: newKey, cipher: newCipher, options: options)
        }
    }

    /// Runs `body` while every connection of the pool is closed, then opens the pool again
    /// with the key (and cipher settings) `body` returns: for work that replaces the file,
    /// such as a data-key rotation of a key-slot database.
    ///
    /// ```swift
    /// try pool.withConnectionsClosed { path, _, cipher in
    ///     try KeySlots.rotateDataKey(path: path, keeping: [passphrase])
    ///     return (try DatabaseKey.slots(passphrase: passphrase, path: path), cipher)
    /// }
    /// ```
    ///
    /// Running reads and writes finish first; new ones wait until the pool has opened again.
    /// When `body` throws, the pool opens again with its current key and rethrows. When the
    /// pool cannot open with what `body` returned, it is closed and the error is thrown.
    ///
    /// - Parameter body: receives the database's path, the key the pool opens it with now
    ///   (for a passphrase, the derived key with the file's salt), and its cipher settings.
    public func withConnectionsClosed(
        _ body: (_ path: String, _ currentKey: DatabaseKey?, _ currentCipher: CipherSettings) throws
            -> (key: DatabaseKey?, cipher: CipherSettings)
    ) throws {
        let chain = try QueueChain.enter(ObjectIdentifier(identity))
        try checkOpen()
        guard case .file(let path) = location else { return }
        var bodyError: (any Error)?
        try withAllReaderPermits {
            try checkOpen()
            try writer.syncReplacing(chain: chain) { oldWriter in
                let (readers, currentKey, readerConfiguration) = state.withLock { state in
                    defer {
                        state.readerCount -= state.idleReaders.count
                        state.idleReaders.removeAll()
                    }
                    return (state.idleReaders.map(\.reader), state.readerKey, state.readerConfiguration)
                }
                for reader in readers {
                    try reader.syncChecked(chain: chain) { try $0.close() }
                }
                // The app's transaction observers stay with the writer.
                let observers = oldWriter.handle.hooks.broker.addedObservers
                try oldWriter.close()
                var result: (key: DatabaseKey?, cipher: CipherSettings)
                do {
                    result = try body(path, currentKey, readerConfiguration.cipher)
                } catch {
                    bodyError = error
                    result = (currentKey, readerConfiguration.cipher)
                }
                var configuration = readerConfiguration
                configuration.cipher = result.cipher
                let writer = try reopen(path: path, key: result.key, configuration: configuration)
                for (observer, extent) in observers { writer.add(transactionObserver: observer, extent: extent) }
                return writer
            }
        }
        if let bodyError { throw bodyError }
    }

    /// Opens the writer again and sets what readers open with; closes the pool when that fails.
    private func reopen(path: String, key: DatabaseKey?, configuration: Configuration) throws -> Connection {
        do {
            let (connection, readerKey, derivations) = try Self.openWriter(path: path, key: key, configuration: configuration)
            state.withLock { state in
                state.readerKey = readerKey
                state.readerConfiguration = configuration
            }
            keyDerivationCount.add(derivations, ordering: .relaxed)
            schemaCopy?.keyChanged(to: readerKey, cipher: configuration.cipher)
            observations.writerReopened(connection)
            return connection
        } catch {
            state.withLock { $0.isClosed = true }
            observations.finishAll()
            throw error
        }
    }
}
