import Foundation

/// Salvage of a damaged encrypted database: every row that can still be read, written into a
/// new, verified, encrypted database.
///
/// SQLCipher encrypts and authenticates each page on its own (its own IV and HMAC), so damage
/// stays where it is: a page whose HMAC fails is lost, and every other page still decrypts with
/// the key. The repair reads the file page by page with swift-crypto, never through SQLite,
/// walks each table's b-tree from the schema, and inserts every row of every readable leaf page
/// — a row whose overflow chain lost a page is lost, not its table — with its rowid, then
/// rebuilds the indexes, views and triggers.
///
/// ```swift
/// let report = try DatabaseRepair.salvage(path: "damaged.db", key: key, to: "salvaged.db")
/// print(report.recoveredRows, report.pagesLost.count, report.score)
/// ```
///
/// What it cannot know:
/// - Without page 1 (the schema's root) and without a schema copy, rows are sorted into
///   `recovered_N` tables by their number of columns, each with an `original_rowid` column.
/// - Leaf pages cut off from their table by a lost parent page are put into the one table with
///   as many columns when page 1's freelist was read whole (so they cannot be deleted rows),
///   otherwise into `recovered_N` tables, apart from the live tables, and counted as a
///   problem: no row whose state is uncertain lands in a live table.
/// - Rows of `WITHOUT ROWID` tables (stored as index b-trees) are not recovered: the report
///   lists each as a problem, so the repair is not complete.
/// - Virtual tables are made anew, their shadow tables' rows copied, and a full-text index
///   with its documents rebuilt from them. One whose module is missing is a problem, and the
///   triggers that write to it are left out.
/// - Commits still in the database's `-wal` file are read, as SQLite would: the latest
///   committed copy of each page, from frames whose salts and checksums hold, when some of
///   them decrypt with the key and the log claims no more pages than it and the file hold. A
///   log that fails either, or holds nothing readable, is named as a problem and not read.
/// - A transaction that never committed (a hot `-journal`, left by a writer that died) is
///   rolled back as SQLite would: the journal's original page images are read in place of
///   the file's, and nothing past the database's size before the transaction.
/// - The file's first 16 bytes are its salt: if they are damaged, no page decrypts with the
///   file's salt; the salt the schema copy keeps is tried next, and a key with its salt
///   (``DatabaseKey/rawKey(_:salt:)``, as a slot database's) still reads the file.
///
/// Every count the file gives — page count, payload sizes, overflow chains, log and journal
/// sizes — is bounded by the file's size, and each overflow page is read for one cell only.
///
/// A collation the schema names and this process does not have (an app's own) is replaced by
/// a stand-in in binary order, so its tables and rows are recovered; indexes under it are
/// built in byte order, and ``RepairReport/placeholderCollations`` names them for a `REINDEX`
/// in the app.
///
/// The damaged file is only read. The new database is checked (integrity check, row counts),
/// synced and linked into place, as conversions are. A slot database repaired with its data
/// key (``DatabaseKey/slots(passphrase:path:)-6o46u``) keeps its salt, and its slot file is copied
/// beside the new database.
public enum DatabaseRepair {
    /// Reads what it can of the damaged database at `path` into a new database at `output`.
    ///
    /// - Parameters:
    ///   - path: the damaged database.
    ///   - key: its key (a passphrase, a raw key, a slot database's data key).
    ///   - cipher: the settings it was made with; each one left `nil` is the linked
    ///     SQLCipher's default.
    ///   - output: the new database, encrypted with the same settings.
    ///   - newKey: the new database's key; `nil` keeps `key`.
    ///   - overwrite: replace an existing file at `output`.
    ///   - options: progress, cancellation, and the app's collations and functions
    ///     (``DatabaseFileOptions/prepareDatabase(_:)``): indexes under a collation it adds are
    ///     built in the app's order instead of under a stand-in.
    /// - Returns: what was read and what was lost; ``RepairReport/isComplete`` tells whether
    ///   anything was lost.
    /// - Throws: ``RepairError/nothingReadable(path:pageCount:)`` (wrong key or settings),
    ///   ``RepairError/notEncrypted(path:)``, ``DatabaseFileError``, ``NotDurableError``.
    @discardableResult
    public static func salvage(path: String, key: DatabaseKey, cipher: CipherSettings = .libraryDefaults, to output: String,
                               newKey: DatabaseKey? = nil, overwrite: Bool = false,
                               options: DatabaseFileOptions = DatabaseFileOptions()) throws -> RepairReport {
        let started = Date()
        try DatabaseFile.checkExistingDatabaseFile(path)
        if DatabaseFileInfo.inspect(path: path).kind == .plaintext { throw RepairError.notEncrypted(path: path) }
        let settings = cipher.filling(from: .linkedDefaults)
        try settings.validate()
        var (pageKey, salt) = try pageKey(fileSalt: DatabaseFileInfo.salt(of: path), key: key, settings: settings)
        var reader = try EncryptedPageReader(path: path, cipher: pageCipher(pageKey: pageKey, salt: salt, settings: settings))
        var notes: [String] = []
        // The file's first 16 bytes are its salt: damaged, no page decrypts. The schema copy
        // keeps it too, for a key that does not carry its own (a passphrase, a bare raw key).
        if settings.salt == nil, (settings.plaintextHeaderSize ?? 0) == 0, (try key.kind == .passphrase || key.rawKeyBytes().salt == nil),
           let kept = SchemaCopy.storedSalt(forDatabase: path), kept != salt, !reader.anyOfFirstPagesDecrypts(16) {
            let (keptKey, _) = try Self.pageKey(fileSalt: kept, key: key, settings: settings)
            let keptReader = try EncryptedPageReader(path: path, cipher: pageCipher(pageKey: keptKey, salt: kept, settings: settings))
            if keptReader.anyOfFirstPagesDecrypts(16) {
                (pageKey, salt, reader) = (keptKey, kept, keptReader)
                notes.append("the file's first 16 bytes, its salt, are damaged: the salt its schema copy '\(SchemaCopy.path(forDatabase: path))' keeps was used")
            }
        }
        let schemaCopy = pageKey.withUnsafeBytes { SchemaCopy.read(forDatabase: path, key: SchemaCopyKey(pageKey: $0, salt: salt)) }
        guard reader.pageCount > 0 else {
            throw DatabaseFileError.damaged(path: path, detail: "it is shorter than one \(settings.pageSize ?? 0)-byte page")
        }
        // A slot database repaired with its data key keeps its salt: its slot file opens the
        // new database too.
        let write = try WholeFileWrite(
            output: output, source: path,
            publication: .newNameWithSlotFile(overwrite: overwrite, writeSlotFile: { temporaryPath in
                try DatabaseFileInfo.salt(of: temporaryPath).flatMap {
                    try KeySlotStore.copySlotFile(of: path, to: output, salt: $0, overwrite: overwrite, databaseSaltDamaged: true)
                }
            }),
            options: options, started: started, nowOnDisk: { "'\(output)' holds the salvaged database" },
            nextStep: "Check the disk (`dmesg`) and run `sync` once it is healthy, or run the repair again.")

        var walProblems = reader.refusals
        if FileSystem.size(path + "-wal") > 32, reader.wal == nil, reader.refusals.isEmpty {
            // A log with no committed frame that reads: anything in it is not in the new database.
            walProblems.append("'\(path)-wal' (\(FileSystem.size(path + "-wal")) bytes) holds no commit that could be read: if it held commits, they are not in the new database")
        }
        // The new file has SQLCipher's current HMAC: 2.0's variants describe how the damaged one is read.
        var outputSettings = settings.forWriting
        if (settings.plaintextHeaderSize ?? 0) == 0 { outputSettings.salt = nil }
        let written = try write.run(
            fill: { file in try salvageRows(reader, into: file, key: newKey ?? key, cipher: outputSettings, schemaCopy: schemaCopy) },
            verify: { salvaged, file in try check(salvaged, in: file) })
        let result = written.value
        // Pages page 1's header says the database has and the file no longer holds (cut short,
        // or a damaged header: either way not read) are counted, not listed: the header's
        // number is not bounded by anything on disk.
        let missingAtEnd = max(0, (result.headerPageCount ?? 0) - reader.pageCount)
        let pagesLost = reader.lostPages.map(Int.init).filter { $0 <= reader.pageCount }.sorted()
        if let journal = reader.journal {
            notes.append("'\(path)-journal' held a transaction that never committed: its \(journal.images.count) page images were read in place of the file's pages (rolled back), as SQLite would at its next open")
        }
        var report = RepairReport(outputPath: output, pageCount: reader.pageCount + missingAtEnd, pagesRead: reader.readPages.count,
                            pagesLost: pagesLost, schemaRecovered: result.salvage.schemaRecovered,
                            schemaCopyTaken: schemaCopy.copy?.taken, schemaFromCopy: result.salvage.usedSchemaCopy,
                            tables: result.salvage.tables, problems: walProblems + result.salvage.problems,
                            slotFilePath: written.published.slotFile, schemaCopyPath: written.schemaCopyPath, seconds: written.seconds,
                            removedSideFiles: written.published.sideFiles.removed)
        report.sideFilesMovedAside = written.published.sideFiles.movedAside.map(\.to)
        report.pagesMissingAtEnd = missingAtEnd
        report.sizeFromLog = reader.wal != nil
        report.notes = notes + result.salvage.notes
        report.placeholderCollations = result.placeholderCollations
        return report
    }

