extension Connection {
    /// Quotes an identifier (table, column, schema name) for SQL: wraps it in double quotes
    /// and doubles the quotes inside. The only way CipherStore puts a name into SQL text.
    ///
    /// ```swift
    /// Connection.quoteIdentifier(#"my "odd" table"#)  // "my ""odd"" table"
    /// ```
    public static func quoteIdentifier(_ name: String) -> String {
        // Byte by byte, as SQLite reads it: every U+0022 is doubled, whatever follows it.
        guard name.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + name + "\"" }
        var quoted: [UInt8] = [UInt8(ascii: "\"")]
        quoted.reserveCapacity(name.utf8.count + 4)
        for byte in name.utf8 {
            quoted.append(byte)
            if byte == UInt8(ascii: "\"") { quoted.append(byte) }
        }
        quoted.append(UInt8(ascii: "\""))
        return String(decoding: quoted, as: UTF8.self)
    }

    /// Whether a table (not a view) with this name exists (case-insensitive, as in SQL).
    public func tableExists(_ name: String, in schema: String = "main") throws -> Bool {
        let master = schema.lowercased() == "temp" ? "sqlite_temp_master" : "\(Self.quoteIdentifier(schema)).sqlite_master"
        return try fetchOne(sql: "SELECT 1 FROM \(master) WHERE type = 'table' AND name = ? COLLATE NOCASE", arguments: [name]) != nil
    }

    /// The names of the columns of a table, in order.
    public func columnNames(ofTable table: String) throws -> [String] {
        try fetchAll(sql: "PRAGMA table_info(\(Self.quoteIdentifier(table)))").map { try $0.value(String.self, named: "name") }
    }

    /// `PRAGMA user_version`: an integer the app may use as its schema version.
    public func userVersion() throws -> Int {
        try fetchScalar(Int.self, sql: "PRAGMA user_version") ?? 0
    }
}
