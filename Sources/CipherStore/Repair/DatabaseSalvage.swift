import Foundation

/// One repair: every row that can be read out of a damaged encrypted file, put into a new
/// database through a connection (see ``DatabaseRepair``).
///
/// 1. The schema is read from the `sqlite_master` b-tree (rooted at page 1) and created anew.
/// 2. Each table's b-tree is walked from its root page; the rows of every leaf that reads
///    intact are inserted with their rowids, each row whole (its overflow chain included) or
///    not at all.
/// 3. Table leaves no walk reached (their parent page was lost) are matched to the one table
///    with as many columns when the freelist was read whole: free pages, listed from page 1,
///    are left out (their rows were deleted), so such a leaf is a live one cut off from its
///    table. Without the freelist (page 1 or a trunk page lost), a leaf no walk reached may
///    just as well hold deleted rows: every such leaf goes to a `recovered_N` table, apart
///    from the live tables, and is counted. Leaves that match no table, or several, go there
///    too. A page the freelist names that a table's walk reaches is read (page 1 is older
///    than the page, or the freelist damaged) and named as a problem, never dropped.
/// 4. Indexes, views and triggers are created last, once the rows are in; but in a file
///    larger than the result's page cache, the indexes on plain columns that are neither
///    unique nor partial are created before their table's rows, so that no sort of a whole
///    index is held in memory.
///
/// When the schema cannot be read whole (page 1, or a page of its b-tree, lost), the tables,
/// indexes, views and triggers it no longer tells are taken from the database's schema copy
/// (``SchemaCopy``) when there is one, each table walked from the root page the copy names.
/// Without either, every table leaf goes to a `recovered_N` table.
final class DatabaseSalvage {
    let pages: EncryptedPageReader
    let output: Connection
    /// The database's schema copy, when one opened with the key.
    let schemaCopy: SchemaCopy?
    /// Why a schema copy beside the file could not be used, when one is there.
    let schemaCopyProblem: String?
    let progress: (Double) throws -> Void

    /// One row of `sqlite_master`.
    private struct SchemaObject {
        let type: String
        let name: String
        /// The table it belongs to (`tbl_name`): for an index, the table indexed.
        let table: String
        let rootPage: UInt32
        let sql: String?

        init(type: String, name: String, table: String, rootPage: UInt32, sql: String?) {
            self.type = type
            self.name = name
            self.table = table
            self.rootPage = rootPage
            self.sql = sql
        }

        /// A record of `sqlite_master` (type, name, tbl_name, rootpage, sql), or `nil` for a
        /// record of any other shape.
        init?(_ values: [DatabaseValue]) {
            guard values.count == 5, case .text(let type) = values[0], ["table", "index", "view", "trigger"].contains(type),
                  case .text(let name) = values[1], case .text(let table) = values[2] else { return nil }
            let root: UInt32
            switch values[3] {
            case .integer(let number) where number > 0 && number <= UInt32.max: root = UInt32(number)
            case .integer, .null: root = 0
            default: return nil
            }
            let sql: String?
            switch values[4] {
            case .text(let text): sql = text
            case .null: sql = nil
            default: return nil
            }
            self.init(type: type, name: name, table: table, rootPage: root, sql: sql)
        }
    }

    /// Functions the schema's tables call (in a CHECK constraint) that the tool lacks, replaced
    /// by a stand-in that returns NULL so that the tables can be created. A table that calls one
    /// has its rows put back as they were stored, its CHECK constraints not evaluated
    /// (`PRAGMA ignore_check_constraints`): a stand-in computes nothing, and a constraint such as
    /// `f(x) IS NOT NULL` would refuse every row.
    var functionStandIns = Set<String>()
    /// The tables whose CHECK constraints call each function of ``functionStandIns``.
    var tablesCallingStandIns: [String: [String]] = [:]
    /// Whether the output's CHECK constraints are not evaluated now.
    var checksIgnored = false

    /// Names of the schema's objects, lowercased: a `recovered_N` table takes none of them.
    private var takenNames = Set<String>()
    /// Indexes created before their table's rows went in (``createIndexesBeforeRows(of:candidates:namesInSchema:)``).
    private var prebuiltIndexes = Set<String>()

    struct TableTarget {
        let name: String
        /// The columns, quoted.
        let columns: [String]
        var columnCount: Int { columns.count }
        /// The INTEGER PRIMARY KEY column, which the record stores as NULL and the rowid holds.
        let rowIDColumn: Int?
        /// How an insert names the rowid: `rowid`, `_rowid_` or `oid`, the first that is not a
        /// column's name; `nil` when all three are (the rowid is then SQLite's choice).
        var rowIDName: String? = "rowid"
        var inserted = 0
        /// The SQL of ``insertSQL(width:)``, built once per number of values.
        var insertSQLByWidth: [Int: String] = [:]
        /// Its indexes built before its rows that could refuse a row, until it refuses one
        /// (``dropEarlyIndexes(_:)``).
        var earlyIndexesThatMayRefuse: [String] = []
        /// Whether its CHECK constraints are not evaluated for the rows that go in now (its own
        /// pages'): they call a function the tool lacks (``functionsLacked(inserting:)``).
        var skipsChecks = false