    /// The page cipher for a file: the key (a passphrase stretched once, with the salt the key
    /// or the settings carry, else the file's first 16 bytes) and the settings' page size and HMAC.
    static func pageCipher(fileSalt: [UInt8]?, key: DatabaseKey, settings: CipherSettings) throws -> PageCipher {
        let (pageKey, salt) = try pageKey(fileSalt: fileSalt, key: key, settings: settings)
        return try pageCipher(pageKey: pageKey, salt: salt, settings: settings)
    }

    private static func pageCipher(pageKey: SecureBytes, salt: [UInt8], settings: CipherSettings) throws -> PageCipher {
        let keys = try pageKey.withUnsafeBytes {
            try PageCipher.Keys(key: $0, salt: salt, kdfAlgorithm: settings.kdfAlgorithm ?? .sha1,
                                hmacSaltMask: settings.hmacSaltMask ?? PageCipher.defaultHMACSaltMask,
                                hmacKDFIterations: settings.hmacKDFIterations ?? PageCipher.defaultHMACKDFIterations)
        }
        let headerSize = settings.plaintextHeaderSize ?? 0
        return PageCipher(keys: keys, pageSize: settings.pageSize ?? SQLCipherLibrary.defaultPageSize,
                          hmac: settings.useHMAC == false ? nil : settings.hmacAlgorithm ?? .sha1, headerSize: headerSize == 0 ? 16 : headerSize,
                          pageNumberByteOrder: settings.hmacPageNumberByteOrder ?? .littleEndian)
    }

