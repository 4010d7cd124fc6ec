/// Whole-file operations: encrypt a plaintext database, decrypt one, change the key (and
/// cipher settings), verify, and inspect.
///
/// Every conversion takes its arguments in one order: the source's `path`, then keys and
/// cipher settings (old before new), then the destination (`to:`), then `options`.
///
/// Every conversion writes a new file beside its output, checks it against the source
/// (`integrity_check`, schema, every row with its rowid, `sqlite_sequence`, `user_version`,
/// `application_id`, `auto_vacuum`), syncs it, and only then moves it into place with one
/// atomic rename, followed by a sync of the directory. The integrity check runs on the pages
/// the conversion wrote, in memory; ``DatabaseFileOptions/fullReadBack`` adds one that reads
/// every page back from the file. A crash at any moment leaves either the
/// complete original or the complete, verified result; a leftover temporary file from a
/// crashed run is removed by the next run. While it reads, the source is locked against
/// writers (`BEGIN IMMEDIATE` on a second connection), so the copy is one consistent snapshot;
/// WAL frames not yet checkpointed are part of it.
///
/// ```swift
/// let key = try DatabaseKey.passphrase("new secret")
/// let report = try DatabaseFile.encrypt(path: "legacy.db", key: key, to: .file("app.db"))
/// print(report.verification.tables)
/// ```
///
/// Key rotation never uses `sqlite3_rekey` in place: in SQLCipher 3.4.1 it reports success
/// when it did nothing and can leave a file that opens with neither key. It rewrites the file
/// instead, with the same guarantees as encryption.
public enum DatabaseFile {
    /// Encrypts a plaintext database.
    ///
    /// ```swift
    /// try DatabaseFile.encrypt(path: "legacy.db", key: key, to: .file("app.db"))
    /// ```
    ///
    /// - Parameters:
    ///   - path: the plaintext source.
    ///   - key: the new key.
    ///   - cipher: cipher settings of the result; each setting left `nil` is the linked
    ///     SQLCipher's default (1024-byte pages on SQLCipher 3, 4096 on SQLCipher 4), so the
    ///     result opens with its key alone, in the `sqlcipher` shell and with
    ///     ``CipherSettings/libraryDefaults``. To keep the source's page size instead, pass it
    ///     (``DatabaseFileInfo/plaintextPageSize``, from ``inspect(path:)``): the result then
    ///     opens only with that page size given.
    ///   - destination: a new file, or in place.
    ///   - options: progress, cancellation, busy timeout.
    /// - Throws: ``DatabaseFileError``, ``CipherStoreError``, ``DatabaseError``; the source is unchanged.
    @discardableResult
    public static func encrypt(path: String, key: DatabaseKey, cipher: CipherSettings = .libraryDefaults,
                               to destination: OutputDestination, options: DatabaseFileOptions = DatabaseFileOptions()) throws -> DatabaseFileReport {
        try DatabaseConverter(
            sourcePath: path, source: .init(key: nil, cipher: .libraryDefaults),
            target: .init(key: key, cipher: cipher), destination: destination, options: options
        ).run()
    }

    /// Decrypts an encrypted database into a plaintext one, with the source's page size.
    ///
    /// ```swift
    /// try DatabaseFile.decrypt(path: "app.db", key: key, to: .file("plain.db"))
    /// ```
    ///
    /// - Parameters:
    ///   - path: the encrypted source.
    ///   - key: the source's key.
    ///   - cipher: the source's cipher settings.
    ///   - destination: a new file, or in place.
    ///   - options: progress, cancellation, busy timeout.
    /// - Throws: ``DatabaseFileError``, ``CipherStoreError`` (wrong key…), ``DatabaseError``; the source is unchanged.
    @discardableResult
    public static func decrypt(path: String, key: DatabaseKey, cipher: CipherSettings = .libraryDefaults,
                               to destination: OutputDestination, options: DatabaseFileOptions = DatabaseFileOptions()) throws -> DatabaseFileReport {
        try DatabaseConverter(
            sourcePath: path, source: .init(key: key, cipher: cipher),
            target: .init(key: nil, cipher: .libraryDefaults), destination: destination, options: options
        ).run()
    }