        /// The SQL that inserts a row of `width` values into a schema table: the rowid
        /// first (when it can be named), then the first `width` columns.
        mutating func insertSQL(width: Int) -> String {
            if let sql = insertSQLByWidth[width] { return sql }
            let quoted = Connection.quoteIdentifier(name)
            let columns = columns.prefix(width).joined(separator: ", ")
            let placeholders = Array(repeating: "?", count: width).joined(separator: ", ")
            // A record of no values (every column takes its default) names no column.
            let sql = width == 0
                ? rowIDName.map { "INSERT OR IGNORE INTO \(quoted)(\($0)) VALUES (?)" } ?? "INSERT OR IGNORE INTO \(quoted) DEFAULT VALUES"
                : rowIDName.map { "INSERT OR IGNORE INTO \(quoted)(\($0), \(columns)) VALUES (?, \(placeholders))" }
                    ?? "INSERT OR IGNORE INTO \(quoted)(\(columns)) VALUES (\(placeholders))"
            insertSQLByWidth[width] = sql
            return sql
        }
    }

    private var visited = Set<UInt32>()
    /// Pages stepped over so far, for ``reportEvery(_:)``.
    private var steps = 0
    /// The pages page 1's freelist names, and whether it was read whole.
    private var freePages = Set<UInt32>()
    private var freelistWhole = false
    private var encoding = RecordFormat.TextEncoding.utf8
    private var problems: [String] = []
    private var notes: [String] = []
    /// Whether the schema had ANALYZE's statistics, to gather again.
    private var gatherStatistics = false
    /// Rows no table took, even a `recovered_N` one.
    private var refused = 0
    /// Rows their table refused (a constraint, a rowid taken), put in a `recovered_N` table.
    private var refusedButKept = 0
    /// Rows that do not fit the table their page belongs to (more columns, or a value where
    /// the INTEGER PRIMARY KEY is stored as NULL): a stale schema copy, or a damaged page.
    private var misfits = 0
    /// The `recovered_N` tables, by number of columns.
    private var recovered: [Int: TableTarget] = [:]
    /// The SQL that inserts into each `recovered_N` table, by number of columns.
    private var recoveredInserts: [Int: String] = [:]
    /// Pages that passed their HMAC but do not read as what they should be (a table's page).
    private var malformedPages = 0
    /// Rows on readable pages whose record or overflow chain could not be read.
    private var unreadableRows = 0
    /// The insert statements, by their SQL: prepared once per table and width.
    private var inserts: [String: Statement] = [:]
    /// The last insert run and its SQL: a table's rows run the same one, and the SQL (the
    /// same string each time) compares equal to itself at once, where the dictionary would
    /// hash it for every row.
    private var lastInsert: (sql: String, statement: Statement)?

    init(pages: EncryptedPageReader, output: Connection, schemaCopy: SchemaCopy.Found, progress: @escaping (Double) throws -> Void) {
        self.pages = pages
        self.output = output
        self.schemaCopy = schemaCopy.copy
        if case .unusable(let reason) = schemaCopy { schemaCopyProblem = reason } else { schemaCopyProblem = nil }
        self.progress = progress
    }

    /// What ``run()`` recovered.
    struct Result {
        let tables: [RepairReport.Table]
        /// What was done that loses nothing (statistics gathered anew).
        let notes: [String]
        /// Whether the file's own schema was read whole.
        let schemaRecovered: Bool
        /// Whether objects the file's schema no longer tells were taken from the schema copy.
        let usedSchemaCopy: Bool
        let problems: [String]
    }

    /// The page count page 1's header gives (when it is current: its "valid for" counter
    /// matches the change counter), which a file cut short no longer reaches.
    private(set) var headerPageCount: Int?

