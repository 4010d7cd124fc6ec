import CSQLCipher
import Foundation

/// Records by primary key, in GRDB's spelling: one key, several, or every record whose key is
/// in a collection.
///
/// ```swift
/// let request = Player.filter(keys: [1, 2, 3])
/// let players = try Player.fetchAll(db, keys: [1, 2, 3])     // those that exist, in no order
/// let player = try Player.find(db, key: 1)                    // throws when there is none
/// try Player.deleteAll(db, keys: [1, 2, 3])                   // how many were deleted
/// ```
///
/// The key is the one column ``TableRecord/primaryKeyColumn``, stored as the record stores it:
/// a `UUID` or `Date` key of an ``EncodableRecord`` follows its encoding strategy for that
/// column. A `nil` key matches no record (as in GRDB), even where a primary key column allows
/// NULL. `fetchAll(_:keys:)` and `deleteAll(_:keys:)` take any number of keys (repeats count
/// once) and run one statement per 500 (SQLite 3.15 binds at most 999 values per statement);
/// `deleteAll` runs them in one savepoint, so it deletes all or nothing. `filter(keys:)` makes
/// one statement: at most 999 keys with SQLite 3.15. A key compares with the column's own
/// collation, as `WHERE id = ?` does; for a primary key declared under another collation than
/// its column's (`PRIMARY KEY (name COLLATE BINARY)` on a NOCASE column), give the key as a
/// dictionary (`fetchOne(db, key: ["name": "a"])`), which compares as the key's index does.
extension TableRecord {
    /// A request for the record with this primary key (none for `nil`).
    public static func filter(key: some DatabaseValueConvertible) -> QueryInterfaceRequest<Self> {
        let value = databaseKeyValue(key)
        return value.isNull ? none() : filter(Column(primaryKeyColumn) == value)
    }

    /// A request for the records with these primary keys (none for an empty collection).
    public static func filter<Key: DatabaseValueConvertible>(keys: some Collection<Key>) -> QueryInterfaceRequest<Self> {
        filter(Column(primaryKeyColumn).in(uniqueKeyValues(keys)))
    }

    /// The column a key of one value is compared with, in the methods that take a connection:
    /// ``primaryKeyColumn`` when it names one row, else the one-column primary key (see there).
    static func keyColumn(_ db: Connection) throws -> String {
        try db.singleKeyColumn(ofTable: databaseTableName, preferred: primaryKeyColumn)
    }

    /// A request for the record whose `column` is `key` (none for `nil`).
    static func filter(key: some DatabaseValueConvertible, column: String) -> QueryInterfaceRequest<Self> {
        let value = databaseKeyValue(key, column: column)
        return value.isNull ? none() : filter(Column(column) == value)
    }

    /// Deletes the rows with these primary keys, all or none.
    /// - Returns: how many were deleted.
    @discardableResult
    public static func deleteAll<Key: DatabaseValueConvertible>(_ db: Connection, keys: some Collection<Key>) throws -> Int {
        let column = try keyColumn(db)
        var deleted = 0
        try db.inSavepoint {
            deleted = try inChunks(uniqueKeyValues(keys, column: column)) { try filter(Column(column).in($0)).deleteAll(db) }.reduce(0, +)
            return .commit
        }
        return deleted
    }

    /// A key as the table stores it: a `UUID` or `Date` through the record's encoding strategy
    /// for the primary key column.
    static func databaseKeyValue(_ key: some DatabaseValueConvertible) -> DatabaseValue {
        databaseKeyValue(key, column: primaryKeyColumn)
    }

    /// A value of `column` as the table stores it: a `UUID` or `Date` through the record's
    /// encoding strategy for that column.
    static func databaseKeyValue(_ key: any DatabaseValueConvertible, column: String) -> DatabaseValue {
        guard let record = Self.self as? any EncodableRecord.Type else { return key.databaseValue }
        if let uuid = key as? UUID { return record.databaseUUIDEncodingStrategy(for: column).databaseValue(uuid) }
        if let date = key as? Date { return record.databaseDateEncodingStrategy(for: column).databaseValue(date) }
        return key.databaseValue
    }

    /// The keys as stored in `column` (``primaryKeyColumn`` by default), each once, without NULL.
    static func uniqueKeyValues<Key: DatabaseValueConvertible>(_ keys: some Collection<Key>, column: String = primaryKeyColumn) -> [DatabaseValue] {
        var seen: Set<DatabaseValue> = []
        return keys.map { databaseKeyValue($0, column: column) }.filter { !$0.isNull && seen.insert($0).inserted }
    }