    /// Changes the key of an encrypted database, optionally with new cipher settings (page
    /// size, KDF iterations), by rewriting it. Blocks the calling thread; in `async` code, the
    /// `async` form does not.
    ///
    /// Each setting of `newCipher` left `nil` is the source's: by default the result keeps the
    /// source's page size, KDF iterations and HMAC use (``DatabaseFileReport/verification`` says
    /// which it has), so a key change never weakens the KDF silently.
    ///
    /// - Throws: ``DatabaseFileError``, ``CipherStoreError`` (wrong old key…), ``DatabaseError``; the source is unchanged.
    @available(*, noasync, message: "this form blocks the thread: in async code, `try await` the async form; in top-level code, where Swift picks this form even after await, move the code into an async function")
    @discardableResult
    public static func changeKey(path: String, oldKey: DatabaseKey, oldCipher: CipherSettings = .libraryDefaults,
                                 newKey: DatabaseKey, newCipher: CipherSettings = .libraryDefaults,
                                 to destination: OutputDestination = .inPlace(), options: DatabaseFileOptions = DatabaseFileOptions()) throws -> DatabaseFileReport {
        try DatabaseConverter(
            sourcePath: path, source: .init(key: oldKey, cipher: oldCipher),
            target: .init(key: newKey, cipher: newCipher), destination: destination, options: options
        ).run()
    }

    /// Upgrades a SQLCipher 3 database to SQLCipher 4's format by rewriting it: the same
    /// verified, atomic conversion as ``changeKey(path:oldKey:oldCipher:newKey:newCipher:to:options:)-1h48f``,
    /// read with SQLCipher 3's settings and written with SQLCipher 4's.
    ///
    /// SQLCipher's own `PRAGMA cipher_migrate` is not used: it rewrites the file in place and
    /// checks nothing. Here the result is verified against the source (schema, every row with its rowid,
    /// `sqlite_sequence`, `user_version`, `application_id`; triggers and FTS tables are part of
    /// the schema) before it replaces anything, and a crash leaves the complete old file or the
    /// complete new one.
    ///
    /// ```swift
    /// let key = try DatabaseKey.passphrase("secret")
    /// try DatabaseFile.upgrade(path: "app.db", key: key)  // in place
    /// let db = try Connection(path: "app.db", key: key)          // SQLCipher 4's defaults
    /// ```
    ///
    /// - Parameters:
    ///   - path: the SQLCipher 3 database.
    ///   - key: the database's key; by default also the key of the result.
    ///   - oldCipher: the source's settings; each one left `nil` is SQLCipher 3's default
    ///     (give a custom page size or KDF iteration count the file was made with).
    ///   - newKey: another key for the result, or `nil` to keep `key`.
    ///   - newCipher: the result's settings; each one left `nil` is SQLCipher 4's default.
    ///   - destination: a new file, or in place (the default).
    ///   - options: progress, cancellation, busy timeout.
    /// - Throws: ``CipherStoreError/sqlcipher4Required(operation:sqlcipherVersion:)`` when the
    ///   linked SQLCipher is 3.x (checked before the file is touched), and the errors of a key
    ///   change (``CipherStoreError/wrongKey(path:)`` when the key or the source's settings are
    ///   wrong…); the source is unchanged.
    @discardableResult
    public static func upgrade(path: String, key: DatabaseKey, oldCipher: CipherSettings = .sqlcipher3,
                               newKey: DatabaseKey? = nil, newCipher: CipherSettings = .sqlcipher4,
                               to destination: OutputDestination = .inPlace(), options: DatabaseFileOptions = DatabaseFileOptions()) throws -> DatabaseFileReport {
        guard SQLCipherLibrary.sqlcipherMajorVersion >= 4 else {
            throw CipherStoreError.sqlcipher4Required(operation: "Upgrading '\(path)' to SQLCipher 4's format",
                                                      sqlcipherVersion: SQLCipherLibrary.sqlcipherVersion ?? "none")
        }
        return try changeKey(path: path, oldKey: key, oldCipher: oldCipher.filling(from: .sqlcipher3),
                             newKey: newKey ?? key, newCipher: newCipher.filling(from: .sqlcipher4),
                             to: destination, options: options)
    }

