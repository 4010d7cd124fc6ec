import CSQLCipher
import Crypto
import Synchronization

/// A SHA-256 of every row of a stored table, each with its identity: the rowid, or in a
/// `WITHOUT ROWID` table the primary key (which is among the values).
///
/// Rows are read in the order of their identity (the rowid, or the key: in the order of its
/// collations when they are SQLite's own, else in byte order), so two
/// tables with the same rows under the same rowids have the same digest, whatever their
/// pages look like; a row renumbered, changed, lost or added changes it. Each value goes in
/// with its storage class, so `1`, `1.0`, `'1'` and `x'31'` differ.
///
/// A table with two rowids or more is digested in two halves, the rows up to its middle rowid
/// and the rows above it, and its digest is the SHA-256 of the two: the halves can be read on
/// two connections at once (``DatabaseSnapshot/capture(_:comparingContent:upperHalves:)``),
/// and the middle follows from the rows themselves (the smallest and largest rowid), so a copy
/// with the same rows splits where its source does, whatever its page size.
enum TableContentDigest {
    /// Which of a table's rows a read takes.
    enum Part: Sendable {
        /// All of them.
        case whole
        /// Those whose rowid is at most this one.
        case upTo(Int64)
        /// Those whose rowid is above this one.
        case above(Int64)
    }

    /// Tells a read on another thread to stop: the capture it works for has failed.
    final class Stop: Sendable {
        private let stopped = Atomic<Bool>(false)
        func request() { stopped.store(true, ordering: .releasing) }
        var isRequested: Bool { stopped.load(ordering: .acquiring) }
    }

    /// Thrown by a read told to stop.
    struct Stopped: Error {}

    /// The rowid up to which the lower half of `table`'s rows goes, or `nil` when the table is
    /// digested whole (no rowid, or fewer than two). Two reads of the ends of the rowid b-tree.
    ///
    /// The middle is that of the rowids' range, not of the rows: a table whose rowids bunch at
    /// one end splits unevenly (the digest is the same; only the second core helps less).
    static func middleRowid(of table: TableShape, in db: Connection) throws -> Int64? {
        guard let rowid = table.rowidName else { return nil }
        let name = Connection.quoteIdentifier(table.name)
        // A rowid is an integer; anything else (a column that took the name) reads whole.
        guard case .integer(let smallest) = try db.fetchAll(sql: "SELECT min(\(rowid)) FROM main.\(name)").first?.values.first,
              case .integer(let largest) = try db.fetchAll(sql: "SELECT max(\(rowid)) FROM main.\(name)").first?.values.first,
              largest > smallest else { return nil }
        // The distance between any two Int64s fits in a UInt64.
        return smallest &+ Int64(bitPattern: UInt64(bitPattern: largest &- smallest) / 2)
    }

