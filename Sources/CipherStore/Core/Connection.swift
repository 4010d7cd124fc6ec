import CSQLCipher
import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One connection to a database, encrypted with SQLCipher when opened with a key.
///
/// Most apps use a ``DatabaseQueue``, which owns a connection and serializes access to it; a
/// connection is what its blocks receive.
///
/// ```swift
/// let db = try Connection(location: .file("app.db"), key: .passphrase("s3cret passphrase"))
/// try db.execute(sql: "CREATE TABLE IF NOT EXISTS note(id INTEGER PRIMARY KEY, body TEXT)")
/// try db.execute(sql: "INSERT INTO note(body) VALUES (?)", arguments: ["hello"])
/// let count = try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM note")
/// ```
///
/// Opening fails closed: it refuses a library that is not SQLCipher, and it reads the schema
/// right after keying, so a wrong key, a plaintext file opened with a key, or an encrypted file
/// opened without one fails at open with its own ``CipherStoreError``, and the file is left
/// unchanged. Passing `key: nil` opens a plaintext database on purpose (for migrations and
/// tests); it must be spelled out.
///
/// After ``close()``, every method that reaches the database throws
/// ``CipherStoreError/connectionClosed``, and the properties that cannot throw
/// (``lastInsertedRowID``, ``changesCount``, ``totalChangesCount``, ``isInTransaction``) read
/// 0 or `false`.
///
/// Not `Sendable`: use it on one thread at a time, or through a ``DatabaseQueue``.
public final class Connection {
    /// Replaced only while the connection opens (see the retry in `init(opening:)`).
    private(set) var handle: ConnectionHandle
    /// Where the database lives.
    public let location: DatabaseLocation
    /// Whether the connection was opened with a key.
    public let isEncrypted: Bool
    /// Whether the connection was opened read-only.
    public let isReadOnly: Bool
    let logger: Logger?
    /// Statements of ``cachedStatement(sql:)``; emptied by ``close()``.
    let statementCache: StatementCache
    /// The schema changes the statement cache has seen (``ConnectionHooks/schemaChangeCount``).
    private var statementCacheSchemaChangeCount: UInt64 = 0
    /// The latest `schema_version` read (by the query interface, which reads it for every
    /// request: ``columnNamesOfTable(_:)``), and the one the statement cache was last checked
    /// against: a schema changed by another connection also empties the cache.
    var observedSchemaVersion = 0
    private var statementCacheSchemaVersion = 0
    /// How many savepoints of ``inSavepoint(_:)`` are open; names the next one.
    var savepointDepth = 0
    /// The INSERT of the last record inserted into each table, reused while its columns match:
    /// kept as a statement, so a loop of inserts neither builds nor hashes its SQL. Emptied by
    /// ``close()`` with the statement cache.
    var insertStatements: [String: InsertStatement] = [:]
    /// The encoder of ``insert(_:into:)``, reused from record to record (see ``RecordEncoder``);
    /// `recordEncoderIsBusy` while it encodes, so that an insert started meanwhile takes its own.
    var recordEncoder: RecordEncoder?
    var recordEncoderIsBusy = false
    /// The columns of tables the query interface checked names against, with the
    /// `schema_version` they were read at (see ``columnNamesOfTable(_:)``).
    var tableColumns: [String: KnownColumns] = [:]
    /// The cancellation of the `async` call whose work runs on the connection now, if any
    /// (see ``interruptibly(_:)``).
    var taskCancellation: CancellationFlag?
    /// Whether a caller's block runs under ``interruptibly(_:)`` now.
    var runsInterruptibleBlock = false

    /// Opens a database.
    ///
    /// - Parameters:
    ///   - location: a file path, an in-memory or a temporary database.
    ///   - key: the key, or `nil` for a plaintext database.
    ///   - configuration: cipher settings, read-only mode, busy timeout…
    /// - Throws: ``CipherStoreError/wrongKey(path:)``, ``CipherStoreError/notEncrypted(path:)``,
    ///   ``CipherStoreError/encryptedWithoutKey(path:)``, ``CipherStoreError/notADatabase(path:detail:)``,
    ///   ``CipherStoreError/unsupportedCipherSetting(setting:sqlcipherVersion:)``,
    ///   ``CipherStoreError/sqlcipherUnavailable(sqliteVersion:)``, or ``DatabaseError``.
    public convenience init(location: DatabaseLocation, key: DatabaseKey?, configuration: Configuration = Configuration()) throws {
        var configuration = configuration
        if case .file(let path) = location, key != nil, !configuration.readOnly, FileSystem.size(path) == 0 {
            let salt = try Self.writeFirstPage(path: path, key: key, configuration: configuration)
            // A plaintext header leaves the salt out of the file: the creator's is the one to use.
            if (configuration.cipher.plaintextHeaderSize ?? 0) > 0 && configuration.cipher.salt == nil {
                configuration.cipher.salt = salt
            }
        }
        try self.init(opening: location, key: key, configuration: configuration)
    }