    /// Opens a database with its key (or none, for plaintext), runs `PRAGMA integrity_check`
    /// and reports its tables and row counts. Never writes, and leaves no file behind.
    ///
    /// - Throws: ``CipherStoreError`` (wrong key…), ``DatabaseFileError/damaged(path:detail:)``
    ///   when the integrity check finds damage or the file is not a whole number of pages,
    ///   ``DatabaseFileError/sourceMissing(path:)``.
    public static func verify(path: String, key: DatabaseKey?, cipher: CipherSettings = .libraryDefaults) throws -> VerificationReport {
        try checkExistingDatabaseFile(path)
        let db: Connection
        do {
            db = try openForReading(path: path, key: key, cipher: cipher)
        } catch let error as DatabaseError where error.resultCode.primaryResultCode == .SQLITE_CORRUPT
                    || error.message?.hasPrefix("malformed database schema") == true {
            // The key opened the first page; what follows it is damaged (or missing), or a newer SQLite's.
            throw DatabaseFileError.openingFailed(path: path, error)
        }
        defer { try? db.close() }
        return try reportingDamage(path: path) {
            try DatabaseFileOptions().applyPageCache(to: db)
            try checkWholePages(db, path: path)
            let notChecked = try checkIntegrity(db)
            var report = try verificationReport(db, path: path, snapshot: DatabaseSnapshot.capture(db), functionsNotChecked: notChecked)
            report.unrecognizedSideFiles = DatabaseSideFiles.suffixes.map { path + $0 }
                .filter { $0.hasSuffix("-wal") || $0.hasSuffix("-journal") }.filter(SideFileHeader.isForeign)
            return report
        }
    }

    /// Runs `body`, which reads the database at `path` through a connection whose key was
    /// checked at open, reporting what it finds damaged as ``DatabaseFileError/damaged(path:detail:)``:
    /// a failed integrity check, and a page SQLite cannot read (which the integrity check itself
    /// may stop at before it can list it; SQLCipher 3 reports a page failing its HMAC as a bare
    /// "SQL logic error").
    static func reportingDamage<T>(path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch DatabaseFileError.verificationFailed(let detail) {
            throw DatabaseFileError.damaged(path: path, detail: detail)
        } catch let error as DatabaseError where CorruptionWatch.isDamage(error) {
            throw DatabaseFileError.damaged(path: path, detail: "SQLite stopped reading it: \(error.message ?? "database disk image is malformed")")
        }
    }

    /// Opens an existing database the way `verify` does — never creating one — after the checks
    /// every command makes: the path names a regular, non-empty file, and (once the key is
    /// checked) it holds whole pages. For tools that run a caller's SQL on a file: the
    /// connection refuses `ATTACH` and `DETACH` (an `ATTACH` would create a file, and
    /// `ATTACH … KEY` puts a key into SQL text), and a schema it cannot read is
    /// ``DatabaseFileError/unreadableSchema(path:detail:)`` (made by a newer SQLite) or
    /// ``DatabaseFileError/damaged(path:detail:)``.
    ///
    /// - Parameters:
    ///   - path: the database file.
    ///   - key: its key, or `nil` for a plaintext file.
    ///   - cipher: the cipher settings it was made with.
    ///   - writable: open read-write (foreign keys on) instead of read-only (``openForReading(path:key:cipher:)``).
    /// - Throws: ``DatabaseFileError`` (`sourceMissing`, `sourceIsDirectory`, `notARegularFile`,
    ///   `sourceEmpty`, `damaged`) and the errors of ``Connection/init(path:key:configuration:)``.
    public static func openExisting(path: String, key: DatabaseKey?, cipher: CipherSettings = .libraryDefaults,
                                    writable: Bool = false) throws -> Connection {
        try checkExistingDatabaseFile(path)
        let db: Connection
        do {
            db = writable
                ? try Connection(path: path, key: key, configuration: Configuration(cipher: cipher, foreignKeys: true))
                : try openForReading(path: path, key: key, cipher: cipher)
        } catch let error as DatabaseError where error.resultCode.primaryResultCode == .SQLITE_CORRUPT {
            throw DatabaseFileError.openingFailed(path: path, error)
        }
        db.handle.hooks.refusesAttach = true
        do {
            try checkWholePages(db, path: path)
        } catch {
            try? db.close()
            throw error
        }
        return db
    }

    /// Refuses a path that is not a regular, non-empty file, before SQLite would create or
    /// misread it (and before a tool asks for a key).
    /// - Throws: ``DatabaseFileError`` (`sourceMissing`, `sourceIsDirectory`, `notARegularFile`, `sourceEmpty`).
    public static func checkExistingDatabaseFile(_ path: String) throws {
        let info = DatabaseFileInfo.inspect(path: path)
        switch info.kind {
        case .missing: throw DatabaseFileError.sourceMissing(path: path)
        case .directory: throw DatabaseFileError.sourceIsDirectory(path: path)
        case .notARegularFile: throw DatabaseFileError.notARegularFile(path: path, fileType: info.specialFileType ?? "a special file")
        case .empty: throw DatabaseFileError.sourceEmpty(path: path)
        default: break
        }
    }