    func run() throws -> Result {
        let firstPage = try pages.page(1)
        var header: (userVersion: Int32, applicationID: Int32)?
        if let firstPage {
            encoding = RecordFormat.TextEncoding(rawValue: BTreePage.uint32(firstPage, at: 56)) ?? .utf8
            (freePages, freelistWhole) = try freelist(firstTrunk: BTreePage.uint32(firstPage, at: 32))
            header = (Int32(bitPattern: BTreePage.uint32(firstPage, at: 60)), Int32(bitPattern: BTreePage.uint32(firstPage, at: 68)))
            if BTreePage.uint32(firstPage, at: 92) == BTreePage.uint32(firstPage, at: 24) {
                headerPageCount = Int(BTreePage.uint32(firstPage, at: 28))
            }
        }
        var schema: [SchemaObject] = []
        var schemaWhole = false
        if firstPage != nil {
            schemaWhole = try walkTable(root: 1) { _, values in
                if let object = SchemaObject(values) { schema.append(object) }
            }
        }
        if !schemaWhole {
            // Leaves of sqlite_master cut off from page 1 still tell the current schema; they
            // are never a table's rows.
            for object in try schemaRowsOnUnreachedLeaves() where !schema.contains(where: { $0.name == object.name }) {
                schema.append(object)
            }
        }
        let schemaRecovered = schemaWhole
        // A schema read whole is the truth: what the copy has beyond it was dropped since.
        var fromCopy = Set<String>()
        if !schemaWhole, let schemaCopy {
            let known = Set(schema.map(\.name))
            for object in schemaCopy.objects where !known.contains(object.name) {
                schema.append(SchemaObject(type: object.type, name: object.name, table: object.table,
                                           rootPage: UInt32(clamping: max(object.rootPage, 0)), sql: object.sql))
                fromCopy.insert(object.name)
            }
        } else if !schemaWhole, let schemaCopyProblem {
            problems.append("the schema could not be read whole, and its schema copy could not be used: \(schemaCopyProblem)")
        }
        takenNames = Set(schema.map { $0.name.lowercased() })
        // Root pages of the tables the file itself names: a copy's table rooted there is gone.
        let fileRoots = Dictionary(schema.filter { $0.type == "table" && !fromCopy.contains($0.name) }.map { ($0.rootPage, $0.name) },
                                   uniquingKeysWith: { first, _ in first })
        var createdFromCopy: [String] = []
        let indexesBeforeRows = try buildsIndexesBeforeRows()
        // How many of the schema's objects have each name (lowercased), for the indexes built early.
        let namesInSchema = Dictionary(schema.map { ($0.name.lowercased(), 1) }, uniquingKeysWith: +)
        var targets: [TableTarget] = []
        var sequence: [(String, Int64)] = []
        // Virtual tables first: creating one creates its shadow tables, which then take the
        // file's rows like any table.
        var virtualTables: [SalvagedVirtualTable] = []
        var missingVirtualTables: [String] = []
        for object in schema where object.type == "table" {
            guard let sql = object.sql, Self.compactSQL(sql).hasPrefix("CREATEVIRTUAL") else { continue }
            do {
                virtualTables.append(try SalvagedVirtualTable(name: object.name, sql: sql, in: output))
            } catch {
                let shadows = schema.filter { $0.type == "table" && $0.rootPage > 0 && $0.name.hasPrefix(object.name + "_") }.map(\.name)
                problems.append("virtual table \(object.name) was not recreated (\(error))" + (shadows.isEmpty ? "" : "; the tables holding its data were recovered as ordinary tables (\(shadows.joined(separator: ", ")))"))
                missingVirtualTables.append(object.name)
            }
        }
        let shadowOwners = Dictionary(virtualTables.flatMap { table in table.shadowTables.map { ($0, table) } },
                                      uniquingKeysWith: { first, _ in first })
        for object in schema where object.type == "table" {
            if object.name == "sqlite_sequence" {
                try walkTable(root: object.rootPage) { _, values in
                    if values.count == 2, case .text(let name) = values[0], case .integer(let seq) = values[1] { sequence.append((name, seq)) }
                }
                continue
            }
            if object.name.lowercased().hasPrefix("sqlite_stat") {
                // Statistics ANALYZE gathers from the rows: read past (its rows are no table's
                // rows) and gathered anew once the rows are in.
                if object.rootPage > 0 { try walkTable(root: object.rootPage) { _, _ in } }
                gatherStatistics = true
                continue
            }
            guard !object.name.hasPrefix("sqlite_"), let sql = object.sql else { continue }
            let compact = Self.compactSQL(sql)
            if compact.hasPrefix("CREATEVIRTUAL") { continue }
            guard object.rootPage > 0 else { continue }
            if let owner = shadowOwners[object.name.lowercased()], owner.shadowSQL[object.name.lowercased()] != compact {
                // A table of the file with a shadow table's name but not its shape: its rows
                // are its own, kept apart.
                let moved = try moveToRecovered(root: object.rootPage)
                problems.append("table \(object.name) has the name of a table virtual table \(owner.name) keeps its data in, but not its shape: its \(moved) rows were put in recovered_N tables")
                continue
            }
            if let owner = shadowOwners[object.name.lowercased()] {
                // Created with its virtual table: its rows replace what the module put in, but
                // for an index rebuilt from its documents (read past) and a WITHOUT ROWID
                // table (FTS5's b-tree index).
                guard !compact.hasSuffix("WITHOUTROWID") else { continue }
                guard owner.copiesRows(of: object.name) else {
                    try walkTable(root: object.rootPage) { _, _ in }
                    continue
                }
                try output.execute(sql: "DELETE FROM \(Connection.quoteIdentifier(object.name))")
                var target = try tableTarget(object.name)
                try walkTable(root: object.rootPage) { rowID, values in try insert(rowID, values, into: &target) }
                targets.append(target)
                continue
            }
            if fromCopy.contains(object.name), let problem = try rootProblem(object, fileRoots: fileRoots) {
                problems.append(problem)
                continue
            }
            if compact.hasSuffix("WITHOUTROWID") {
                try? output.execute(sql: sql)
                problems.append("table \(object.name) is a WITHOUT ROWID table: it was created empty, its rows were not recovered")
                continue
            }
            do {
                try createTable(sql, named: object.name)
            } catch {
                // Its rows are its own: into recovered_N tables, never into another table by width.
                let moved = try moveToRecovered(root: object.rootPage)
                problems.append("table \(object.name) could not be created (\(error)): its \(moved) rows were put in recovered_N tables")
                continue
            }
            var target = try tableTarget(object.name)
            let functionsLacked = try functionsLacked(inserting: &target)
            // Its own rows go in as they were stored; rows found later on pages no table reaches
            // still meet its CHECK constraints, with the stand-ins.
            target.skipsChecks = !functionsLacked.isEmpty
            for function in functionsLacked { tablesCallingStandIns[function, default: []].append(object.name) }
            if indexesBeforeRows {
                let early = try createIndexesBeforeRows(of: object.name, candidates: schema.compactMap { index in
                    guard index.type == "index", index.table.lowercased() == object.name.lowercased(),
                          !index.name.hasPrefix("sqlite_"), let sql = index.sql else { return nil }
                    return (index.name, sql)
                }, namesInSchema: namesInSchema)
                prebuiltIndexes.formUnion(early.map(\.name))
                target.earlyIndexesThatMayRefuse = early.filter(\.mayRefuseRows).map(\.name)
            }
            let misfitsBefore = misfits
            try walkTable(root: object.rootPage) { rowID, values in try insert(rowID, values, into: &target) }
            target.skipsChecks = false
            if fromCopy.contains(object.name), target.inserted == 0, misfits > misfitsBefore {
                // Its root page holds another table's rows now (kept in recovered_N): the table
                // of the copy is gone.
                try output.execute(sql: "DROP TABLE \(Connection.quoteIdentifier(object.name))")
                problems.append("table \(object.name) of the schema copy was not created: its root page \(object.rootPage) holds rows of another table now (it was dropped since the copy was taken)")
                continue
            }
            if fromCopy.contains(object.name) { createdFromCopy.append(object.name) }
            targets.append(target)
            try progress(Double(visited.count) / Double(max(pages.pageCount, 1)))
        }
        // Pages the freelist names that a walk read: page 1 (and its freelist) is older than
        // they are, or the freelist is damaged. Their rows were kept where the walk put them.
        let freeButUsed = freePages.intersection(visited)
        if !freeButUsed.isEmpty {
            freelistWhole = false
            problems.append("page 1's freelist names \(freeButUsed.count) pages that tables still use (page 1 is older than the rest of the file, or damaged): their rows were read, but deleted rows cannot be told from live ones on pages no table reaches")
        }
        visited.formUnion(freePages)
        try collectOrphanLeaves(into: &targets)
        if let schemaCopy, !createdFromCopy.isEmpty {
            problems.insert(copyCaveat(schemaCopy, tables: createdFromCopy, firstPage: firstPage), at: 0)
        }
        for (name, seq) in sequence {
            try output.execute(sql: "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", arguments: [seq, name])
            if output.changesCount == 0 { try output.execute(sql: "INSERT INTO sqlite_sequence(name, seq) VALUES (?, ?)", arguments: [name, seq]) }
        }
        try ignoreChecks(false)
        // Stand-ins compute nothing: an index must not be built with them.
        for name in functionStandIns.sorted() {
            try output.remove(function: Self.standIn(name))
            if let tables = tablesCallingStandIns[name] {
                notes.append("the CHECK constraints of \(tables.count == 1 ? "table" : "tables") \(tables.joined(separator: ", ")) call the SQL function \(name)(), which the app registers and this tool does not have: none of \(tables.count == 1 ? "its" : "their") CHECK constraints were evaluated for the rows read from \(tables.count == 1 ? "its" : "their") pages; check them in the app")
            } else {
                notes.append("the schema calls the SQL function \(name)(), which the app registers and this tool does not have: the CHECK constraints that call it were not evaluated for the recovered rows")
            }
        }
        for table in virtualTables {
            let (note, problem) = table.rebuild(in: output)
            if let note { notes.append(note) }
            if let problem { problems.append(problem) }
        }
        // A rebuilt R-tree holds its surviving entries, not the shadow rows copied: count them anew.
        let rTreeShadows = Set(virtualTables.filter { $0.rTree != nil }.flatMap(\.shadowTables))
        for index in targets.indices where rTreeShadows.contains(targets[index].name.lowercased()) {
            targets[index].inserted = try output.fetchScalar(Int.self, sql: "SELECT count(*) FROM \(Connection.quoteIdentifier(targets[index].name))") ?? 0
        }
        // An index is built by a sort that takes as much memory as the page cache: half the
        // cache for each keeps the run within the memory it was given.
        try output.execute(sql: "PRAGMA cache_size = \((try output.fetchScalar(Int.self, sql: "PRAGMA cache_size") ?? -2000) / 2)")
        // Indexes first, then views and triggers: a trigger must not fire for restored rows.
        let missing = Set(missingVirtualTables.map { $0.lowercased() })
        // Views (lowercased) whose INSTEAD OF trigger was taken back: writing to them fails now.
        var viewsWithoutTheirTriggers = Set<String>()
        for kind in ["index", "view", "trigger"] {
            for object in schema where object.type == kind {
                guard let sql = object.sql, !object.name.hasPrefix("sqlite_") else { continue }
                // Built as the rows went in, and still there (its table was not dropped since).
                if prebuiltIndexes.contains(object.name),
                   try output.fetchScalar(Int.self, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = ?", arguments: [object.name]) == 1 {
                    continue
                }
                // A damaged schema row may hold other SQL than its type's (a trigger in an
                // index's row would drop the app's writes without a word); a TEMP object would
                // not outlive this connection.
                let statement = ["index": ["CREATEINDEX", "CREATEUNIQUEINDEX"], "view": ["CREATEVIEW"], "trigger": ["CREATETRIGGER"]][kind] ?? []
                let compact = Self.compactSQL(sql)
                guard statement.contains(where: { compact.hasPrefix($0) }) else {
                    problems.append("\(kind) \(object.name) was not created: its schema row holds no CREATE \(kind.uppercased()) statement of the database's own")
                    continue
                }
                var brokenWrites: (table: String, missing: String)?
                do {
                    // In a savepoint: a statement that fails midway (an expression that fails
                    // on a row) would otherwise leave the pages it took, and a trigger that
                    // breaks its table's writes is taken back.
                    try output.inSavepoint {
                        try output.execute(sql: sql)
                        guard kind == "trigger", !missing.isEmpty else { return .commit }
                        brokenWrites = try writeThatFails(afterTrigger: object.name, on: object.table, missing: missing)
                        return brokenWrites == nil ? .commit : .rollback
                    }
                } catch let error as DatabaseError where error.missingFunctionName != nil {
                    let function = error.missingFunctionName ?? ""
                    problems.append("\(kind) \(object.name) was not created: it calls the SQL function \(function)(), which the app registers and this tool does not have; create it again from the app")
                } catch {
                    problems.append("\(kind) \(object.name) could not be created: \(error)")
                }
                if let brokenWrites {
                    problems.append("trigger \(object.name) was not created: with it, every write to \(brokenWrites.table) fails (no such table: \(brokenWrites.missing), a virtual table that was not recreated)")
                    viewsWithoutTheirTriggers.insert(brokenWrites.table.lowercased())
                }
            }
            if kind == "trigger", !viewsWithoutTheirTriggers.isEmpty {
                problems += try takeBackTriggersWriting(toViews: viewsWithoutTheirTriggers)
            }
            if kind == "view", !missing.isEmpty {
                for object in schema where object.type == "view" {
                    if let table = tableMissing(readingView: object.name, missing: missing) {
                        problems.append("view \(object.name) was created, but reading it fails (no such table: \(table), a virtual table that was not recreated)")
                    }
                }
            }
        }
        if gatherStatistics {
            try output.execute(sql: "ANALYZE")
            notes.append("sqlite_stat1, the statistics ANALYZE gathers, was gathered anew from the recovered rows")
        }
        if let header {
            try output.execute(sql: "PRAGMA user_version = \(header.userVersion)")
            try output.execute(sql: "PRAGMA application_id = \(header.applicationID)")
        }
        // Finalized here, so the connection can close.
        inserts.removeAll()
        lastInsert = nil
        if malformedPages > 0 { problems.append("\(malformedPages) pages passed their HMAC but do not read as b-tree pages: their rows were not recovered") }
        if unreadableRows > 0 { problems.append("\(unreadableRows) rows on readable pages could not be decoded (a malformed record or overflow chain)") }
        if misfits > 0 {
            problems.append("\(misfits) rows do not fit the table their page belongs to (more columns than it has, or a value where its INTEGER PRIMARY KEY is stored as NULL): a schema copy older than the schema, or a damaged page. They were put in recovered_N tables")
        }
        if refusedButKept > 0 {
            problems.append("\(refusedButKept) rows were refused by their table (a constraint, or a rowid already taken): they were put in recovered_N tables")
        }
        if refused > 0 { problems.append("\(refused) rows could not be inserted anywhere") }
        let tables = (targets + recovered.keys.sorted().compactMap { recovered[$0] })
            .map { RepairReport.Table(name: $0.name, recoveredRows: $0.inserted, expectedRows: schemaCopy?.rowCounts?[$0.name]) }
        return Result(tables: tables, notes: notes, schemaRecovered: schemaRecovered, usedSchemaCopy: !createdFromCopy.isEmpty, problems: problems)
    }