    /// `body` of the keys, 500 at a time.
    static func inChunks<Key, Result>(_ keys: [Key], _ body: (ArraySlice<Key>) throws -> Result) rethrows -> [Result] {
        try stride(from: 0, to: keys.count, by: AssociationFetch.keysPerQuery).map {
            try body(keys[$0..<min($0 + AssociationFetch.keysPerQuery, keys.count)])
        }
    }
}

extension TableRecord where Self: FetchableRecord {
    /// The record with this primary key.
    /// - Throws: ``RecordError/recordNotFound(databaseTableName:key:)`` when there is none.
    public static func find(_ db: Connection, key: some DatabaseValueConvertible) throws -> Self {
        let column = try keyColumn(db)
        guard let record = try filter(key: key, column: column).fetchOne(db) else {
            throw RecordError.recordNotFound(databaseTableName: databaseTableName, key: [column: databaseKeyValue(key, column: column)])
        }
        return record
    }

    /// The records with these primary keys, in no particular order; keys without a record are
    /// skipped.
    public static func fetchAll<Key: DatabaseValueConvertible>(_ db: Connection, keys: some Collection<Key>) throws -> [Self] {
        let column = try keyColumn(db)
        return try fetchAllOnce(db, inChunks(uniqueKeyValues(keys, column: column)) { filter(Column(column).in($0)) })
    }

    /// A cursor over the records with these primary keys, in no particular order; keys
    /// without a record are skipped. One statement, so at most as many distinct keys as SQLite
    /// binds values to one (999 with SQLite 3.15).
    /// - Throws: ``DatabaseError`` before anything runs for more keys than that:
    ///   `fetchAll(_:keys:)` takes any number.
    public static func fetchCursor<Key: DatabaseValueConvertible>(_ db: Connection, keys: some Collection<Key>) throws -> RecordCursor<Self> {
        let column = try keyColumn(db)
        let values = uniqueKeyValues(keys, column: column)
        try checkCursorBindings(db, count: values.count)
        return try filter(Column(column).in(values)).fetchCursor(db)
    }

