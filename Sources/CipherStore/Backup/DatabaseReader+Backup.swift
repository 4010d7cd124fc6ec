extension DatabaseReader {
    /// Writes a verified, encrypted copy of the database as of one moment, while the app goes
    /// on using it. See ``DatabaseBackup`` for the guarantees.
    ///
    /// ```swift
    /// let pool = try DatabasePool(path: "app.db", key: key)
    /// try pool.backup(to: "backups/app.db", key: key)   // writers keep committing meanwhile
    /// ```
    ///
    /// The copy is read in one read transaction (`read`): on a ``DatabasePool`` one
    /// reader is busy for its duration and the writer is not blocked; on a ``DatabaseQueue``
    /// the queue's one connection is, so the queue's other blocks wait until the backup ends
    /// (and, in rollback-journal mode, other processes' writers wait for the read lock).
    ///
    /// - Parameters:
    ///   - path: the backup's path.
    ///   - key: the backup's key — the database's own key to keep it, or another. `nil` only
    ///     for a plaintext database.
    ///   - overwrite: replace an existing file at `path`.
    ///   - options: progress, cancellation, full read-back; the functions and collations its
    ///     `prepareDatabase` adds are given to the copy after this connection's, so that one of
    ///     the same name is the options'.
    /// - Throws: as ``DatabaseBackup/backup(path:key:cipher:to:newKey:overwrite:options:)-16gg8``.
    @discardableResult
    public func backup(to path: String, key: DatabaseKey?, overwrite: Bool = false,
                       options: DatabaseFileOptions = DatabaseFileOptions()) throws -> DatabaseFileReport {
        let sourcePath = location.filePath
        return try read { db in
            try OnlineBackup(source: db, sourcePath: sourcePath, outputPath: path, overwrite: overwrite, key: key, options: options).run()
        }
    }

    /// The `async` form of `backup(to:key:overwrite:options:)`: suspends instead of blocking
    /// the caller's thread; a task cancelled before the backup starts gets `CancellationError`,
    /// and one cancelled during the copy stops it (``DatabaseFileError/cancelled``), leaving no file.
    @discardableResult
    public func backup(to path: String, key: DatabaseKey?, overwrite: Bool = false,
                       options: DatabaseFileOptions = DatabaseFileOptions()) async throws -> DatabaseFileReport {
        let sourcePath = location.filePath
        return try await ConversionThread.cancellingWithTask(options) { options in
            try await read { db in
                do {
                    return try OnlineBackup(source: db, sourcePath: sourcePath, outputPath: path, overwrite: overwrite, key: key,
                                            options: options).run()
                } catch let error as DatabaseError where error.isInterruptionError && options.cancellation?.isCancelled == true {
                    // The cancelled task also interrupted the source's statements: the backup
                    // was cancelled, and it removed what it had written.
                    throw DatabaseFileError.cancelled
                }
            }
        }
    }
}
