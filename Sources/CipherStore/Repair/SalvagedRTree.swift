/// An R-tree (`rtree`, `rtree_i32`) of a damaged file, rebuilt in a repair's output from the
/// entries of its leaf nodes that survived.
///
/// An R-tree keeps its nodes as blobs in `NAME_node`, and which leaf holds each entry, and
/// which node is each node's parent, in `NAME_rowid` and `NAME_parent`. The repair copies
/// the rows of the three as found; when a page loss took some of them, the tree no longer
/// reads (a node it points to is missing) or lists fewer entries than its rowid table. Then
/// its leaves are found — the nodes at the bottom of the tree under its root (whose first two
/// bytes are the tree's depth), and the nodes its rowid table names — every entry in them is
/// read (its rowid and its coordinates, 32-bit floats or integers), and the table is created
/// anew with them: a tree that reads whole, holding every entry that survived and no other.
struct SalvagedRTree {
    /// The virtual table's name and SQL.
    let name: String
    let sql: String
    /// `rtree_i32`: coordinates are 32-bit integers, not floats.
    let integerCoordinates: Bool
    /// Columns after the rowid that hold coordinates (two per dimension).
    let coordinateCount: Int
    /// Auxiliary columns (`+name`, SQLite 3.24+) keep their values in the rowid table, not in
    /// the nodes: such a tree is not rebuilt.
    let hasAuxiliaryColumns: Bool

    /// The shape of the R-tree `name` created in `output` from `sql`; `nil` when `shadowTables`
    /// are not an R-tree's.
    init?(name: String, sql: String, shadowTables: Set<String>, in output: Connection) {
        let lowercased = name.lowercased()
        guard ["_node", "_rowid", "_parent"].allSatisfy({ shadowTables.contains(lowercased + $0) }) else { return nil }
        let columns = (try? output.fetchAll(sql: "PRAGMA table_info(\(Connection.quoteIdentifier(name)))").count) ?? 0
        let compact = DatabaseSalvage.compactSQL(sql)
        self.name = name
        self.sql = sql
        integerCoordinates = compact.contains("USINGRTREE_I32")
        hasAuxiliaryColumns = compact.contains("+")
        coordinateCount = max(columns - 1, 0)
    }

    /// Leaves the tree as copied when it reads whole and lists every entry of its rowid table;
    /// otherwise rebuilds it from its surviving leaves. Returns what the report says.
    func rebuildIfBroken(in output: Connection) -> (note: String?, problem: String?) {
        let quoted = Connection.quoteIdentifier(name)
        let listed = try? output.fetchScalar(Int.self, sql: "SELECT count(*) FROM \(Connection.quoteIdentifier(name + "_rowid"))")
        let reads = try? output.fetchScalar(Int.self, sql: "SELECT count(*) FROM \(quoted)")
        if let reads, reads == listed { return (nil, nil) }
        guard !hasAuxiliaryColumns, coordinateCount > 0 else {
            return (nil, "R-tree \(name) does not read whole after its rows were copied: it is inconsistent, create it again from its source data")
        }
        do {
            let entries = try survivingEntries(in: output)
            // In a savepoint: a rebuild that fails midway leaves the table as it was copied.
            try output.inSavepoint {
                try output.execute(sql: "DROP TABLE \(quoted)")
                try output.execute(sql: sql)
                let placeholders = Array(repeating: "?", count: coordinateCount + 1).joined(separator: ", ")
                let insert = try output.makeStatement(sql: "INSERT INTO \(quoted) VALUES (\(placeholders))")
                for (rowID, coordinates) in entries.found.sorted(by: { $0.key < $1.key }) {
                    try insert.execute(arguments: StatementArguments([DatabaseValue.integer(rowID)] + coordinates))
                }
                return .commit
            }
            let lost = entries.listed.subtracting(entries.found.keys).count
            return (nil, "pages of R-tree \(name) were lost: it was rebuilt from the \(entries.found.count) entries of its surviving leaf nodes"
                    + (lost > 0 ? "; \(lost) more that its rowid table lists are lost" : "; entries on lost pages that its rowid table did not list are lost too"))
        } catch {
            return (nil, "R-tree \(name) does not read whole after its rows were copied, and could not be rebuilt from its leaves (\(error)): create it again from its source data")
        }
    }

    /// The entries of the leaf nodes found, by rowid, and the rowids the rowid table lists.
    private func survivingEntries(in output: Connection) throws -> (found: [Int64: [DatabaseValue]], listed: Set<Int64>) {
        var nodes: [Int64: [UInt8]] = [:]
        for row in try output.fetchAll(sql: "SELECT nodeno, data FROM \(Connection.quoteIdentifier(name + "_node"))") {
            if case .integer(let number) = row[0], case .blob(let data) = row[1] { nodes[number] = [UInt8](data) }
        }
        var leafOf: [Int64: Int64] = [:]
        for row in try output.fetchAll(sql: "SELECT rowid, nodeno FROM \(Connection.quoteIdentifier(name + "_rowid"))") {
            if case .integer(let rowID) = row[0], case .integer(let node) = row[1] { leafOf[rowID] = node }
        }
        var interior = Set(try Int64.fetchAll(output, sql: "SELECT DISTINCT parentnode FROM \(Connection.quoteIdentifier(name + "_parent"))"))
        var leaves = Set(leafOf.values)
        // Down from the root, level by level: the nodes its depth puts at the bottom are leaves.
        if let root = nodes[1], root.count >= 4 {
            let depth = Int(root[0]) << 8 | Int(root[1])
            var level: [Int64] = [1]
            for remaining in stride(from: depth, through: 0, by: -1) {
                if remaining == 0 {
                    leaves.formUnion(level)
                    break
                }
                interior.formUnion(level)
                // An interior entry's rowid is a child node's number. Each node is visited once
                // (a damaged tree may name one many times, or loop), and the walk ends where
                // the nodes run out.
                level = Set(level.flatMap { nodes[$0].map(entries(in:)) ?? [] }.map(\.id))
                    .filter { nodes[$0] != nil && !interior.contains($0) }.sorted()
                if level.isEmpty { break }
            }
        }
        leaves.subtract(interior)
        var found: [Int64: [DatabaseValue]] = [:]
        for node in leaves.sorted() {
            guard let blob = nodes[node] else { continue }
            for entry in entries(in: blob) where found[entry.id] == nil || leafOf[entry.id] == node {
                found[entry.id] = entry.coordinates
            }
        }
        return (found, Set(leafOf.keys))
    }

    /// A node's entries: after the depth and the count (two bytes each, big-endian), each entry
    /// is a 64-bit rowid (or child node number) and its coordinates, 4 bytes each; as many as
    /// the count says and the blob holds.
    private func entries(in blob: [UInt8]) -> [(id: Int64, coordinates: [DatabaseValue])] {
        guard blob.count >= 4 else { return [] }
        let size = 8 + 4 * coordinateCount
        let count = min(Int(blob[2]) << 8 | Int(blob[3]), (blob.count - 4) / size)
        return (0..<count).map { index in
            let start = 4 + index * size
            let id = blob[start..<(start + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let coordinates = (0..<coordinateCount).map { coordinate -> DatabaseValue in
                let offset = start + 8 + 4 * coordinate
                let bits = blob[offset..<(offset + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                return integerCoordinates ? .integer(Int64(Int32(bitPattern: bits))) : .real(Double(Float(bitPattern: bits)))
            }
            return (Int64(bitPattern: id), coordinates)
        }
    }
}
