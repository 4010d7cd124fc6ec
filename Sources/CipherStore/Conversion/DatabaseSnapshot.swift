/// What must be equal between a source and its converted copy: schema, row counts, the
/// content of every stored table (each row with its rowid, see ``TableContentDigest``),
/// `sqlite_sequence` and the header values an export does not copy.
struct DatabaseSnapshot: Equatable, Sendable {
    /// Runs its body with a second connection to the file a capture reads (see
    /// ``capture(_:comparingContent:upperHalves:)``).
    typealias SecondReader = @Sendable (_ body: (Connection) throws -> Void) throws -> Void

    /// The size from which a verification reads its result on a second connection: below it,
    /// opening one (a key derivation, for a passphrase) would cost about what it saves.
    static let secondReaderMinimumBytes: Int64 = 32 << 20

    var schema: [String]
    var rowCounts: [String: Int]
    /// Each stored table's ``TableContentDigest``, when the capture compared content.
    var contentDigests: [String: [UInt8]]
    var sequence: [String]
    var userVersion: Int
    var applicationID: Int
    var autoVacuum: Int

    /// - Parameters:
    ///   - comparingContent: also digest every stored table's rows (a whole read of every
    ///     table), for comparing a copy with its source.
    ///   - upperHalves: runs its body with a second connection to the same file, which no one
    ///     else writes while the capture runs, and closes it after. It runs on another thread,
    ///     which digests there the upper half of each table digested in two halves
    ///     (``TableContentDigest``) while `db` digests the lower halves: the read takes two
    ///     cores. The digests are the same with or without it.
    static func capture(_ db: Connection, comparingContent: Bool = false,
                        upperHalves: SecondReader? = nil) throws -> DatabaseSnapshot {
        let objects = try db.fetchAll(sql: "SELECT type, name, tbl_name, sql, rootpage FROM sqlite_master ORDER BY type, name")
        var schema: [String] = []
        var rowCounts: [String: Int] = [:]
        var digested: [(shape: TableShape, middle: Int64?)] = []
        // A full-text table without documents cannot be scanned (SQLite 3.44 and later refuse);
        // its index is in its shadow tables, which are counted and compared.
        let uncountable = Set(try DatabaseFile.contentlessFullTextTables(db, schema: "main"))
        for object in objects {
            let type = try object.value(String.self, at: 0)
            let name = try object.value(String.self, at: 1)
            let sql = try object.value(String?.self, at: 3) ?? ""
            schema.append("\(type) \(name) ON \(try object.value(String.self, at: 2)): \(sql)")
            if type == "table", !uncountable.contains(name) {
                // A virtual table (no root page) stores its rows in tables of its own;
                // sqlite_sequence's rows are compared by value below (their rowids mean nothing).
                // A digested table is counted by the same read.
                if comparingContent, name != "sqlite_sequence", try object.value(Int.self, at: 4) > 0 {
                    let shape = try TableShape.read(name, in: db)
                    digested.append((shape, try TableContentDigest.middleRowid(of: shape, in: db)))
                    continue
                }
                do {
                    rowCounts[name] = try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM \(Connection.quoteIdentifier(name))") ?? 0
                } catch let error as DatabaseError where error.message?.hasPrefix("no such module: ") == true {
                    throw DatabaseFileError.missingModule(path: db.location.displayName, table: name,
                                                        module: String(error.message?.dropFirst("no such module: ".count) ?? ""))
                }
            }
        }
        let contentDigests = try digest(digested, on: db, upperHalves: upperHalves, rowCounts: &rowCounts)
        var sequence: [String] = []
        if try db.tableExists("sqlite_sequence") {
            sequence = try db.fetchAll(sql: "SELECT name, seq FROM sqlite_sequence ORDER BY name, seq").map { "\($0[0])=\($0[1])" }
        }
        return DatabaseSnapshot(
            schema: schema, rowCounts: rowCounts, contentDigests: contentDigests, sequence: sequence,
            userVersion: try db.fetchScalar(Int.self, sql: "PRAGMA user_version") ?? 0,
            applicationID: try db.fetchScalar(Int.self, sql: "PRAGMA application_id") ?? 0,
            autoVacuum: try db.fetchScalar(Int.self, sql: "PRAGMA auto_vacuum") ?? 0)
    }