    /// Throws before anything runs when a cursor by keys would bind more values than SQLite
    /// binds to one statement.
    static func checkCursorBindings(_ db: Connection, count: Int) throws {
        let limit = Int(sqlite3_limit(try db.handle.pointer, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
        guard count <= limit else {
            throw DatabaseError(resultCode: .SQLITE_RANGE, message: "fetchCursor(_:keys:) reads keys of \(count) values in one statement, and SQLite binds at most \(limit) values to one; fetch them with fetchAll(_:keys:), which runs one statement per \(AssociationFetch.keysPerQuery) values; nothing was run")
        }
    }
}

extension TableRecord where Self: FetchableRecord & Hashable {
    /// The records with these primary keys, as a set.
    public static func fetchSet<Key: DatabaseValueConvertible>(_ db: Connection, keys: some Collection<Key>) throws -> Set<Self> {
        Set(try fetchAll(db, keys: keys))
    }
}

extension TableRecord where Self: Identifiable, ID: DatabaseValueConvertible {
    /// Deletes the records with these ids.
    /// - Returns: how many were deleted.
    @discardableResult
    public static func deleteAll(_ db: Connection, ids: some Collection<ID>) throws -> Int {
        try deleteAll(db, keys: ids)
    }
}

extension TableRecord where Self: FetchableRecord & Identifiable, ID: DatabaseValueConvertible {
    /// The records with these ids, in no particular order; ids without a record are skipped.
    public static func fetchAll(_ db: Connection, ids: some Collection<ID>) throws -> [Self] {
        try fetchAll(db, keys: ids)
    }

    /// A cursor over the records with these ids, in no particular order; ids without a record
    /// are skipped. See `fetchCursor(_:keys:)`.
    public static func fetchCursor(_ db: Connection, ids: some Collection<ID>) throws -> RecordCursor<Self> {
        try fetchCursor(db, keys: ids)
    }

    /// A request for the ids of the records: `Player.selectID().fetchAll(db)`.
    public static func selectID() -> QueryInterfaceRequest<ID> {
        all().selectID()
    }
}

extension TableRecord where Self: FetchableRecord & Identifiable & Hashable, ID: DatabaseValueConvertible {
    /// The records with these ids, as a set.
    public static func fetchSet(_ db: Connection, ids: some Collection<ID>) throws -> Set<Self> {
        Set(try fetchAll(db, keys: ids))
    }
}

extension QueryInterfaceRequest where RowDecoder: TableRecord & Identifiable, RowDecoder.ID: DatabaseValueConvertible {
    /// The ids of the matching records: `Player.filter(Column("score") > 100).selectID().fetchAll(db)`.
    public func selectID() -> QueryInterfaceRequest<RowDecoder.ID> {
        select(Column(RowDecoder.primaryKeyColumn), as: RowDecoder.ID.self)
    }
}

/// Records by a key of several columns, given as a dictionary, in GRDB's spelling:
///
/// ```swift
/// let membership = try Membership.fetchOne(db, key: ["teamId": 1, "playerId": 7])
/// try Membership.deleteAll(db, keys: [["teamId": 1, "playerId": 7], ["teamId": 2, "playerId": 7]])
/// ```
///
/// The columns must be the table's primary key, its rowid (`rowid`, `_rowid_` or `oid` where no
/// column takes the name), or the columns of one of its unique indexes (names compared without
/// case): otherwise "the record with this key" could be several, and the methods that take a
/// connection throw a ``DatabaseError`` before anything runs. A key with a `nil` value matches
/// no record, as a `nil` primary key does: a unique index lets many rows hold NULL, so
/// "the record whose email is NULL" is not one record. A key's values compare with the
/// collations of the unique index its columns match (`email = ? COLLATE "BINARY"` for an index
/// unique under BINARY on a NOCASE column), and `fetchAll` returns each row once even when two
/// keys SQLite takes as equal (`1` and `'1'`) fall in two statements. `UUID` and `Date` values follow the
/// record's encoding strategy for their column. `filter(key:)` and `filter(keys:)` make the
/// request without the unique-key check, and compare with the columns' own collations; they
/// are one statement (at most 999 values with SQLite 3.15); a key naming one column twice (in two cases) is
/// refused when the request runs.
extension TableRecord {
    /// A request for the record with this key.
    public static func filter(key: [String: (any DatabaseValueConvertible)?]) -> QueryInterfaceRequest<Self> {
        filter(keys: [key])
    }

    /// A request for the records with these keys (none for an empty array).
    public static func filter(keys: [[String: (any DatabaseValueConvertible)?]]) -> QueryInterfaceRequest<Self> {
        if let problem = keys.lazy.compactMap(dictionaryKeyProblem).first {
            var request = all()
            request.relation.conflicts.append(problem)
            return request
        }
        return keyRequest(keyValues(keys), uniqueKeys: [])
    }

    /// The request for stored keys; a key's values compare with the collations of the unique
    /// index its columns match (`email = ? COLLATE "BINARY"` where the index is unique under
    /// BINARY on a NOCASE column), so that the key finds the one row the index guarantees.
    static func keyRequest(_ keys: [[String: DatabaseValue]], uniqueKeys: [Connection.UniqueKey]) -> QueryInterfaceRequest<Self> {
        let conditions: [SQLExpression.Node] = keys.map { key in
            let columns = Set(key.keys.map(KnownColumns.folded))
            let collations = uniqueKeys.first { $0.columns == columns }?.collations ?? [:]
            return .balanced(key.sorted { $0.key < $1.key }.map { column, value in
                guard let collation = collations[KnownColumns.folded(column)] else { return .binary(.column(column), "=", .value(value)) }
                return .binary(.column(column), "=", .postfix(.value(value), " COLLATE " + Connection.quoteIdentifier(collation)))
            }, by: "AND")
        }
        guard !conditions.isEmpty else { return none() }
        return filter(SQLExpression(.balanced(conditions, by: "OR")))
    }

    /// Deletes the record with this key.
    /// - Returns: whether there was one.
    @discardableResult
    public static func deleteOne(_ db: Connection, key: [String: (any DatabaseValueConvertible)?]) throws -> Bool {
        try deleteAll(db, keys: [key]) > 0
    }

    /// Deletes the records with these keys, all or none.
    /// - Returns: how many were deleted.
    @discardableResult
    public static func deleteAll(_ db: Connection, keys: [[String: (any DatabaseValueConvertible)?]]) throws -> Int {
        let requests = try checkedRequests(db, keys)
        var deleted = 0
        try db.inSavepoint {
            deleted = try requests.map { try $0.deleteAll(db) }.reduce(0, +)
            return .commit
        }
        return deleted
    }

    /// Whether a record has this key.
    public static func exists(_ db: Connection, key: [String: (any DatabaseValueConvertible)?]) throws -> Bool {
        try !(checkedRequests(db, [key]).first?.isEmpty(db) ?? true)
    }

    /// The requests for the keys, in parts of at most ``AssociationFetch/keysPerQuery`` values,
    /// each key compared as its unique key's index compares.
    /// - Throws: unless every key names the primary key, the rowid or a unique index of the
    ///   table (nothing has run then).
    static func checkedRequests(_ db: Connection, _ keys: [[String: (any DatabaseValueConvertible)?]],
                                valuesPerPart: Int = AssociationFetch.keysPerQuery) throws -> [QueryInterfaceRequest<Self>] {
        if let problem = keys.lazy.compactMap(dictionaryKeyProblem).first {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: problem + "; nothing was run")
        }
        let uniqueKeys = try db.uniqueKeys(ofTable: databaseTableName)
        for key in keys {
            let columns = Set(key.keys.map(KnownColumns.folded))
            guard !uniqueKeys.contains(where: { $0.columns == columns }) else { continue }
            let known = uniqueKeys.map { "(" + $0.columns.sorted().joined(separator: ", ") + ")" }.joined(separator: ", ")
            throw DatabaseError(resultCode: .SQLITE_MISUSE,
                                message: "the columns (\(key.keys.sorted().joined(separator: ", "))) are not a unique key of \(databaseTableName), so a key may match several rows; its unique keys are \(known.isEmpty ? "none" : known); nothing was run")
        }
        let stored = keyValues(keys)
        let width = max(1, stored.map(\.count).max() ?? 1)
        let perPart = max(1, valuesPerPart / width)
        return stride(from: 0, to: stored.count, by: perPart).map {
            keyRequest(Array(stored[$0..<min($0 + perPart, stored.count)]), uniqueKeys: uniqueKeys)
        }
    }

    /// Why a dictionary key cannot name a record, or `nil` when it can.
    private static func dictionaryKeyProblem(_ key: [String: (any DatabaseValueConvertible)?]) -> String? {
        if key.isEmpty { return "a key given as a dictionary needs at least one column" }
        let names = key.keys.map(KnownColumns.folded)
        if Set(names).count < names.count {
            return "the key (\(key.keys.sorted().joined(separator: ", "))) names a column twice (names are compared without case)"
        }
        return nil
    }

    /// The keys as stored, each once (compared without case of the names), without those that
    /// hold a NULL: a NULL matches no row.
    static func keyValues(_ keys: [[String: (any DatabaseValueConvertible)?]]) -> [[String: DatabaseValue]] {
        var seen: Set<[String: DatabaseValue]> = []
        var result: [[String: DatabaseValue]] = []
        for key in keys {
            var stored: [String: DatabaseValue] = [:]
            for (column, value) in key {
                guard let value else { break }
                let databaseValue = databaseKeyValue(value, column: column)
                if databaseValue.isNull { break }
                stored[column] = databaseValue
            }
            guard stored.count == key.count else { continue }
            if seen.insert(Dictionary(stored.map { (KnownColumns.folded($0.key), $0.value) }) { first, _ in first }).inserted {
                result.append(stored)
            }
        }
        return result
    }
}

extension TableRecord where Self: FetchableRecord {
    /// The record with this key, or `nil`.
    public static func fetchOne(_ db: Connection, key: [String: (any DatabaseValueConvertible)?]) throws -> Self? {
        try checkedRequests(db, [key]).first?.fetchOne(db)
    }

