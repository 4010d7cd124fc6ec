import CSQLCipher
import Crypto

/// A SHA-256 of every row of a stored table, each with its identity: the rowid, or in a
/// `WITHOUT ROWID` table the primary key (which is among the values).
///
/// Rows are read in the order of their identity (the table's own b-tree order), so two
/// tables with the same rows under the same rowids have the same digest, whatever their
/// pages look like; a row renumbered, changed, lost or added changes it. Each value goes in
/// with its storage class, so `1`, `1.0`, `'1'` and `x'31'` differ.
enum TableContentDigest {
    /// The digest of `table`'s rows, read on `db`.
    static func of(_ table: TableShape, in db: Connection) throws -> [UInt8] {
        let name = Connection.quoteIdentifier(table.name)
        let sql: String
        if let rowid = table.rowidName {
            sql = "SELECT \(rowid), * FROM main.\(name) ORDER BY \(rowid)"
        } else if !table.primaryKey.isEmpty {
            sql = "SELECT * FROM main.\(name) ORDER BY \(table.primaryKey.map(Connection.quoteIdentifier).joined(separator: ", "))"
        } else {
            // Columns named rowid, _rowid_ and oid, and no primary key: the b-tree's order.
            sql = "SELECT * FROM main.\(name)"
        }
        let pointer = try db.handle.pointer
        var statement: OpaquePointer?
        try db.handle.check(sqlite3_prepare_v2(pointer, sql, -1, &statement, nil), sql: sql)
        defer { sqlite3_finalize(statement) }
        var hasher = SHA256()
        var buffer = Buffer()
        let columnCount = sqlite3_column_count(statement)
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw db.handle.error(code, sql: sql) }
            buffer.append(byte: 0xFF)  // a row starts
            for column in 0..<columnCount {
                let type = sqlite3_column_type(statement, column)
                buffer.append(byte: UInt8(type))
                switch type {
                case SQLITE_INTEGER: buffer.append(word: UInt64(bitPattern: sqlite3_column_int64(statement, column)))
                case SQLITE_FLOAT: buffer.append(word: sqlite3_column_double(statement, column).bitPattern)
                case SQLITE_TEXT, SQLITE_BLOB:
                    let bytes = type == SQLITE_TEXT ? UnsafeRawPointer(sqlite3_column_text(statement, column)) : sqlite3_column_blob(statement, column)
                    let count = Int(sqlite3_column_bytes(statement, column))
                    buffer.append(word: UInt64(count))
                    if let bytes, count > 0 { buffer.append(UnsafeRawBufferPointer(start: bytes, count: count), into: &hasher) }
                default: break  // NULL: its type says all
                }
            }
            if buffer.isFull { buffer.flush(into: &hasher) }
        }
        buffer.flush(into: &hasher)
        return Array(hasher.finalize())
    }

    /// Bytes gathered for the hasher, so that it is called once per 64 KiB, not per value.
    private struct Buffer {
        private var bytes: [UInt8] = []
        private static let capacity = 64 * 1024

        init() { bytes.reserveCapacity(Self.capacity + 64) }

        var isFull: Bool { bytes.count >= Self.capacity }

        mutating func append(byte: UInt8) { bytes.append(byte) }

        mutating func append(word: UInt64) {
            withUnsafeBytes(of: word.littleEndian) { bytes.append(contentsOf: $0) }
        }

        /// A long value goes to the hasher directly, after what was gathered before it.
        mutating func append(_ value: UnsafeRawBufferPointer, into hasher: inout SHA256) {
            if value.count > 4096 {
                flush(into: &hasher)
                hasher.update(bufferPointer: value)
            } else {
                bytes.append(contentsOf: value)
            }
        }

        mutating func flush(into hasher: inout SHA256) {
            guard !bytes.isEmpty else { return }
            bytes.withUnsafeBytes { hasher.update(bufferPointer: $0) }
            bytes.removeAll(keepingCapacity: true)
        }
    }
}