    /// What the report says of tables taken from the schema copy: when it was taken, and
    /// whether page 1's schema cookie says the schema changed since.
    private func copyCaveat(_ copy: SchemaCopy, tables: [String], firstPage: [UInt8]?) -> String {
        let taken = ISO8601DateFormatter().string(from: copy.taken)
        var caveat = "tables \(tables.joined(separator: ", ")) were rebuilt from the schema copy of \(taken) (schema version \(copy.schemaVersion))"
        if let firstPage, Int(BTreePage.uint32(firstPage, at: 40)) != copy.schemaVersion {
            caveat += ", but the database's schema is at version \(BTreePage.uint32(firstPage, at: 40)): it changed since"
        } else {
            caveat += "; if another SQLite client changed the schema since (it keeps no copy)"
        }
        caveat += ", rows of a table created or replaced after the copy can be in one of these tables with as many columns: check them"
        return caveat
    }

    /// Why a table of the schema copy is left out: its root page reads, but not as a table's
    /// (it was dropped since the copy, or moved); `nil` when its root page is a table page or
    /// lost (its leaves may still be found).
    private func rootProblem(_ object: SchemaObject, fileRoots: [UInt32: String]) throws -> String? {
        if let owner = fileRoots[object.rootPage] {
            return "table \(object.name) of the schema copy was not created: its root page \(object.rootPage) belongs to table \(owner) now (renamed, or dropped and replaced, since the copy was taken)"
        }
        guard object.rootPage <= pages.pageCount else {
            return "table \(object.name) of the schema copy was not created: its root page \(object.rootPage) is past the end of the file (the file was cut short, or the table dropped and the file vacuumed)"
        }
        guard let data = try pages.page(object.rootPage) else { return nil }
        if let node = BTreePage(data, number: object.rootPage), node.kind == .tableLeaf || node.kind == .tableInterior { return nil }
        return "table \(object.name) of the schema copy was not created: its root page \(object.rootPage) is not a table page now (the table was dropped or moved since the copy was taken)"
    }

