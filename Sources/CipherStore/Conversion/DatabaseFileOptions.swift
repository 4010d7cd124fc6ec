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
    /// Unlike ``Configuration/prepareDatabase(_:)``, `setup` does not run on those connections:
    /// it runs on a connection of its own, to an empty in-memory database, and what it adds
    /// there with ``Connection/add(function:)`` and ``Connection/add(collation:)`` (GRDB's own
    /// included) is added to each of them. Nothing else it does reaches a file or the
    /// operation's connections: a pragma, a write, a temporary table or trigger, a trace
    /// handler stay on that in-memory connection, which is closed before the operation goes on.
    /// So it cannot read the file either: choose the functions and collations by what the app
    /// knows, not by what the database holds (``DatabasePool/changeKey(to:cipher:options:)-pydw``
    /// gives the rewrite those its own connections have).
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

    /// Gives `db` the functions and collations that what ``prepareDatabase(_:)`` added adds,
    /// run on a connection of its own to an in-memory database (see there). A connection that
    /// puts stand-ins in place of missing collations sets them up first, so that the app's
    /// collations replace them.
    func prepare(_ db: Connection) throws {
        guard !preparations.isEmpty else { return }
        let scratch = try Connection(location: .inMemory, key: nil)
        defer { try? scratch.close() }
        // Every connection opens with GRDB's functions and collations. Forgetting them (SQLite
        // keeps its own reference) leaves what the preparations add, GRDB's own included: a
        // tool's connections compare GRDB's collations through stand-ins unless given them.
        scratch.handle.hooks.functions.removeAll()
        scratch.handle.hooks.collations.removeAll()
        for prepare in preparations { try prepare(scratch) }
        for function in scratch.handle.hooks.functions.values { try db.add(function: function) }
        for collation in scratch.handle.hooks.collations.values { try db.add(collation: collation) }
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