    /// The record with this key.
    /// - Throws: ``RecordError/recordNotFound(databaseTableName:key:)`` when there is none.
    public static func find(_ db: Connection, key: [String: (any DatabaseValueConvertible)?]) throws -> Self {
        guard let record = try fetchOne(db, key: key) else {
            throw RecordError.recordNotFound(databaseTableName: databaseTableName,
                                             key: Dictionary(uniqueKeysWithValues: key.map { column, value in (column, value.map { databaseKeyValue($0, column: column) } ?? .null) }))
        }
        return record
    }

    /// The records with these keys, in no particular order.
    public static func fetchAll(_ db: Connection, keys: [[String: (any DatabaseValueConvertible)?]]) throws -> [Self] {
        try fetchAllOnce(db, checkedRequests(db, keys))
    }

    /// A cursor over the records with these keys, in no particular order; keys without a
    /// record are skipped. Each key names the primary key, the rowid or a unique index, as for
    /// `fetchAll(_:keys:)`; this reads them in one statement, so at most as many values as
    /// SQLite binds to one (999 with SQLite 3.15).
    /// - Throws: ``DatabaseError`` before anything runs for a key that is not unique, or more
    ///   values than that: `fetchAll(_:keys:)` takes any number.
    public static func fetchCursor(_ db: Connection, keys: [[String: (any DatabaseValueConvertible)?]]) throws -> RecordCursor<Self> {
        let request = try checkedRequests(db, keys, valuesPerPart: .max).first ?? none()
        try checkCursorBindings(db, count: keyValues(keys).reduce(0) { $0 + $1.count })
        return try request.fetchCursor(db)
    }

