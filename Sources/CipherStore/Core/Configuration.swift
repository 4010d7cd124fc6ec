import Logging

/// How a connection is opened.
///
/// ```swift
/// var configuration = Configuration()
/// configuration.busyTimeout = 2
/// configuration.journalMode = .wal
/// let queue = try DatabaseQueue(path: "app.db", key: key, configuration: configuration)
/// ```
public struct Configuration: Sendable {
    /// Cipher settings applied after keying; must match the file's. Ignored without a key.
    public var cipher: CipherSettings
    /// Opens the database read-only; a missing file is then an error, not created.
    public var readOnly: Bool
    /// Seconds to wait for another connection's lock before failing with `SQLITE_BUSY`.
    /// 0 fails at once.
    ///
    /// SQLite counts in milliseconds in a 32-bit integer: a negative value means 0, and
    /// anything longer than `Int32.max` milliseconds (about 24.8 days), `.infinity` included,
    /// means that longest wait. NaN is refused at open with
    /// ``CipherStoreError/invalidConfiguration(reason:)``.
    public var busyTimeout: Double
    /// Enforces foreign keys (`PRAGMA foreign_keys = ON`). On by default.
    public var foreignKeys: Bool
    /// Sets the journal mode after opening; `nil` keeps the file's.
    public var journalMode: JournalMode?
    /// How many prepared statements ``Connection/cachedStatement(sql:)`` keeps (64 by default).
    /// When the cache is full, the least recently used statement is dropped; 0 caches none.
    /// A negative value is refused at open with ``CipherStoreError/invalidConfiguration(reason:)``.
    public var statementCacheCapacity: Int
    /// Where CipherStore logs opens, closes and failures (never keys or bound values).
    public var logger: Logger?
    /// What a queue or pool keeps in the encrypted schema copy beside an encrypted database
    /// file (``SchemaCopyPolicy/schemaAndRowCounts`` by default). A ``Connection`` alone keeps none.
    public var schemaCopy: SchemaCopyPolicy = .schemaAndRowCounts
    /// What ``prepareDatabase(_:)`` added, run in order on each connection opened.
    var preparations: [@Sendable (Connection) throws -> Void] = []
    /// The SQLite VFS to open the file with; `nil` is the default one. Internal: conversions
    /// use a write-batching layer for the files they write.
    var vfsName: String?
    /// Opens the main database read-only (through a `mode=ro` URI) while databases attached
    /// later stay writable. Internal: a conversion's exporter reads its source this way, so a
    /// read-only source converts and the source is never written through it.
    var readOnlyMainDatabase = false

    /// Creates a configuration; the defaults suit most apps.
    public init(cipher: CipherSettings = .libraryDefaults, readOnly: Bool = false, busyTimeout: Double = 5,
                foreignKeys: Bool = true, journalMode: JournalMode? = nil, logger: Logger? = nil,
                statementCacheCapacity: Int = 64) {
        self.cipher = cipher
        self.readOnly = readOnly
        self.busyTimeout = busyTimeout
        self.foreignKeys = foreignKeys
        self.journalMode = journalMode
        self.logger = logger
        self.statementCacheCapacity = statementCacheCapacity
    }

    /// Adds work to run on every connection opened with this configuration, right after it is
    /// keyed and set up, before anyone uses it: for a ``DatabasePool``, on the writer and on
    /// every reader; for a ``DatabaseQueue``, on its connection. Calls add up and run in order.
    ///
    /// The place for SQL functions and collations, which belong to one connection each:
    ///
    /// ```swift
    /// var configuration = Configuration()
    /// configuration.prepareDatabase { db in
    ///     try db.add(function: slug)
    ///     try db.add(collation: localized)
    /// }
    /// let pool = try DatabasePool(path: "app.db", key: key, configuration: configuration)
    /// ```
    ///
    /// An error thrown fails the open (the connection is closed): the queue or pool is not
    /// created, or the read or write that needed a new reader throws it.
    public mutating func prepareDatabase(_ setup: @escaping @Sendable (Connection) throws -> Void) {
        preparations.append(setup)
    }

    /// ``busyTimeout`` in milliseconds for `sqlite3_busy_timeout`, clamped to `0...Int32.max`.
    /// - Throws: ``CipherStoreError/invalidConfiguration(reason:)`` when it is NaN.
    func busyTimeoutMilliseconds() throws -> Int32 {
        guard !busyTimeout.isNaN else {
            throw CipherStoreError.invalidConfiguration(reason: "busyTimeout is NaN. Give a number of seconds (0 fails at once when the database is locked).")
        }
        let milliseconds = busyTimeout * 1000
        if milliseconds <= 0 { return 0 }
        if milliseconds >= Double(Int32.max) { return Int32.max }
        return Int32(milliseconds)
    }

    /// Refuses settings that cannot work, before anything is opened.
    func validate() throws {
        _ = try busyTimeoutMilliseconds()
        guard statementCacheCapacity >= 0 else {
            throw CipherStoreError.invalidConfiguration(reason: "statementCacheCapacity is \(statementCacheCapacity). Give 0 (no cache) or more.")
        }
    }
}