    /// Gives a new encrypted file its first page — and with it the salt every connection must
    /// derive its key from — before the connection that will be used is keyed.
    ///
    /// SQLCipher reads the salt from the file when a connection is keyed, and invents a random
    /// one when the file is still empty. Two connections (or processes) that key the same new
    /// file before either has written to it would each invent their own, and whichever writes
    /// second then fails with "file is encrypted or is not a database". So the first page is
    /// written under a write lock, by whoever gets there first, and the connection proper is
    /// keyed afterwards, when the salt is on disk.
    ///
    /// - Returns: the salt of the file (SQLCipher 4), which a file with a plaintext header does
    ///   not hold where SQLCipher reads it.
    @discardableResult
    private static func writeFirstPage(path: String, key: DatabaseKey?, configuration: Configuration) throws -> [UInt8]? {
        // The journal mode is set by the connection proper, once the first page exists.
        var creatorConfiguration = configuration
        creatorConfiguration.journalMode = nil
        creatorConfiguration.preparations = []
        let creator: Connection
        do {
            creator = try Connection(opening: .file(path), key: key, configuration: creatorConfiguration)
        } catch CipherStoreError.wrongKey {
            // Another connection wrote the first page, with its salt, while this one was being
            // keyed: the connection proper reads that salt (and reports a key that is really wrong).
            return nil
        }
        defer { try? creator.close() }
        do {
            try creator.beginTransaction(.immediate)
            defer { if creator.isInTransaction { try? creator.rollback() } }
            if try creator.fetchScalar(Int.self, sql: "PRAGMA page_count") == 0 {
                try creator.execute(sql: "CREATE TABLE cipherstore_first_page(x)")
                try creator.execute(sql: "DROP TABLE cipherstore_first_page")
                try creator.commit()
            }
        } catch ResultCode.SQLITE_NOTADB {
            // The same race, noticed once the write lock was ours.
        }
        return try CipherSettings.salt(in: creator)
    }