    /// The 32 bytes pages are encrypted with (a passphrase stretched once) and the salt: the
    /// key's, the settings', else the file's first 16 bytes.
    private static func pageKey(fileSalt: [UInt8]?, key: DatabaseKey, settings: CipherSettings) throws -> (key: SecureBytes, salt: [UInt8]) {
        let keySalt = key.kind == .passphrase ? nil : try key.rawKeyBytes().salt
        let headerSize = settings.plaintextHeaderSize ?? 0
        guard let salt = keySalt ?? settings.salt ?? (headerSize == 0 ? fileSalt : nil) else {
            throw CipherStoreError.invalidConfiguration(reason: "the file is shorter than its 16-byte salt, or has a plaintext header and no salt was given")
        }
        let pageKey: DatabaseKey
        if key.kind == .passphrase {
            guard let derived = try SharedKeyDerivation.rawKeyWithSalt(for: key, salt: salt, cipher: settings) else {
                throw CipherStoreError.invalidKey(reason: "the passphrase could not be stretched with these settings")
            }
            pageKey = derived
        } else {
            pageKey = key
        }
        return (try pageKey.rawKeyBytes().key, salt)
    }

    /// The page reader, the b-tree and the record parsers over an image in memory, for the
    /// fuzzer: every page read (with `key`, or taken as decrypted already without one), every
    /// table leaf's rows decoded, overflow chains followed.
    /// - Returns: the rows decoded.
    @_spi(Fuzzing)
    public static func decodeRows(inImage image: [UInt8], key: DatabaseKey?) throws -> Int {
        let settings = CipherSettings.libraryDefaults.filling(from: .linkedDefaults)
        let pageSize = settings.pageSize ?? SQLCipherLibrary.defaultPageSize
        let cipher = try key.map { try pageCipher(fileSalt: image.count >= 16 ? Array(image.prefix(16)) : nil, key: $0, settings: settings) }
        let reader = EncryptedPageReader(image: image, pageSize: pageSize, cipher: cipher)
        guard reader.pageCount > 0 else { return 0 }
        var rows = 0
        for number in 1...UInt32(reader.pageCount) {
            guard let data = try reader.page(number), let node = BTreePage(data, number: number), node.kind == .tableLeaf else { continue }
            for cell in node.cells {
                if let payload = try reader.payload(of: cell, visit: { _ in }), RecordFormat.values(payload) != nil { rows += 1 }
            }
        }
        return rows
    }