    /// The records the requests find, each row once: two keys SQLite takes as equal (`1` and
    /// `'1'` in an integer column, `'a'` and `'A'` under NOCASE) can sit in two parts and find
    /// the same row twice, so with several parts the rows are told apart by their rowid (or
    /// primary key).
    static func fetchAllOnce(_ db: Connection, _ requests: [QueryInterfaceRequest<Self>]) throws -> [Self] {
        guard requests.count > 1 else { return try requests.first?.fetchAll(db) ?? [] }
        let shape = try TableShape.read(databaseTableName, in: db)
        let identity = shape.rowidName.map { [$0] } ?? shape.primaryKey
        // A table whose columns take the rowid's three names and has no primary key: no row
        // identity to tell repeats apart by, so every row found is kept.
        guard !identity.isEmpty else { return try requests.flatMap { try $0.fetchAll(db) } }
        var seen: Set<[DatabaseValue]> = []
        var records: [Self] = []
        for request in requests {
            let (rows, identities) = try AssociationFetch.rows(db, request.relation, extraColumns: identity)
            guard let first = rows.first else { continue }
            let decoder = RecordDecoder(scoped: first)
            defer { decoder.releaseContainers() }
            for (row, rowIdentity) in zip(rows, identities) where seen.insert(rowIdentity).inserted {
                records.append(try decoder.decode(Self.self, scoped: row))
            }
        }
        return records
    }
}

extension Connection {
    /// Columns whose values name at most one row, and how the index that makes them unique
    /// compares each (its collation, by column name with ASCII letters lowercased, as SQLite
    /// matches names; none for the rowid and an
    /// `INTEGER PRIMARY KEY`).
    struct UniqueKey {
        let columns: Set<String>
        let collations: [String: String]
    }

    /// The table's unique keys, each once: the columns of each unique index without a
    /// condition (a primary key's or a UNIQUE constraint's included), the primary key, and the
    /// rowid's names no column takes.
    func uniqueKeys(ofTable table: String) throws -> [UniqueKey] {
        var keys: [UniqueKey] = []
        func add(_ key: UniqueKey) { if !key.columns.isEmpty, !keys.contains(where: { $0.columns == key.columns }) { keys.append(key) } }
        // The primary key's own index first: a column set unique under two collations compares
        // as its primary key does, as `WHERE id = ?` reads it.
        let indexes = try fetchAll(sql: "PRAGMA index_list(\(Self.quoteIdentifier(table)))")
            .sorted { (try? $0.value(String.self, named: "origin")) == "pk" && (try? $1.value(String.self, named: "origin")) != "pk" }
        for index in indexes {
            guard try index.value(Int.self, named: "unique") == 1, try index.value(Int.self, named: "partial") == 0 else { continue }
            let name: String = try index.value(named: "name")
            let keyColumns = try fetchAll(sql: "PRAGMA index_xinfo(\(Self.quoteIdentifier(name)))").filter { try $0.value(Int.self, named: "key") == 1 }
            let columns = try keyColumns.map { try $0.value(String?.self, named: "name").map(KnownColumns.folded) }
            // An index on an expression has no name for that column: not a key of columns.
            guard !columns.contains(nil) else { continue }
            var collations: [String: String] = [:]
            for (column, info) in zip(columns, keyColumns) { collations[column!] = try info.value(String.self, named: "coll") }
            add(UniqueKey(columns: Set(columns.map { $0! }), collations: collations))
        }
        // The table SQLite reads under that name, as PRAGMA index_list above: a temporary one first.
        let shape = try TableShape.read(table, schema: schemaObject(named: table)?.schema ?? "main", in: self)
        add(UniqueKey(columns: Set(shape.primaryKey.map(KnownColumns.folded)), collations: [:]))
        if shape.rowidName != nil {
            let taken = Set(shape.columns.map(KnownColumns.folded))
            for name in ["rowid", "_rowid_", "oid"] where !taken.contains(name) { add(UniqueKey(columns: [name], collations: [:])) }
        }
        return keys
    }
}
