/// The tables a fetch read, told by the programs SQLite compiled for its statements.
///
/// SQLite's authorizer is not enough: SQLite 3.15 (SQLCipher 3.4.1) reports no column read for
/// `SELECT count(*) FROM t` or `EXISTS (SELECT 1 FROM t)`, so a fetch could read a table
/// without it being seen. The `OpenRead` instructions of `EXPLAIN` name every b-tree a
/// statement opens (tables, indexes, views' tables); their root pages are matched against
/// `sqlite_master`.
///
/// The answer is `nil` — "every table" — whenever it cannot be exact: a statement on a virtual
/// table, on `temp` or an attached database, on a `WITHOUT ROWID` table (SQLite's update hook
/// does not report their changes, so only "any commit" catches them), on `sqlite_master`
/// (schema changes), or one that `EXPLAIN` does not take.
///
/// Each statement is explained once per connection and schema: the answers, and the schema's
/// root pages, are kept until `schema_version` changes (a fetch that runs again costs one
/// `PRAGMA schema_version`, not an `EXPLAIN` per statement and a read of `sqlite_master`).
enum ObservedRegion {
    /// What a connection learned, valid for one `schema_version`.
    final class Cache {
        fileprivate var schemaVersion: Int?
        fileprivate var schema: SchemaRoots?
        /// The tables each statement reads; `nil` for "every table".
        fileprivate var tablesBySQL: [String: Set<String>?] = [:]
        /// More statements than an app observes: past it, the cache starts over.
        fileprivate static let capacity = 512
    }

    /// The lowercased names of the tables the statements read, or `nil` for "every table".
    static func tablesRead(by statements: Set<String>, in db: Connection) -> Set<String>? {
        let cache = db.handle.hooks.observedRegions
        guard let version = try? db.fetchScalar(Int.self, sql: "PRAGMA main.schema_version") else { return nil }
        if cache.schemaVersion != version || cache.tablesBySQL.count > Cache.capacity {
            cache.schemaVersion = version
            cache.schema = try? SchemaRoots(db)
            cache.tablesBySQL.removeAll()
        }
        guard let schema = cache.schema else { return nil }
        var tables: Set<String> = []
        for sql in statements {
            let read: Set<String>?
            if let known = cache.tablesBySQL[sql] {
                read = known
            } else {
                read = (try? tablesRead(by: sql, schema: schema, db: db)) ?? nil
                cache.tablesBySQL[sql] = .some(read)
            }
            guard let read else { return nil }
            tables.formUnion(read)
        }
        // Reading no table (`PRAGMA user_version`, `SELECT 1`): no table name tells when the
        // value changes, so every commit counts.
        return tables.isEmpty ? nil : tables
    }

    private static func tablesRead(by sql: String, schema: SchemaRoots, db: Connection) throws -> Set<String>? {
        let explain = try db.makeStatement(sql: "EXPLAIN " + sql)
        guard let opcode = explain.columnIndex(named: "opcode"), let p2 = explain.columnIndex(named: "p2"),
              let p3 = explain.columnIndex(named: "p3") else { return nil }
        var tables: Set<String> = []
        while try explain.step() {
            switch explain.string(at: opcode) {
            case "OpenRead", "ReopenIdx", "OpenWrite":
                // p3 is the database: 0 is main.
                guard explain.int64(at: p3) == 0, let table = schema.table(rootPage: explain.int64(at: p2)) else { return nil }
                tables.insert(table)
            case "VOpen":
                return nil
            default:
                continue
            }
        }
        return tables
    }
}

/// Root pages of the main database's tables and indexes, and the table each belongs to.
fileprivate struct SchemaRoots {
    private var tableByRootPage: [Int64: String] = [:]

    init(_ db: Connection) throws {
        let rows = try db.fetchAll(sql: "SELECT type, tbl_name, rootpage, sql FROM main.sqlite_master WHERE rootpage > 0")
        // Changes to WITHOUT ROWID tables reach no update hook: no table name for them, nor
        // for their indexes.
        let withoutRowID = Set(try rows.compactMap { row -> String? in
            let sql = (try? row.value(String.self, at: 3))?.uppercased() ?? ""
            guard try row.value(String.self, at: 0) == "table", sql.contains("WITHOUT"), sql.contains("ROWID") else { return nil }
            return try row.value(String.self, at: 1).lowercased()
        })
        for row in rows {
            let table = (try row.value(String.self, at: 1)).lowercased()
            if withoutRowID.contains(table) { continue }
            tableByRootPage[try row.value(Int64.self, at: 2)] = table
        }
    }

    /// The table of a b-tree, or `nil` for `sqlite_master` and unknown pages.
    func table(rootPage: Int64) -> String? { tableByRootPage[rootPage] }
}