    /// The whole salvage — schema finding, freelist, b-tree walks, orphan leaves, overflow
    /// chains, rows inserted, indexes created — over decrypted pages in memory and an
    /// optional WAL file, into an in-memory database: the structure-aware fuzzer's entry point.
    /// Everything is written in one transaction that is rolled back, so one connection (an
    /// in-memory database) serves run after run.
    /// - Returns: the rows salvaged and the problems reported.
    @_spi(Fuzzing)
    public static func salvage(image: [UInt8], log: [UInt8]?, pageSize: Int, into output: Connection) throws -> (rows: Int, problems: Int) {
        let reader = EncryptedPageReader(image: image, log: log, pageSize: pageSize, cipher: nil)
        guard reader.pageCount > 0 else { return (0, 0) }
        let salvage = DatabaseSalvage(pages: reader, output: output, schemaCopy: .none) { _ in }
        // As the repair's own output: a collation the schema names and the tool lacks gets a stand-in.
        try output.substituteMissingCollations()
        try output.beginTransaction(.immediate)
        defer { try? output.rollback() }
        let result = try salvage.run()
        return (result.tables.reduce(0) { $0 + $1.recoveredRows }, result.problems.count)
    }

    /// SQLite's WAL checksum (32-bit words, little-endian for the magic 0x377f0682), for the
    /// fuzzer and the tests that craft a log: checksums need no key.
    @_spi(Fuzzing)
    public static func walChecksum(_ bytes: ArraySlice<UInt8>, from start: (UInt32, UInt32)) -> (UInt32, UInt32) {
        WALIndex.checksum(bytes, bigEndian: false, from: start)
    }

    /// The WAL reader over a log in memory, for the fuzzer, with the linked SQLCipher's
    /// default page size.
    /// - Returns: the committed frames found, or `nil` for a log with none.
    @_spi(Fuzzing)
    public static func committedFrames(inLog log: [UInt8]) -> Int? {
        WALIndex(bytes: log, pageSize: SQLCipherLibrary.defaultPageSize)?.frameCount
    }
}