    /// Opens a database for reading only, so that it leaves no file behind (as
    /// ``verify(path:key:cipher:)-barc`` and `cipherstore query` do). Statements that would write
    /// fail with `SQLITE_READONLY`.
    ///
    /// A read-only connection to a WAL database creates `-wal` and `-shm` files and, being
    /// read-only, never removes them. So while no log exists, it reads through a writable
    /// connection with `PRAGMA query_only`, which writes nothing and, as the last connection to
    /// close, removes the log files it made. When a log already exists (another connection, or
    /// a crashed one, owns it), or the file is not writable, the connection is read-only.
    /// A log index (`-shm`) that such a read-only connection had to create is removed when it
    /// closes, unless another connection or process has the database open by then: the folder
    /// is left as it was found.
    ///
    /// A collation the schema names and the connection does not have (an app's own) is
    /// replaced, when a statement needs it, by a stand-in in binary order, named in
    /// ``Connection/placeholderCollations``: the file still reads, with ordering and
    /// comparisons on those columns in byte order.
    ///
    /// - Throws: the errors of ``Connection/init(path:key:configuration:)``.
    public static func openForReading(path: String, key: DatabaseKey?, cipher: CipherSettings = .libraryDefaults) throws -> Connection {
        // A file with SQLCipher 2.0.0's HMAC salt mask opens read-only only (see CipherSettings.hmacSaltMask).
        let readOnly = FileSystem.exists(path + "-wal") || !FileSystem.isWritableDatabase(path) || cipher.hasOwnSaltMask
        let indexMissing = readOnly && !FileSystem.exists(path + "-shm")
        let db = try Connection(path: path, key: key, configuration: Configuration(cipher: cipher, readOnly: readOnly, foreignKeys: false))
        if indexMissing { db.handle.afterClose = { DatabaseSideFiles.removeIndexIfUnused(beside: path) } }
        do {
            if !readOnly { try db.execute(sql: "PRAGMA query_only = ON") }
            try db.substituteMissingCollations()
        } catch {
            try? db.close()
            throw error
        }
        return db
    }

    /// Removes the temporary files that conversions writing to `destination` left behind when
    /// their process died (SIGKILL, a crash, a power cut), with their journals. A temporary file
    /// of a conversion still running is kept.
    ///
    /// Every conversion does this itself before it starts, and lists what it removed in
    /// ``DatabaseFileReport/removedLeftovers``; call this first to learn it even when the
    /// conversion then fails (a wrong key, say). For a decryption, such a leftover is plaintext.
    ///
    /// - Parameters:
    ///   - source: the conversion's source; in place, the output is this file (a symbolic link is followed).
    ///   - destination: where the conversion writes.
    /// - Returns: the paths removed.
    @discardableResult
    public static func removeLeftoverTemporaryFiles(source: String, destination: OutputDestination) -> [String] {
        switch destination {
        case .file(let path, _):
            return TemporaryFiles.removeLeftovers(for: path)
        case .inPlace:
            let target = FileSystem.isSymbolicLink(source) ? FileSystem.resolvingLinks(source) ?? source : source
            return TemporaryFiles.removeLeftovers(for: target)
        }
    }

    /// What a file is, from its first bytes, without a key. See ``DatabaseFileInfo``.
    public static func inspect(path: String) -> DatabaseFileInfo {
        DatabaseFileInfo.inspect(path: path)
    }