    /// Objects of `sqlite_master` on table leaves that no walk reached (page 1 lost, or a page
    /// of the schema's b-tree): a leaf whose every row has the schema's shape is the schema's.
    /// Those pages are marked visited, so no table takes their rows.
    private func schemaRowsOnUnreachedLeaves() throws -> [SchemaObject] {
        guard pages.pageCount >= 2 else { return [] }
        var objects: [SchemaObject] = []
        // A free page may hold the schema's rows of before a change.
        for number in UInt32(2)...UInt32(pages.pageCount) where !visited.contains(number) && !freePages.contains(number) {
            try reportEvery(256)
            guard let data = try pages.page(number), let leaf = BTreePage(data, number: number), leaf.kind == .tableLeaf,
                  !leaf.cells.isEmpty else { continue }
            var found: [SchemaObject] = []
            var allSchema = true
            for cell in leaf.cells {
                guard let payload = try pages.payload(of: cell, visit: { _ in }),
                      let values = RecordFormat.values(payload, encoding: encoding), let object = SchemaObject(values) else {
                    allSchema = false
                    break
                }
                found.append(object)
            }
            guard allSchema else { continue }
            visited.insert(number)
            objects += found
        }
        return objects
    }

    /// Reports progress (and so meets a cancellation) once every `pages` calls: often enough
    /// that a large table's walk is cancelled within a second, rarely enough to cost nothing.
    private func reportEvery(_ pages: Int) throws {
        steps += 1
        if steps % pages == 0 { try progress(Double(visited.count) / Double(max(self.pages.pageCount, 1))) }
    }

