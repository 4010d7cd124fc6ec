import Foundation

/// Options shared by the whole-file operations: encrypt, decrypt, key change, backup, restore
/// and repair.
public struct DatabaseFileOptions: Sendable {
    /// Called with progress from the converting thread (during verification, from a timer
    /// thread); keep it quick.
    public var progress: (@Sendable (DatabaseFileProgress) -> Void)?
    /// Set it to stop the conversion.
    public var cancellation: DatabaseFileCancellation?
    /// Seconds to wait for other connections' locks on the source before failing.
    public var busyTimeout: Double
    /// Memory for the pages of the result while it is written (SQLite page cache); by default
    /// ``defaultPageCacheBytes``: 256 MiB, or 1/32 of physical memory when that is less. A
    /// result that fits is written in one sorted pass at the end and its integrity check runs
    /// on those pages in memory; a larger one spills pages to the file as it goes, and the
    /// integrity check reads the spilled pages back (slower, see BENCHMARKS.md). Memory is
    /// taken as pages are written, so a small database uses little of it. The integrity checks
    /// of a backup's copy and of a restore's backup use a cache of the same size, and
    /// ``DatabaseFile/verify(path:key:cipher:)-barc`` one of ``defaultPageCacheBytes``.
    public var pageCacheBytes: Int
    /// Also reads back and decrypts every page of the written file, with a full
    /// `PRAGMA integrity_check` on a fresh connection, before anything is replaced. Without it
    /// the fresh connection reads the schema and every table's b-tree, but not the pages of
    /// long values (overflow pages) or of indexes, which are checked as written. Takes about
    /// as long again as the conversion.
    public var fullReadBack: Bool
    /// What ``prepareDatabase(_:)`` added, run in order on each connection a whole-file
    /// operation opens on a database (see ``prepare(_:)``).
    var preparations: [@Sendable (Connection) throws -> Void] = []

    /// The default page cache of a conversion: 256 MiB, or 1/32 of physical memory when that
    /// is less (a 4 GiB device gets 128 MiB).
    public static let defaultPageCacheBytes: Int = {
        let physical = Int(ProcessInfo.processInfo.physicalMemory)
        return physical > 0 ? min(256 << 20, physical / 32) : 64 << 20
    }()

    /// Creates options; by default no progress, no cancellation, a 2-second busy timeout, a
    /// page cache of ``defaultPageCacheBytes`` and no full read-back.
    public init(progress: (@Sendable (DatabaseFileProgress) -> Void)? = nil,
                cancellation: DatabaseFileCancellation? = nil, busyTimeout: Double = 2,
                pageCacheBytes: Int = DatabaseFileOptions.defaultPageCacheBytes, fullReadBack: Bool = false) {
        self.progress = progress
        self.cancellation = cancellation
        self.busyTimeout = busyTimeout
        self.pageCacheBytes = pageCacheBytes
        self.fullReadBack = fullReadBack
    }

    /// Adds work to run on every connection that a whole-file operation opens on a database,
    /// before it reads a row: the source and the
    /// result of ``DatabaseFile/encrypt(path:key:cipher:to:options:)-9f43n``, `decrypt`,
    /// `changeKey` and `upgrade`; the database and the copy of a backup; the backup a restore
    /// reads and the copy it writes; the new database a repair builds. Calls add up and run in
    /// order.
    ///
    /// `setup` runs on each of them as ``Configuration/prepareDatabase(_:)`` runs on an app's,
    /// so an app's own preparation can be reused as it is, reading what it needs; but nothing
    /// it does may change a file. While it runs, the connection refuses writes and schema
    /// changes outside `temp`, `ATTACH` and `DETACH` (the operation stops with that error,
    /// having written nothing), and a pragma that sets anything but how the connection waits or
    /// caches (`journal_mode`, `query_only`, `user_version`, `foreign_keys`…) does nothing: the
    /// operation keeps its own settings. Temporary tables are allowed; temporary triggers are
    /// dropped once it returns, so that the operation's writes do not fire them. A backup's copy
    /// is prepared before its pages are copied into it: it reads as an empty database there.
    ///
    /// The place for the SQL functions and collations the file's schema names: a conversion
    /// rebuilds every index, and one under a collation it lacks cannot be built in the app's
    /// order, so the conversion stops with ``DatabaseFileError/missingCollation(path:collation:)``
    /// (and ``DatabaseFileError/missingFunction(path:function:)`` for a function), changing
    /// nothing. A backup, a restore and a repair put a stand-in in binary order in place of a
    /// collation they lack and say so (``PlaceholderCollations``): with the app's own, a backup's
    /// and a restore's integrity checks also check the indexes under it, and a repair builds
    /// them in the app's order. An index that the app's collation finds out of order
    /// stops a backup or a restore with ``DatabaseFileError/indexesNotInAppOrder(path:indexes:detail:)``,
    /// which names both causes: the app's definition changed since the index was built, or
    /// damage. Give it the app's own:
    ///
    /// ```swift
    /// var options = DatabaseFileOptions()
    /// options.prepareDatabase { db in
    ///     try db.add(function: slug)
    ///     try db.add(collation: localized)
    /// }
    /// try DatabaseFile.changeKey(path: path, oldKey: oldKey, newKey: newKey, options: options)
    /// ```
    ///
    /// An error thrown stops the operation before it writes anything, and it is thrown as it is.
    public mutating func prepareDatabase(_ setup: @escaping @Sendable (Connection) throws -> Void) {
        preparations.append(setup)
    }

    /// Runs what ``prepareDatabase(_:)`` added on `db`, refusing what would change a file
    /// (``PreparationGuard``), then drops the temporary triggers it made: the operation's own
    /// writes must not fire the app's. A connection that puts stand-ins in place of missing
    /// collations sets them up first, so that the app's collations replace them.
    func prepare(_ db: Connection) throws {
        guard !preparations.isEmpty else { return }
        db.handle.hooks.runsFilePreparation = true
        do {
            defer { db.handle.hooks.runsFilePreparation = false }
            for prepare in preparations { try prepare(db) }
        }
        let triggers = try db.fetchAll(sql: "SELECT name FROM sqlite_temp_master WHERE type = 'trigger'").map { try $0.value(String.self, at: 0) }
        for trigger in triggers { try db.execute(sql: "DROP TRIGGER temp.\(Connection.quoteIdentifier(trigger))") }
    }

    /// ``prepare(_:)`` as a connection's preparation (`Configuration.preparations`).
    var connectionPreparations: [@Sendable (Connection) throws -> Void] {
        guard !preparations.isEmpty else { return [] }
        let options = self
        return [{ db in try options.prepare(db) }]
    }

    /// Gives `db`'s `schema` a page cache of ``pageCacheBytes``. Without it SQLite's default
    /// (about 2 MiB) makes an integrity check decrypt an index's pages again for each row once
    /// the file outgrows the cache: time that grows faster than the file.
    func applyPageCache(to db: Connection, schema: String = "main") throws {
        // Negative: KiB, not pages.
        try db.execute(sql: "PRAGMA \(schema).cache_size = -\(max(pageCacheBytes / 1024, 1))")
    }
}