    /// Runs `PRAGMA integrity_check` on one schema of `db`.
    ///
    /// On a connection that replaced missing collations with stand-ins in binary order
    /// (``Connection/placeholderCollations``), what the check reports about the indexes whose
    /// keys use them is set aside: built in the app's order, their entries look missing in byte
    /// order. When that fills SQLite's limit of reported problems, others could hide behind
    /// them, so `PRAGMA quick_check` (everything but index contents) must pass as well.
    ///
    /// SQLite 3.44 and later also check full-text indexes, but cannot check one that keeps no
    /// documents (FTS4 with `content=''`): "unable to validate the inverted index" is all they
    /// say of it, on an intact file too. That line is set aside.
    ///
    /// An index on an expression or a constraint that calls a function the app registers and
    /// `db` lacks stops the integrity check: `PRAGMA quick_check` (everything but index
    /// contents), without CHECK constraints, runs instead, and the function is returned.
    ///
    /// With `naming` (a file the operation did not build: a backup's source pages, a restore's
    /// backup), problems found only in indexes under collations the app gave the connection
    /// throw ``DatabaseFileError/indexesNotInAppOrder(path:indexes:detail:)`` under that path:
    /// the app's collation may order otherwise than the one the file was built with. Not when
    /// the problems reach SQLite's limit and the quick check finds more: other problems could
    /// hide behind them (the message then says that other indexes went unchecked).
    ///
    /// - Returns: the functions whose indexes the check could not compare with their tables.
    /// - Throws: ``DatabaseFileError/verificationFailed(detail:)`` with a summary of the problems
    ///   found; ``DatabaseFileError/missingFunction(path:function:)`` when even the quick check
    ///   needs the function.
    @discardableResult
    static func checkIntegrity(_ db: Connection, schema: String = "main", namingAppCollationsFor naming: String? = nil) throws -> [String] {
        func check(_ pragma: String) throws -> [String] {
            try db.fetchAll(sql: "PRAGMA \(schema).\(pragma)").map { try $0.value(String.self, at: 0) }
        }
        var notChecked: [String] = []
        let rows: [String]
        do {
            rows = try check("integrity_check")
        } catch let error as DatabaseError where error.missingFunctionName != nil {
            notChecked = [error.missingFunctionName ?? ""]
            // SQLite 3.31 and later check CHECK constraints in the quick check too.
            try db.execute(sql: "PRAGMA ignore_check_constraints = ON")
            defer { try? db.execute(sql: "PRAGMA ignore_check_constraints = OFF") }
            do {
                rows = try check("quick_check")
            } catch let error as DatabaseError where error.missingFunctionName != nil {
                throw DatabaseFileError.missingFunction(path: db.location.displayName, function: error.missingFunctionName ?? "")
            }
        }
        guard rows != ["ok"] else { return notChecked }
        let uncheckable = try contentlessFullTextTables(db, schema: schema).map {
            "unable to validate the inverted index for FTS4 table \(schema).\($0):"
        }
        func checkable(_ problems: [String]) -> [String] {
            problems.filter { problem in !uncheckable.contains { problem.hasPrefix($0) } }
        }
        let unchecked = Set(schema == "main" ? try db.indexes() : [])
        let problems = integrityProblems(rows)
        let others = checkable(problems).filter { problem in indexName(in: problem).map { !unchecked.contains($0) } ?? true }
        guard others.isEmpty else {
            if let naming, schema == "main" {
                let appIndexes = Set(try db.indexes(usingCollations: db.addedCollations.map(\.name)))
                let named = others.map { indexName(in: $0).flatMap { appIndexes.contains($0) ? $0 : nil } }
                // At SQLite's limit, others could hide behind them: only if the quick check
                // (all but index contents) passes, and the message says what is left unchecked.
                let atLimit = problems.count >= integrityCheckLimit
                let quickCheckPasses = atLimit ? try check("quick_check") == ["ok"] : true
                if named.allSatisfy({ $0 != nil }), quickCheckPasses {
                    let hidden = atLimit ? "; the check stops at \(integrityCheckLimit) problems, so the contents of the other indexes were not all checked" : ""
                    throw DatabaseFileError.indexesNotInAppOrder(path: naming, indexes: Set(named.compactMap { $0 }).sorted(), detail: integritySummary(others) + hidden)
                }
            }
            throw DatabaseFileError.verificationFailed(detail: integritySummary(others))
        }
        if problems.count >= integrityCheckLimit {
            let quick = checkable(integrityProblems(try check("quick_check")))
            guard quick.isEmpty || quick == ["ok"] else { throw DatabaseFileError.verificationFailed(detail: integritySummary(quick)) }
        }
        return notChecked
    }

    /// The FTS3 and FTS4 tables of one schema that keep no documents (`content=''`).
    static func contentlessFullTextTables(_ db: Connection, schema: String) throws -> [String] {
        let quoted = Connection.quoteIdentifier(schema)
        return try db.fetchAll(sql: "SELECT name, sql FROM \(quoted).sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'")
            .compactMap { row in
                let sql = DatabaseSalvage.compactSQL(try row.value(String.self, at: 1))
                let fullText = sql.contains("USINGFTS4(") || sql.contains("USINGFTS3(")
                return fullText && (sql.contains("CONTENT=''") || sql.contains("CONTENT=\"\"")) ? try row.value(String.self, at: 0) : nil
            }
    }

    /// The number of problems `PRAGMA integrity_check` reports at most (SQLite's default).
    static let integrityCheckLimit = 100