    /// Opens, checks for SQLCipher, keys, applies the settings and reads the schema.
    init(opening location: DatabaseLocation, key: DatabaseKey?, configuration: Configuration) throws {
        try configuration.validate()
        try configuration.cipher.validate()
        var sqlitePath = try location.sqlitePath()
        if key == nil && configuration.cipher != .libraryDefaults {
            throw CipherStoreError.invalidConfiguration(reason: "cipher settings were given without a key. Pass the database's key, or drop the settings for a plaintext database.")
        }
        self.location = location
        self.isEncrypted = key != nil
        self.isReadOnly = configuration.readOnly
        self.logger = configuration.logger
        self.statementCache = StatementCache(capacity: configuration.statementCacheCapacity)

        var createdPath: String?
        if case .file(let path) = location, !configuration.readOnly, !configuration.readOnlyMainDatabase {
            createdPath = FileSystem.createOwnerOnlyFileIfMissing(path)
        }
        var flags = (configuration.readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        if configuration.readOnlyMainDatabase, case .file(let path) = location {
            // Attached databases take the connection's flags; only the URI makes main read-only.
            flags |= SQLITE_OPEN_URI
            sqlitePath = Self.readOnlyURI(path: path)
        }
        do {
            handle = try Self.openHandle(sqlitePath, displayName: location.displayName, flags: flags, vfs: configuration.vfsName)
        } catch {
            if let createdPath { FileSystem.removeIfPresent(createdPath) }
            throw DatabaseError.explainingCannotOpen(error, location: location)
        }
        // Taken before the first read: a commit by another process while this connection is
        // keyed changes it (see the retry below).
        let fileBeforeKeying = location.filePath.flatMap(FileSystem.changeStamp)
        do {
            do {
                try keyAndReadSchema(key: key, configuration: configuration)
            } catch CipherStoreError.wrongKey where key != nil && Self.mayBeKeyingRace(location, before: fileBeforeKeying) {
                // SQLCipher 3.4.1 reads the salt without a lock when a connection is keyed; a
                // process committing at that instant can make a right key look wrong, rarely.
                // One fresh connection tells the two apart: a really wrong key fails again.
                // Only then: a wrong key with nobody writing costs one key derivation.
                statementCache.removeAll()
                try? handle.close()
                usleep(50_000)
                handle = try Self.openHandle(sqlitePath, displayName: location.displayName, flags: flags, vfs: configuration.vfsName)
                try keyAndReadSchema(key: key, configuration: configuration)
            }
            // Temporary files (sorts, indexes being built, temporary tables) are not
            // encrypted: they stay in memory, whatever the library's build defaults to (SQLite's
            // own default, and some SQLCipher builds', is files).
            try execute(sql: "PRAGMA temp_store = MEMORY")
            if configuration.foreignKeys, !configuration.readOnly {
                try execute(sql: "PRAGMA foreign_keys = ON")
            }
            if let mode = configuration.journalMode {
                try execute(sql: "PRAGMA journal_mode = \(mode.rawValue)")
            }
            try registerFullTextSearch()
            try addStandardFunctionsAndCollations()
            for prepare in configuration.preparations { try prepare(self) }
        } catch {
            statementCache.removeAll()
            try? handle.close()
            if let createdPath { FileSystem.removeIfPresent(createdPath) }
            logger?.debug("open failed", metadata: ["database": "\(location.displayName)", "error": "\(error)"])
            throw DatabaseError.explainingCannotOpen(error, location: location)
        }
        logger?.debug("opened", metadata: ["database": "\(location.displayName)", "encrypted": "\(isEncrypted)"])
    }

    /// Opens a database file. See ``init(location:key:configuration:)``.
    public convenience init(path: String, key: DatabaseKey?, configuration: Configuration = Configuration()) throws {
        try self.init(location: .file(path), key: key, configuration: configuration)
    }

    deinit {
        recordEncoder?.releaseContainers()
        insertStatements.removeAll()
        tableColumns.removeAll()
        statementCache.removeAll()
    }

    /// Closes the connection. Later use throws ``CipherStoreError/connectionClosed``; closing
    /// again does nothing.
    ///
    /// A statement or cursor made from the connection keeps it open: while one is alive,
    /// `close()` fails and the connection (and the statement) stay usable.
    ///
    /// - Throws: ``CipherStoreError/statementsStillAlive`` when statements or cursors made from
    ///   this connection are still alive; release them and close again.
    public func close() throws {
        insertStatements.removeAll()
        tableColumns.removeAll()
        statementCache.removeAll()
        try handle.close()
        logger?.debug("closed", metadata: ["database": "\(location.displayName)"])
    }

    // MARK: Opening

    /// Opens the file and checks that the library is SQLCipher; closes the handle on failure.
    /// `flags` include `SQLITE_OPEN_URI` only for the read-only URI a conversion builds
    /// itself (``readOnlyURI(path:)``): a path from a caller is a file name, never a URI.
    private static func openHandle(_ sqlitePath: String, displayName: String, flags: Int32, vfs: String?) throws -> ConnectionHandle {
        var pointer: OpaquePointer?
        let openCode = sqlite3_open_v2(sqlitePath, &pointer, flags, vfs)
        guard let pointer else {
            throw DatabaseError(resultCode: .SQLITE_NOMEM, message: "out of memory opening \(displayName)")
        }
        let handle = ConnectionHandle(pointer)
        do {
            try handle.check(openCode)
            sqlite3_extended_result_codes(pointer, 1)
            try requireSQLCipher(pointer)
            handle.hooks.installAuthorizer(on: pointer)
        } catch {
            try? handle.close()
            throw error
        }
        return handle
    }

    /// Keys the connection, applies the cipher settings and busy timeout, and reads the schema.
    /// Whether a wrong-key failure at open may be SQLCipher 3.4.1's race with another process's
    /// commit: only on SQLCipher 3, and only when the file changed meanwhile or a rollback
    /// journal shows a writer at work.
    static func mayBeKeyingRace(_ location: DatabaseLocation, before: [Int64]?) -> Bool {
        guard SQLCipherLibrary.sqlcipherMajorVersion == 3, let path = location.filePath else { return false }
        return FileSystem.changeStamp(path) != before || FileSystem.exists(path + "-journal")
    }

    private func keyAndReadSchema(key: DatabaseKey?, configuration: Configuration) throws {
        let db = try handle.pointer
        if let key {
            // SQLCipher stretches a passphrase when it first reads the file: counted for
            // whoever counts key derivations (tests).
            if key.kind == .passphrase { KeyDerivation.derivationCounter?.value.add(1, ordering: .relaxed) }
            let keying = try configuration.cipher.keyApplyingSaltMask(key, path: location.filePath,
                                                                      readOnly: configuration.readOnly || configuration.readOnlyMainDatabase)
            try keying.withKeyBytes { bytes in
                try handle.check(sqlite3_key_v2(db, "main", bytes.baseAddress, Int32(bytes.count)))
            }
            try applyCipherSettings(configuration.cipher, database: "main")
        }
        sqlite3_busy_timeout(db, try configuration.busyTimeoutMilliseconds())
        try readSchema(keyed: key != nil)
    }

    /// A `file:` URI that opens `path` read-only; every byte outside the unreserved set is
    /// percent-encoded, so no part of the path is read as a URI parameter.
    static func readOnlyURI(path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileSystem.currentDirectory() + "/" + path
        var encoded = ""
        for byte in absolute.utf8 {
            let character = Character(Unicode.Scalar(byte))
            if byte < 0x80, character.isLetter || character.isNumber || "/-._~".contains(character) {
                encoded.append(character)
            } else {
                encoded += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return "file:" + encoded + "?mode=ro"
    }

    private static func requireSQLCipher(_ pointer: OpaquePointer) throws {
        guard SQLCipherLibrary.cipherVersion(of: pointer) != nil else {
            throw CipherStoreError.sqlcipherUnavailable(sqliteVersion: SQLCipherLibrary.sqliteVersion)
        }
        _ = SQLCipherLibrary.logSilenced
    }

    /// Applies cipher settings to one attached database and reads each one back: SQLCipher
    /// ignores the pragmas it does not know, so a value that does not read back is refused.
    func applyCipherSettings(_ settings: CipherSettings, database: String) throws {
        _ = try handle.pointer
        try settings.validate()
        if settings.hasOwnSaltMask && database != "main" {
            throw CipherStoreError.invalidConfiguration(reason: "an HMAC salt mask other than 0x3a applies to a main database opened read-only only, not to an attached one.")
        }
        let version = SQLCipherLibrary.sqlcipherVersion ?? "?"
        let major = SQLCipherLibrary.sqlcipherMajorVersion
        let schema = Self.quoteIdentifier(database)
        for (name, value) in settings.pragmas {
            if settings.isBuiltInBehaviour(pragma: name, value: value, sqlcipherMajorVersion: major) { continue }
            // Values are integers, fixed names or hex digits (validated), never user text.
            try execute(sql: "PRAGMA \(schema).\(name) = " + (name == "cipher_salt" ? "\"x'\(value)'\"" : value))
            let readBack = try fetchOne(sql: "PRAGMA \(schema).\(name)")?[0]
            let matches: Bool
            switch readBack {
            case .integer(let int)?: matches = String(int) == value
            case .text(let text)?: matches = text == value
            default: matches = false
            }
            guard matches else {
                throw CipherStoreError.unsupportedCipherSetting(setting: "\(name) = \(value)", sqlcipherVersion: version)
            }
        }
    }

    /// Reads the schema so that a wrong key fails now, and names the failure.
    private func readSchema(keyed: Bool) throws {
        do {
            _ = try fetchOne(sql: "SELECT count(*) FROM sqlite_master")
        } catch let error as DatabaseError where error.resultCode.primaryResultCode == .SQLITE_NOTADB
                    || (keyed && error.resultCode.primaryResultCode == .SQLITE_ERROR && hasPlaintextHeader) {
            // SQLCipher 4 fails a plaintext-header file opened with the wrong key or salt with
            // SQLITE_ERROR rather than SQLITE_NOTADB.
            guard case .file(let path) = location else { throw error }
            let info = DatabaseFileInfo.inspect(path: path)
            switch (keyed, info.kind) {
            case (true, .plaintext): throw CipherStoreError.notEncrypted(path: path)
            case (true, .encrypted): throw CipherStoreError.wrongKey(path: path)
            case (false, .encrypted): throw CipherStoreError.encryptedWithoutKey(path: path)
            default: throw CipherStoreError.notADatabase(path: path, detail: info.kindDescription + ", \(info.size) bytes")
            }
        }
    }

    /// Whether the file starts with SQLCipher's plaintext header.
    private var hasPlaintextHeader: Bool {
        guard case .file(let path) = location else { return false }
        return DatabaseFileInfo.inspect(path: path).hasPlaintextHeader
    }

    // MARK: Statements

    /// Prepares a new statement, not cached. The SQL must hold exactly one statement.
    /// - Throws: ``DatabaseError`` for invalid SQL, ``CipherStoreError/invalidArguments(reason:sql:)``
    ///   when the SQL holds no statement or more than one.
    public func makeStatement(sql: String) throws -> Statement {
        let db = try handle.pointer
        if handle.hooks.recordedSQL != nil { handle.hooks.recordedSQL?.insert(sql) }
        var pointer: OpaquePointer?
        var remainderIsEmpty = true
        handle.hooks.preparing = StatementEffects()
        defer { handle.hooks.preparing = nil }
        let code = sql.withCString { cString -> Int32 in
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v2(db, cString, -1, &pointer, &tail)
            if code == SQLITE_OK, let rest = tail {
                remainderIsEmpty = Self.holdsNoStatement(rest)
            }
            return code
        }
        try handle.check(code, sql: sql)
        guard let pointer else {
            throw CipherStoreError.invalidArguments(reason: "the SQL holds no statement; pass one SQL statement", sql: sql)
        }
        let statement = Statement(handle: handle, pointer: pointer, sql: sql, effects: handle.hooks.preparing ?? .none)
        guard remainderIsEmpty else {
            throw CipherStoreError.invalidArguments(reason: "the SQL holds more than one statement; run them one by one, or use executeScript(_:) for a script without arguments", sql: sql)
        }
        return statement
    }

    /// Whether what follows a prepared statement is only `;`, white space and comments
    /// (`-- …` to the end of its line, `/* … */`).
    private static func holdsNoStatement(_ text: UnsafePointer<CChar>) -> Bool {
        var rest = text
        func byte(_ pointer: UnsafePointer<CChar>) -> UInt8 { UInt8(bitPattern: pointer.pointee) }
        while rest.pointee != 0 {
            let current = byte(rest)
            if current == UInt8(ascii: ";") || current == 0x20 || (0x09...0x0D).contains(current) {
                rest += 1
            } else if current == UInt8(ascii: "-") && byte(rest + 1) == UInt8(ascii: "-") {
                while rest.pointee != 0 && byte(rest) != 0x0A { rest += 1 }
            } else if current == UInt8(ascii: "/") && byte(rest + 1) == UInt8(ascii: "*") {
                rest += 2
                while rest.pointee != 0 && !(byte(rest) == UInt8(ascii: "*") && byte(rest + 1) == UInt8(ascii: "/")) { rest += 1 }
                if rest.pointee != 0 { rest += 2 }
            } else {
                return false
            }
        }
        return true
    }

    /// A prepared statement from this connection's cache, prepared on first use.
    ///
    /// When the cached statement is busy (running, or held by a cursor still open, read or
    /// not yet), a fresh one is returned instead, so a cursor keeps its own arguments and rows.
    /// The cache keeps ``Configuration/statementCacheCapacity`` statements and drops the least
    /// recently used one when full; a dropped statement still in use by a
    /// cursor stays valid until the cursor is released. A schema change made on this connection
    /// (`CREATE`, `DROP`, `ALTER`) empties the cache, so that `SELECT *` is prepared again with
    /// the columns the table has now. So does one made by another connection to the main or
    /// the temporary database, once a request of the query interface has seen it (each reads
    /// their schema versions); SQL written out and run before any such request, or reading an
    /// attached database, keeps the statement it had: SQLite prepares it again, but its column
    /// names stay those it had, and after a table is rebuilt with its columns in another order
    /// they name other values. Requests with associations check their columns and throw
    /// `SQLITE_SCHEMA` rather than read them at old places.
    public func cachedStatement(sql: String) throws -> Statement {
        // A statement keeps the result columns it was prepared with: after a schema change,
        // `SELECT *` is prepared again (SQLite would re-prepare it, but the statement's column
        // names would stay as they were, and a request's columns split by association with them).
        if statementCacheSchemaChangeCount != handle.hooks.schemaChangeCount || statementCacheSchemaVersion != observedSchemaVersion {
            statementCache.removeAll()
            statementCacheSchemaChangeCount = handle.hooks.schemaChangeCount
            statementCacheSchemaVersion = observedSchemaVersion
        }
        // close() empties the cache, so a hit always comes from an open connection.
        if let statement = statementCache.statement(for: sql) {
            // A miss is recorded by makeStatement.
            if handle.hooks.recordedSQL != nil { handle.hooks.recordedSQL?.insert(sql) }
            if !statement.isBusy, !statement.isHeldByCursor { return statement }
            return try makeStatement(sql: sql)
        }
        let statement = try makeStatement(sql: sql)
        statementCache.insert(statement, for: sql)
        return statement
    }

    /// Runs one statement with arguments (cached).
    /// - Throws: ``DatabaseError``, ``CipherStoreError/invalidArguments(reason:sql:)``.
    public func execute(sql: String, arguments: StatementArguments = .none) throws {
        try cachedStatement(sql: sql).execute(arguments: arguments)
    }

    /// Runs several `;`-separated statements without arguments, such as a schema script.
    /// - Throws: ``DatabaseError`` for the first statement that fails; earlier ones stay done
    ///   unless the script runs inside a transaction.
    public func executeScript(_ sql: String) throws {
        let db = try handle.pointer
        try sql.withCString { start in
            var next: UnsafePointer<CChar>? = start
            while let current = next, current.pointee != 0 {
                var pointer: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                handle.hooks.preparing = StatementEffects()
                let code = sqlite3_prepare_v2(db, current, -1, &pointer, &tail)
                let effects = handle.hooks.preparing ?? .none
                handle.hooks.preparing = nil
                let text = tail.map { String(decoding: UnsafeRawBufferPointer(start: current, count: $0 - current), as: UTF8.self) } ?? sql
                try handle.check(code, sql: text)
                next = tail
                guard let pointer else { continue }
                let statement = Statement(handle: handle, pointer: pointer, sql: text.trimmingSQLWhitespace(), effects: effects)
                try statement.execute()
            }
        }
    }

    /// A cursor over the rows of a query, read one at a time.
    public func fetchCursor(sql: String, arguments: StatementArguments = .none) throws -> RowCursor {
        try RowCursor(statement: cachedStatement(sql: sql), arguments: arguments)
    }

    /// All rows of a query.
    public func fetchAll(sql: String, arguments: StatementArguments = .none) throws -> [Row] {
        let cursor = try fetchCursor(sql: sql, arguments: arguments)
        var rows: [Row] = []
        while let row = try cursor.next() { rows.append(row) }
        return rows
    }

    /// The first row of a query, or `nil`.
    public func fetchOne(sql: String, arguments: StatementArguments = .none) throws -> Row? {
        let statement = try cachedStatement(sql: sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        let row = Row(statement: statement)
        // A write that returns rows (`INSERT … RETURNING`) commits when it ends: run it to its
        // end here, so that a failed or refused commit throws instead of vanishing in the reset.
        if !statement.isReadOnly { while try statement.step() {} }
        return row
    }

    /// The first column of the first row, converted to `T`; `nil` when there is no row or the value is NULL.
    /// - Throws: ``CipherStoreError/valueConversion(column:reason:)`` when the value does not convert.
    public func fetchScalar<T: DatabaseValueConvertible>(_ type: T.Type = T.self, sql: String, arguments: StatementArguments = .none) throws -> T? {
        guard let row = try fetchOne(sql: sql, arguments: arguments), row.count > 0, !row[0].isNull else { return nil }
        return try row.value(T.self, at: 0)
    }

    /// The rowid of the most recent successful INSERT on this connection; 0 once closed.
    public var lastInsertedRowID: Int64 {
        guard let db = try? handle.pointer else { return 0 }
        return sqlite3_last_insert_rowid(db)
    }

    /// Rows changed by the most recent INSERT, UPDATE or DELETE; 0 once closed.
    public var changesCount: Int {
        guard let db = try? handle.pointer else { return 0 }
        return Int(sqlite3_changes(db))
    }

    /// Rows changed since the connection opened; 0 once closed.
    public var totalChangesCount: Int {
        guard let db = try? handle.pointer else { return 0 }
        return Int(sqlite3_total_changes(db))
    }

    /// Whether a transaction is open; `false` once closed (closing rolls back what was open).
    public var isInTransaction: Bool {
        guard let db = try? handle.pointer else { return false }
        return sqlite3_get_autocommit(db) == 0
    }

    /// How many statements the statement cache holds now (for tests).
    var cachedStatementCount: Int { statementCache.count }
}

/// A connection belongs to one thread at a time; share it through a ``DatabaseQueue``.
@available(*, unavailable)
extension Connection: Sendable {}

extension String {
    func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }

    func trimmingSQLWhitespace() -> String {
        var text = Substring(self)
        while let last = text.last, last.isWhitespace || last == ";" { text.removeLast() }
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        return String(text)
    }
}