    /// The free pages, from the freelist's trunk pages (each lists leaf pages), and whether
    /// every trunk page was read.
    private func freelist(firstTrunk: UInt32) throws -> (pages: Set<UInt32>, whole: Bool) {
        var free = Set<UInt32>()
        var trunk = firstTrunk
        while trunk != 0 {
            guard !free.contains(trunk), Int(trunk) <= pages.pageCount, let page = try pages.page(trunk) else { return (free, false) }
            free.insert(trunk)
            let count = Int(BTreePage.uint32(page, at: 4))
            guard 8 + 4 * count <= page.count else { return (free, false) }
            for index in 0..<count { free.insert(BTreePage.uint32(page, at: 8 + 4 * index)) }
            trunk = BTreePage.uint32(page, at: 0)
        }
        return (free, true)
    }

    /// Walks a table b-tree from `root`, handing each readable row to `row`.
    /// - Returns: whether every page of the b-tree was read.
    @discardableResult
    private func walkTable(root: UInt32, _ row: (Int64, [DatabaseValue]) throws -> Void) throws -> Bool {
        var stack = [root]
        var whole = true
        while let number = stack.popLast() {
            guard visited.insert(number).inserted else { continue }
            try reportEvery(64)
            guard let data = try pages.page(number) else {
                whole = false
                continue
            }
            guard let node = BTreePage(data, number: number) else {
                malformedPages += 1
                whole = false
                continue
            }
            switch node.kind {
            case .tableInterior: stack.append(contentsOf: node.children.reversed())
            case .tableLeaf: if try !readRows(node, row) { whole = false }
            case .indexInterior, .indexLeaf: continue
            }
        }
        return whole
    }

