extension DatabaseFile {
    /// Where the encrypted schema copy of the database at `path` is kept: `path.schema`.
    public static func schemaCopyPath(forDatabase path: String) -> String {
        SchemaCopy.path(forDatabase: path)
    }

    /// Brings the schema copy beside `db`'s file up to date (schema and row counts), for a tool
    /// that wrote through a bare ``Connection``, which keeps none by itself (queues and pools
    /// do: see ``Configuration/schemaCopy``).
    ///
    /// - Parameters:
    ///   - db: a connection to an encrypted database file, outside a transaction.
    ///   - key: the key it was opened with.
    ///   - cipher: its cipher settings.
    /// - Returns: the copy's path, or `nil` when none was written (a plaintext or in-memory
    ///   database, or a file that could not be written: the copy is an aid to repair, and its
    ///   absence is not an error).
    @discardableResult
    public static func writeSchemaCopy(of db: Connection, key: DatabaseKey?, cipher: CipherSettings = .libraryDefaults) -> String? {
        guard case .file(let path) = db.location, let key, !db.isInTransaction,
              let sealingKey = try? SchemaCopyKey.forDatabase(at: path, key: key, cipher: cipher, openOn: db),
              let copy = try? SchemaCopy.capture(db, counting: true),
              (try? copy.write(forDatabase: path, key: sealingKey)) != nil else { return nil }
        return SchemaCopy.path(forDatabase: path)
    }
}