    /// The index an integrity problem is about ("row 5 missing from index i", "wrong # of
    /// entries in index i", "non-unique entry in index i"): all that follows the message's own
    /// words, so an index name that itself holds " index " is not mistaken for another. `nil`
    /// for any other problem, which is then never set aside.
    static func indexName(in problem: String) -> String? {
        for prefix in ["wrong # of entries in index ", "non-unique entry in index "] where problem.hasPrefix(prefix) {
            return String(problem.dropFirst(prefix.count))
        }
        guard problem.hasPrefix("row "), let marker = problem.range(of: " missing from index "),
              problem[problem.index(problem.startIndex, offsetBy: 4)..<marker.lowerBound].allSatisfy(\.isNumber) else { return nil }
        return String(problem[marker.upperBound...])
    }

    /// The integrity check's problems in one line: how many, and the first three.
    ///
    /// SQLite lists up to 100 problems, several to a row, under a "*** in database main ***"
    /// heading; a damaged page range easily fills them all, and 100 lines help nobody.
    static func integritySummary(_ rows: [String]) -> String {
        let problems = integrityProblems(rows)
        let count = problems.count >= integrityCheckLimit ? "at least \(problems.count) problems"
            : problems.count == 1 ? "1 problem" : "\(problems.count) problems"
        let more = problems.count > 3 ? " (and \(problems.count - 3) more)" : ""
        return "the integrity check found \(count): " + problems.prefix(3).joined(separator: "; ") + more
    }

    /// The integrity check's rows as one problem per line, without the "*** in database main ***"
    /// headings.
    private static func integrityProblems(_ rows: [String]) -> [String] {
        rows.flatMap { $0.split(separator: "\n") }
            .map { String($0.drop(while: \.isWhitespace)) }
            .filter { !$0.isEmpty && !($0.hasPrefix("*** in database ") && $0.hasSuffix(" ***")) }
    }

    /// Refuses a file whose size is not a whole number of pages: bytes were appended to it or
    /// it was cut short, and neither SQLite nor SQLCipher notices (the page count in the header
    /// wins). Run after the key was checked, so a wrong key is reported as such first.
    ///
    /// - Throws: ``DatabaseFileError/damaged(path:detail:)``.
    static func checkWholePages(_ db: Connection, path: String) throws {
        let pageSize = Int64(try CipherSettings.inUse(by: db, encrypted: db.isEncrypted).pageSize ?? 0)
        let size = FileSystem.size(path)
        guard pageSize > 0, size % pageSize != 0 else { return }
        throw DatabaseFileError.damaged(
            path: path, detail: "its size, \(size) bytes, is not a whole number of \(pageSize)-byte pages: \(size % pageSize) bytes were appended to it or it was cut short")
    }

    /// - Parameter placeholderCollations: collations replaced by stand-ins on another
    ///   connection to the same file (a backup's copy, checked on the connection that wrote it).
    ///   - functionsNotChecked: what ``checkIntegrity(_:schema:namingAppCollationsFor:)`` returned.
    static func verificationReport(_ db: Connection, path: String, snapshot: DatabaseSnapshot,
                                   placeholderCollations: [String] = [], functionsNotChecked: [String] = []) throws -> VerificationReport {
        let settings = try CipherSettings.inUse(by: db, encrypted: db.isEncrypted)
        var report = VerificationReport(
            path: path, isEncrypted: db.isEncrypted,
            tables: snapshot.rowCounts.sorted { $0.key < $1.key }.map { .init(name: $0.key, rowCount: $0.value) },
            userVersion: snapshot.userVersion, applicationID: snapshot.applicationID,
            journalMode: try db.fetchScalar(String.self, sql: "PRAGMA journal_mode") ?? "",
            schemaObjectCount: snapshot.schema.count, pageSize: settings.pageSize ?? 0,
            kdfIterations: settings.kdfIterations,
            plaintextHeaderSalt: (settings.plaintextHeaderSize ?? 0) > 0 ? try CipherSettings.salt(in: db) : nil,
            placeholderCollations: try PlaceholderCollations.of(db, with: placeholderCollations))
        report.functionsNotChecked = functionsNotChecked
        if db.isEncrypted {
            // SQLCipher 3 reports no hashes and no header: its fixed ones.
            report.cipherSettings = settings.filling(from: SQLCipherLibrary.sqlcipherMajorVersion >= 4 ? CipherSettings() : .sqlcipher3)
        }
        return report
    }
}
