extension DatabaseRepair {
    /// What the salvage wrote, handed from the fill step to the verify step.
    struct Salvaged {
        /// The connection that wrote the new database: its check reads the pages it still
        /// holds in its cache. The verify step closes it.
        let output: Connection
        let salvage: DatabaseSalvage.Result
        /// The page count page 1's header gives.
        let headerPageCount: Int?
        let key: DatabaseKey
        let cipher: CipherSettings
    }

    /// What the verify step returns.
    struct Checked {
        let salvage: DatabaseSalvage.Result
        let headerPageCount: Int?
        let placeholderCollations: PlaceholderCollations
    }

    /// Salvages the readable rows into the new file (the fill step of ``WholeFileWrite``).
    /// - Throws: ``RepairError/nothingReadable(path:pageCount:)`` when no page was read, or only
    ///   noise (a wrong key without an HMAC).
    static func salvageRows(_ reader: EncryptedPageReader, into file: WholeFileWrite.Context, key: DatabaseKey,
                        cipher: CipherSettings, schemaCopy: SchemaCopy.Found) throws -> Salvaged {
        let output = try Connection(path: file.temporaryPath, key: key, configuration: Configuration(cipher: cipher, foreignKeys: false))
        do {
            try output.substituteMissingCollations()
            // The app's collations replace the stand-ins: its indexes are built in its order.
            try file.options.prepare(output)
            // A journal in memory, not none: a statement that fails (an index that finds a key
            // twice in a damaged file) is rolled back, pages and all, and the repair goes on.
            // It holds only the pages the new file had before (page 1) and, for a statement,
            // the pages it changes that existed when it began.
            try output.execute(sql: "PRAGMA journal_mode = MEMORY")
            // Freed pages are left as they are, not zeroed: zeroing writes them, and the journal
            // would keep each (an index dropped when its table refuses a row). They are
            // encrypted like every page, and hold only the same file's rows.
            try output.execute(sql: "PRAGMA secure_delete = OFF")
            try output.execute(sql: "PRAGMA synchronous = OFF")
            // Pages that fit are written once, at the commit, and checked there.
            try file.options.applyPageCache(to: output)
            let total = FileSystem.size(reader.path)
            let salvage = DatabaseSalvage(pages: reader, output: output, schemaCopy: schemaCopy) { fraction in
                try file.checkCancelled()
                file.report(.copying, fraction: 0.9 * fraction, written: Int64(Double(total) * fraction), total: total)
            }
            try output.beginTransaction(.immediate)
            let result = try salvage.run()
            try output.commit()
            // Without an HMAC every page "decrypts", a wrong key's into noise: when nothing came
            // out and page 1's header fields do not read as this page size, the key is wrong (or
            // the settings are), not the file.
            var noise = false
            if let cipher = reader.cipher, cipher.hmac == nil, result.tables.allSatisfy({ $0.recoveredRows == 0 }) {
                noise = try !(reader.storedFirstPage().map { try cipher.firstPageHeaderMatches($0[...]) } ?? false)
            }
            guard !reader.readPages.isEmpty, !noise else {
                // The key is right when the schema copy opened with it: the pages are what is lost.
                if schemaCopy.copy != nil {
                    throw DatabaseFileError.damaged(path: reader.path, detail: "none of its \(reader.pageCount) pages could be read, though the key is right (the schema copy beside it opens with it)")
                }
                throw RepairError.nothingReadable(path: reader.path, pageCount: reader.pageCount)
            }
            return Salvaged(output: output, salvage: result, headerPageCount: salvage.headerPageCount, key: key, cipher: cipher)
        } catch {
            try? output.close()
            throw error
        }
    }

    /// Checks the new database on the connection that wrote it (the verify step of
    /// ``WholeFileWrite``): the integrity check, and every table's row count against the rows
    /// inserted; then closes that connection.
    /// - Returns: what was salvaged, and the new database's schema copy.
    static func check(_ salvaged: Salvaged, in file: WholeFileWrite.Context) throws -> (Checked, SchemaCopy.Pending?) {
        let output = salvaged.output
        defer { try? output.close() }
        file.report(.verifying, fraction: 0.9, written: FileSystem.size(file.temporaryPath))
        try DatabaseFile.checkIntegrity(output)
        for table in salvaged.salvage.tables {
            let count = try output.fetchScalar(Int.self, sql: "SELECT count(*) FROM \(Connection.quoteIdentifier(table.name))")
            guard count == table.recoveredRows else {
                throw DatabaseFileError.verificationFailed(detail: "table \(table.name) has \(count ?? 0) rows instead of the \(table.recoveredRows) inserted")
            }
        }
        let counts = Dictionary(salvaged.salvage.tables.map { ($0.name, $0.recoveredRows) }, uniquingKeysWith: +)
        let copy = SchemaCopy.Pending(copy: try SchemaCopy.capture(output, counting: false, rowCounts: counts),
                                      key: salvaged.key, cipher: salvaged.cipher)
        let checked = Checked(salvage: salvaged.salvage, headerPageCount: salvaged.headerPageCount,
                              placeholderCollations: try PlaceholderCollations.of(output))
        return (checked, copy)
    }
}