    /// - Returns: whether every row of the leaf was read.
    @discardableResult
    private func readRows(_ leaf: BTreePage, _ row: (Int64, [DatabaseValue]) throws -> Void) throws -> Bool {
        var whole = true
        for cell in leaf.cells {
            guard let payload = try pages.payload(of: cell, visit: { visited.insert($0) }),
                  let values = RecordFormat.values(payload, encoding: encoding) else {
                // A lost overflow page is counted as lost already; anything else is damage
                // that passed the HMAC.
                if !pages.lastPayloadLostAPage { unreadableRows += 1 }
                whole = false
                continue
            }
            try row(cell.rowID, values)
        }
        return whole
    }

    /// Table leaves that no walk reached: with the freelist read whole, each goes to the one
    /// table with its rows' column count, else to a `recovered_N` table; without it, every
    /// one goes to a `recovered_N` table (deleted rows may be among them) and is counted.
    private func collectOrphanLeaves(into targets: inout [TableTarget]) throws {
        guard pages.pageCount >= 2 else { return }
        var uncertainRows = 0
        var uncertainLeaves = 0
        // Rows given to a table by their number of columns alone, by table: leaves cut off from
        // their table by a lost page, or of a table whose schema row is gone.
        var matchedByWidth: [String: (rows: Int, leaves: Int)] = [:]
        for number in UInt32(2)...UInt32(pages.pageCount) where !visited.contains(number) {
            try reportEvery(256)
            guard let data = try pages.page(number), let leaf = BTreePage(data, number: number), leaf.kind == .tableLeaf else { continue }
            visited.insert(number)
            var rows: [(Int64, [DatabaseValue])] = []
            try readRows(leaf) { rows.append(($0, $1)) }
            guard let width = rows.first?.1.count else { continue }
            let matching = targets.indices.filter { targets[$0].columnCount == width }
            if freelistWhole && matching.count == 1 {
                let insertedBefore = targets[matching[0]].inserted
                for (rowID, values) in rows { try insert(rowID, values, into: &targets[matching[0]]) }
                // Those it refused are in recovered_N tables, and counted there.
                let counts = matchedByWidth[targets[matching[0]].name] ?? (0, 0)
                matchedByWidth[targets[matching[0]].name] = (counts.rows + targets[matching[0]].inserted - insertedBefore, counts.leaves + 1)
            } else {
                if !freelistWhole && !targets.isEmpty {
                    uncertainRows += rows.count
                    uncertainLeaves += 1
                }
                for (rowID, values) in rows { try insertRecovered(rowID, values) }
            }
            try progress(Double(visited.count) / Double(max(pages.pageCount, 1)))
        }
        for (table, counts) in matchedByWidth.sorted(by: { $0.key < $1.key }) where counts.rows > 0 {
            problems.append("\(counts.rows) rows on \(counts.leaves) pages no table reaches were put in table \(table), the one table with as many columns: rows cut off from it by a lost page belong there, but so would a table's whose schema row is lost. Check them")
        }
        if uncertainRows > 0 {
            problems.append("\(uncertainRows) rows on \(uncertainLeaves) pages no table reaches were put in recovered_N tables, apart from the live tables: without page 1's freelist, rows deleted earlier cannot be told from live rows cut off from their table. Check them before moving any back")
        }
    }

    private func tableTarget(_ name: String) throws -> TableTarget {
        let quoted = Connection.quoteIdentifier(name)
        // Read by column index, without rows: a repair (and its fuzzer) asks this of every table.
        var names: [String] = []
        var keys: [(index: Int, name: String, type: String)] = []
        let columns = try output.makeStatement(sql: "PRAGMA table_info(\(quoted))")
        while try columns.step() {
            guard case .text(let column) = columns.databaseValue(at: 1) else { continue }
            if case .integer(let key) = columns.databaseValue(at: 5), key > 0 {
                let type: String
                if case .text(let declared) = columns.databaseValue(at: 2) { type = declared } else { type = "" }
                keys.append((names.count, column, type))
            }
            names.append(column)
        }
        var rowIDColumn: Int?
        if keys.count == 1, keys[0].type.uppercased() == "INTEGER" {
            // Whether it is the rowid itself, as SQLite decides (`INTEGER PRIMARY KEY DESC` is
            // not): a read of it compiles to the Rowid instruction, not Column.
            // NOT INDEXED: through an index that covers it, the read is IdxRowid.
            let program = try output.makeStatement(sql: "EXPLAIN SELECT \(Connection.quoteIdentifier(keys[0].name)) FROM \(quoted) NOT INDEXED")
            while try program.step() {
                if case .text("Rowid") = program.databaseValue(at: 1) {
                    rowIDColumn = keys[0].index
                    break
                }
            }
        }
        var target = TableTarget(name: name, columns: names.map(Connection.quoteIdentifier), rowIDColumn: rowIDColumn)
        let lowercased = Set(names.map { $0.lowercased() })
        target.rowIDName = ["rowid", "_rowid_", "oid"].first { !lowercased.contains($0) }
        return target
    }

