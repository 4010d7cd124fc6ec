extension KeySlots {
    /// Backs up a database into a new slot database: the copy is encrypted under a new random
    /// data key, and a new slot file beside it (`OUTPUT.keys`) holds one slot, for `passphrase`.
    ///
    /// For a backup kept elsewhere under a passphrase of its own (an off-site copy), with the
    /// slot machinery of the original: `keys add`, `keys recovery` and `keys rotate` work on it.
    /// The backup is the one of ``DatabaseBackup/backup(path:key:cipher:to:newKey:overwrite:options:)-16gg8``
    /// (one committed state, verified, linked into place); the slot file is written and read
    /// back first, and removed again when the backup fails.
    ///
    /// ```swift
    /// try KeySlots.backup(path: "app.db", key: key, to: "offsite/app.db", passphrase: offsitePassphrase)
    /// let copyKey = try DatabaseKey.slots(passphrase: offsitePassphrase, path: "offsite/app.db")
    /// ```
    ///
    /// - Parameters:
    ///   - path: the database (encrypted; a slot database too, opened with its data key).
    ///   - key: its key.
    ///   - cipher: the settings it was made with; the backup keeps them.
    ///   - output: the backup's path, which must not exist, nor its slot file.
    ///   - passphrase: the backup's first passphrase.
    ///   - label: the slot's name, shown by ``list(path:)``.
    ///   - kdf: how the slot stretches the passphrase.
    ///   - options: progress, cancellation, full read-back.
    /// - Returns: the backup's report, which names its slot file (``DatabaseFileReport/slotFilePath``);
    ///   ``list(path:)`` lists its slot.
    /// - Throws: ``KeySlotError/slotFileExists(path:)`` (or ``KeySlotError/leftoverSlotFile(path:database:)``
    ///   when only the slot file of an interrupted run is there), and the errors of the backup.
    @discardableResult
    public static func backup(path: String, key: DatabaseKey, cipher: CipherSettings = .libraryDefaults, to output: String,
                              passphrase: Passphrase, label: String = "passphrase", kdf: KeySlotKDF = .default,
                              options: DatabaseFileOptions = DatabaseFileOptions()) throws -> DatabaseFileReport {
        try refusePlaintextHeader(cipher.plaintextHeaderSize)
        return try makeSlotBackup(at: output, passphrase: passphrase, label: label, kdf: kdf) { dataKey in
            try DatabaseBackup.backup(path: path, key: key, cipher: cipher, to: output, newKey: dataKey, options: options)
        }
    }

    /// A backup at `output` under a new data key, with a new slot file for `passphrase`.
    static func makeSlotBackup(at output: String, passphrase: Passphrase, label: String, kdf: KeySlotKDF,
                               backup: (DatabaseKey) throws -> DatabaseFileReport) throws -> DatabaseFileReport {
        let slotPath = slotFilePath(forDatabase: output)
        if FileSystem.exists(slotPath) && !FileSystem.exists(output) {
            throw KeySlotError.leftoverSlotFile(path: slotPath, database: output)
        }
        var (_, report) = try makeSlotDatabase(path: output, passphrase: passphrase, label: label, kdf: kdf, convert: backup)
        report.slotFilePath = slotPath
        return report
    }
}

extension DatabaseReader {
    /// Backs up the database, while the app goes on using it, into a new slot database whose
    /// slot file holds one slot for `passphrase`. See ``KeySlots/backup(path:key:cipher:to:passphrase:label:kdf:options:)-786a6``
    /// and `backup(to:key:overwrite:options:)`.
    /// - Returns: the backup's report, which names its slot file.
    @discardableResult
    public func backup(to path: String, passphrase: Passphrase, label: String = "passphrase", kdf: KeySlotKDF = .default,
                       options: DatabaseFileOptions = DatabaseFileOptions()) throws -> DatabaseFileReport {
        try KeySlots.makeSlotBackup(at: path, passphrase: passphrase, label: label, kdf: kdf) { dataKey in
            try backup(to: path, key: dataKey, options: options)
        }
    }
}