    /// Each table's ``TableContentDigest``, its upper half read on a connection of
    /// `upperHalves` on another thread when there is one; counts each table's rows into
    /// `rowCounts`.
    private static func digest(_ tables: [(shape: TableShape, middle: Int64?)], on db: Connection,
                               upperHalves: SecondReader?,
                               rowCounts: inout [String: Int]) throws -> [String: [UInt8]] {
        let halved = tables.compactMap { table in table.middle.map { (shape: table.shape, middle: $0) } }
        let stop = TableContentDigest.Stop()
        let upperWork = upperHalves.flatMap { withReader in
            halved.isEmpty ? nil : BackgroundWork<[String: (digest: [UInt8], rowCount: Int)]> {
                var digests: [String: (digest: [UInt8], rowCount: Int)] = [:]
                try withReader { reader in
                    for table in halved {
                        digests[table.shape.name] = try TableContentDigest.of(table.shape, in: reader, part: .above(table.middle), stop: stop)
                    }
                }
                return digests
            }
        }
        // On a failure here, the other thread stops at its next 1,024th row (not while it
        // opens its connection: a key derivation runs to its end).
        defer {
            stop.request()
            upperWork?.wait()
        }
        var lower: [String: (digest: [UInt8], rowCount: Int)] = [:]
        for (shape, middle) in tables {
            lower[shape.name] = try TableContentDigest.of(shape, in: db, part: middle.map { .upTo($0) } ?? .whole)
        }
        var upper = try upperWork?.value() ?? [:]
        if upperWork == nil {
            for table in halved { upper[table.shape.name] = try TableContentDigest.of(table.shape, in: db, part: .above(table.middle)) }
        }
        var digests: [String: [UInt8]] = [:]
        for (shape, middle) in tables {
            guard let part = lower[shape.name] else { continue }
            guard middle != nil else {
                (digests[shape.name], rowCounts[shape.name]) = part
                continue
            }
            guard let other = upper[shape.name] else {
                preconditionFailure("the upper half of \(shape.name) was not read")
            }
            digests[shape.name] = TableContentDigest.combining(lower: part.digest, upper: other.digest)
            rowCounts[shape.name] = part.rowCount + other.rowCount
        }
        return digests
    }

    /// The first difference from `other`, in words, or `nil` when equal.
    func difference(from other: DatabaseSnapshot) -> String? {
        if schema != other.schema {
            let missing = Set(schema).subtracting(other.schema).sorted().first ?? Set(other.schema).subtracting(schema).sorted().first ?? ""
            return "schema differs at: \(missing)"
        }
        for (table, count) in rowCounts.sorted(by: { $0.key < $1.key }) where other.rowCounts[table] != count {
            return "table \(table) has \(other.rowCounts[table].map(String.init) ?? "no") rows instead of \(count)"
        }
        for (table, digest) in contentDigests.sorted(by: { $0.key < $1.key }) where other.contentDigests[table] != digest {
            return "table \(table) has the same number of rows but not the same rows: a rowid or a value differs"
        }
        if sequence != other.sequence { return "sqlite_sequence differs" }
        if userVersion != other.userVersion { return "user_version is \(other.userVersion) instead of \(userVersion)" }
        if applicationID != other.applicationID { return "application_id is \(other.applicationID) instead of \(applicationID)" }
        if autoVacuum != other.autoVacuum { return "auto_vacuum is \(other.autoVacuum) instead of \(autoVacuum)" }
        return nil
    }
}
