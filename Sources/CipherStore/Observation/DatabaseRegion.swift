/// A set of tables whose changes a ``DatabaseRegionObservation`` tracks — or the whole
/// database.
///
/// ```swift
/// let region = DatabaseRegion(table: "note").union(DatabaseRegion(table: "tag"))
/// ```
///
/// A region is made of whole tables: a change to any row or column of one of them counts.
/// Table names compare without regard to case, as SQLite's do.
public struct DatabaseRegion: Sendable, Hashable, CustomStringConvertible {
    /// Lowercased table names; `nil` for the whole database.
    private var tables: Set<String>?

    /// The empty region: no change is in it.
    public init() {
        tables = []
    }

    /// The region of one table.
    public init(table: String) {
        tables = [table.lowercased()]
    }

    init(tables: Set<String>?) {
        self.tables = tables.map { Set($0.map { $0.lowercased() }) }
    }

    /// Every table of the database.
    public static let fullDatabase = DatabaseRegion(tables: nil)

    /// The lowercased table names; `nil` for the whole database.
    var tableNames: Set<String>? { tables }

    /// Whether no change is in the region.
    public var isEmpty: Bool { tables?.isEmpty ?? false }

    /// Whether every change is in the region.
    public var isFullDatabase: Bool { tables == nil }

    /// The tables of both regions.
    public func union(_ other: DatabaseRegion) -> DatabaseRegion {
        var region = self
        region.formUnion(other)
        return region
    }

    /// Adds the tables of another region.
    public mutating func formUnion(_ other: DatabaseRegion) {
        guard let mine = tables, let theirs = other.tables else {
            tables = nil
            return
        }
        tables = mine.union(theirs)
    }

    /// Whether changes of this kind may change the region.
    public func isModified(byEventsOfKind eventKind: DatabaseEventKind) -> Bool {
        contains(table: eventKind.tableName)
    }

    /// Whether this change changed the region.
    public func isModified(by event: DatabaseEvent) -> Bool {
        contains(table: event.tableName)
    }

    private func contains(table: String) -> Bool {
        guard let tables else { return true }
        return tables.contains(table.lowercased())
    }

    /// The tables, sorted, or `full database`.
    public var description: String {
        guard let tables else { return "full database" }
        return tables.isEmpty ? "empty" : tables.sorted().joined(separator: ",")
    }
}

/// Something that names a ``DatabaseRegion``: a region itself, or a request of the query
/// interface (the tables it reads).
public protocol DatabaseRegionConvertible: Sendable {
    /// The region, found with the connection's help (a request's SQL is compiled, not run).
    /// - Throws: ``DatabaseError`` when the request does not compile.
    func databaseRegion(_ db: Database) throws -> DatabaseRegion
}

extension DatabaseRegion: DatabaseRegionConvertible {
    /// The region itself.
    public func databaseRegion(_ db: Database) throws -> DatabaseRegion { self }
}

extension DatabaseRegionConvertible where Self == DatabaseRegion {
    /// Every table of the database.
    public static var fullDatabase: Self { DatabaseRegion.fullDatabase }
}

extension QueryInterfaceRequest: DatabaseRegionConvertible {
    /// The tables the request reads: those SQLite compiles its statement to open, and those of
    /// its associations. The whole database when that cannot be told exactly (see
    /// ``DatabaseObservation``).
    /// - Throws: ``DatabaseError`` when the request does not compile (an unknown column).
    public func databaseRegion(_ db: Database) throws -> DatabaseRegion {
        let sql = try makeSQL(db).sql
        // Compiled once here so that a request that cannot run says why, rather than tracking
        // the whole database.
        _ = try db.makeStatement(sql: sql)
        guard let read = ObservedRegion.tablesRead(by: [sql], in: db) else { return .fullDatabase }
        var tables = read
        var relations = [relation]
        while let next = relations.popLast() {
            tables.insert(next.table.lowercased())
            relations += next.joins.map(\.association.relation)
        }
        return DatabaseRegion(tables: tables)
    }
}

/// A region given by a closure, or any other convertible, as one type.
public struct AnyDatabaseRegionConvertible: DatabaseRegionConvertible {
    private let region: @Sendable (Database) throws -> DatabaseRegion

    /// The region `region` returns.
    public init(_ region: @escaping @Sendable (Database) throws -> DatabaseRegion) {
        self.region = region
    }

    /// The region of `region`.
    public init(_ region: some DatabaseRegionConvertible) {
        self.region = { try region.databaseRegion($0) }
    }

    /// The region.
    public func databaseRegion(_ db: Database) throws -> DatabaseRegion { try region(db) }
}