    /// The digest of a table digested in two halves, from the digests of its halves.
    static func combining(lower: [UInt8], upper: [UInt8]) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: lower)
        hasher.update(data: upper)
        return Array(hasher.finalize())
    }

    /// The digest of `table`'s rows (those of `part`), read on `db`, and how many there are
    /// (the same read counts them: a `count(*)` would read the table again).
    /// - Parameter stop: asked every 1,024 rows; when it is requested, the read throws ``Stopped``.
    static func of(_ table: TableShape, in db: Connection, part: Part = .whole, stop: Stop? = nil) throws -> (digest: [UInt8], rowCount: Int) {
        let sql = try query(for: table, part: part, in: db)
        let pointer = try db.handle.pointer
        var statement: OpaquePointer?
        try db.handle.check(sqlite3_prepare_v2(pointer, sql, -1, &statement, nil), sql: sql)
        defer { sqlite3_finalize(statement) }
        var hashing = Hashing()
        var rowCount = 0
        let columnCount = sqlite3_column_count(statement)
        while true {
            if rowCount & 1023 == 0, stop?.isRequested == true { throw Stopped() }
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw db.handle.error(code, sql: sql) }
            rowCount += 1
            hashing.append(byte: 0xFF)  // a row starts
            for column in 0..<columnCount {
                let type = sqlite3_column_type(statement, column)
                hashing.append(byte: UInt8(type))
                switch type {
                case SQLITE_INTEGER: hashing.append(word: UInt64(bitPattern: sqlite3_column_int64(statement, column)))
                case SQLITE_FLOAT: hashing.append(word: sqlite3_column_double(statement, column).bitPattern)
                case SQLITE_TEXT, SQLITE_BLOB:
                    let bytes = type == SQLITE_TEXT ? UnsafeRawPointer(sqlite3_column_text(statement, column)) : sqlite3_column_blob(statement, column)
                    let count = Int(sqlite3_column_bytes(statement, column))
                    hashing.append(word: UInt64(count))
                    if let bytes { hashing.append(UnsafeRawBufferPointer(start: bytes, count: count)) }
                default: break  // NULL: its type says all
                }
            }
        }
        return (hashing.finalize(), rowCount)
    }

    /// The query that reads `table`'s rows (those of `part`) in the order of their identity.
    static func query(for table: TableShape, part: Part = .whole, in db: Connection) throws -> String {
        let name = Connection.quoteIdentifier(table.name)
        if let rowid = table.rowidName {
            let range = switch part {
            case .whole: ""
            case .upTo(let middle): " WHERE \(rowid) <= \(middle)"
            case .above(let middle): " WHERE \(rowid) > \(middle)"
            }
            return "SELECT \(rowid), * FROM main.\(name)\(range) ORDER BY \(rowid)"
        }
        guard !table.primaryKey.isEmpty else {
            // Columns named rowid, _rowid_ and oid, and no primary key: the b-tree's order.
            return "SELECT * FROM main.\(name)"
        }
        // Under SQLite's own collations, in the key's order: the same in the source and the
        // copy, and read from the table's b-tree as it is, with no sort (whose rows would be
        // held in memory). Under an app's collation or GRDB's, in byte order: a copy builds its
        // b-tree in the order of the collation it has, which may not be the source's.
        let collations = try primaryKeyCollations(of: table.name, in: db)
        let order = table.primaryKey.enumerated().map { position, column in
            let collation = position < collations.count ? collations[position].uppercased() : "BINARY"
            return Connection.quoteIdentifier(column) + " COLLATE " + (sqliteCollations.contains(collation) ? collation : "BINARY")
        }
        return "SELECT * FROM main.\(name) ORDER BY \(order.joined(separator: ", "))"
    }

    /// The collations SQLite has built in, whose order is the same everywhere.
    private static let sqliteCollations: Set<String> = ["BINARY", "NOCASE", "RTRIM"]

    /// The collation of each of the primary key's columns in key order, as its index (the
    /// `WITHOUT ROWID` table's own b-tree) orders them; empty when the index is not found.
    private static func primaryKeyCollations(of table: String, in db: Connection) throws -> [String] {
        let indexes = try db.fetchAll(sql: "PRAGMA main.index_list(\(Connection.quoteIdentifier(table)))")
        guard let index = indexes.first(where: { $0.count > 3 && $0[3] == .text("pk") }), case .text(let name) = index[1] else { return [] }
        // index_xinfo: the fifth column is the collation, the sixth whether the column is a key.
        return try db.fetchAll(sql: "PRAGMA main.index_xinfo(\(Connection.quoteIdentifier(name)))").compactMap { row in
            guard row.count > 5, row[5] == .integer(1), case .text(let collation) = row[4] else { return nil }
            return collation
        }
    }

    /// The hasher, fed once per 64 KiB rather than per value. Written through a pointer: an
    /// array's append checks its capacity at every byte.
    private struct Hashing: ~Copyable {
        private static let capacity = 64 * 1024
        private var hasher = SHA256()
        private let storage = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        private var count = 0

        deinit { storage.deallocate() }

        mutating func append(byte: UInt8) {
            if count + 1 > Self.capacity { flush() }
            storage.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
            count += 1
        }

        mutating func append(word: UInt64) {
            if count + 8 > Self.capacity { flush() }
            storage.storeBytes(of: word.littleEndian, toByteOffset: count, as: UInt64.self)
            count += 8
        }

        /// A long value goes to the hasher directly, after what was gathered before it.
        mutating func append(_ value: UnsafeRawBufferPointer) {
            guard let base = value.baseAddress, !value.isEmpty else { return }
            if value.count > 4096 {
                flush()
                hasher.update(bufferPointer: value)
                return
            }
            if count + value.count > Self.capacity { flush() }
            (storage + count).copyMemory(from: base, byteCount: value.count)
            count += value.count
        }

        private mutating func flush() {
            guard count > 0 else { return }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(start: storage, count: count))
            count = 0
        }

        /// The digest of everything appended.
        consuming func finalize() -> [UInt8] {
            flush()
            return Array(hasher.finalize())
        }
    }
}