    private func recoveredTable(width: Int, number: Int) throws -> TableTarget {
        // A name no table of the schema has (a database repaired before has recovered_N tables).
        var number = number
        while takenNames.contains("recovered_\(number)") { number += 1 }
        let name = "recovered_\(number)"
        takenNames.insert(name)
        let columns = (1...max(width, 1)).map { "c\($0)" }.joined(separator: ", ")
        try output.execute(sql: "CREATE TABLE \(name)(original_rowid INTEGER, \(columns))")
        return TableTarget(name: name, columns: ["original_rowid"] + (1...max(width, 1)).map { "c\($0)" }, rowIDColumn: nil)
    }

    /// Inserts one row with its rowid into its table; a row that does not fit it, or that it
    /// refuses, goes to a `recovered_N` table: no readable row is dropped.
    private func insert(_ rowID: Int64, _ values: [DatabaseValue], into target: inout TableTarget) throws {
        // SQLite stores an INTEGER PRIMARY KEY as NULL in the record: the rowid holds it.
        if values.count > target.columnCount || target.rowIDColumn.map({ $0 < values.count && !values[$0].isNull }) == true {
            misfits += 1
            try insertRecovered(rowID, values)
            return
        }
        // The INTEGER PRIMARY KEY column, stored as NULL, takes the rowid.
        let rowIDColumn = target.rowIDColumn.flatMap { $0 < values.count ? $0 : nil }
        let sql = target.insertSQL(width: values.count)
        try ignoreChecks(target.skipsChecks)
        if try run(sql, rowID: target.rowIDName == nil ? nil : rowID, values, rowIDColumn.map { ($0, rowID) }) {
            target.inserted += 1
        } else if try dropEarlyIndexes(target.earlyIndexesThatMayRefuse) {
            // Perhaps refused by an index built early: those are built after the rows now.
            prebuiltIndexes.subtract(target.earlyIndexesThatMayRefuse)
            target.earlyIndexesThatMayRefuse = []
            try insert(rowID, values, into: &target)
        } else {
            refusedButKept += 1
            var values = values
            if let rowIDColumn { values[rowIDColumn] = .integer(rowID) }
            try insertRecovered(rowID, values)
        }
    }

    /// Inserts one row, with its rowid in `original_rowid`, into the `recovered_N` table of
    /// its number of columns.
    private func insertRecovered(_ rowID: Int64, _ values: [DatabaseValue]) throws {
        let width = values.count
        if recovered[width] == nil { recovered[width] = try recoveredTable(width: width, number: recovered.count + 1) }
        if recoveredInserts[width] == nil {
            recoveredInserts[width] = "INSERT INTO \(Connection.quoteIdentifier(recovered[width]!.name)) VALUES (?\(String(repeating: ", ?", count: max(width, 1))))"
        }
        if try run(recoveredInserts[width]!, rowID: rowID, width == 0 ? [.null] : values) {
            recovered[width]!.inserted += 1
        } else {
            refused += 1
        }
    }

    /// Puts every row of the table rooted at `root` in `recovered_N` tables, for a table whose
    /// rows cannot go into a table of their own name; returns how many.
    private func moveToRecovered(root: UInt32) throws -> Int {
        var moved = 0
        try walkTable(root: root) { rowID, values in
            try insertRecovered(rowID, values)
            moved += 1
        }
        return moved
    }

    /// Runs an insert of `rowID` (when given, the first parameter) and `values` (the value at
    /// `rowIDColumn`'s index given as that rowid instead); whether it inserted a row.
    private func run(_ sql: String, rowID: Int64?, _ values: [DatabaseValue], _ rowIDColumn: (index: Int, rowID: Int64)? = nil) throws -> Bool {
        while true {
            do {
                let statement: Statement
                if let last = lastInsert, last.sql == sql {
                    statement = last.statement
                } else {
                    statement = try inserts[sql] ?? output.makeStatement(sql: sql)
                    inserts[sql] = statement
                    lastInsert = (sql, statement)
                }
                defer { statement.reset() }
                var parameter: Int32 = 1
                if let rowID {
                    try statement.bind(.integer(rowID), at: 1)
                    parameter = 2
                }
                for index in values.indices {
                    try statement.bind(index == rowIDColumn?.index ? .integer(rowIDColumn?.rowID ?? 0) : values[index], at: parameter)
                    parameter += 1
                }
                while try statement.step() {}
                return output.changesCount > 0
            } catch let error as DatabaseError {
                // A CHECK constraint calling a function the tool lacks (SQLite 3.16 and later
                // resolve it when the insert is prepared): a stand-in, as in createTable(_:).
                guard inserts[sql] == nil, let name = error.missingFunctionName,
                      functionStandIns.insert(name.lowercased()).inserted else { return false }
                try output.add(function: Self.standIn(name.lowercased()))
            }
        }
    }
}
