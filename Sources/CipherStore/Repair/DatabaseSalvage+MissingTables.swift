/// What a virtual table the repair could not recreate breaks: reading a view of it, and every
/// write to a table whose trigger uses it ("no such table"). SQLite says so when a statement is
/// prepared: a view is expanded, and a table's triggers compiled with each write to it, so
/// preparing them finds every way of naming the table (quoted, as a string after `FROM`,
/// through a view), with nothing read from the SQL's text.
extension DatabaseSalvage {
    /// The missing table (one of `missing`, lowercased) that a write to `table` fails on now
    /// that trigger `trigger` is created; `nil` when every write still compiles.
    func writeThatFails(afterTrigger trigger: String, on table: String, missing: Set<String>) throws -> (table: String, missing: String)? {
        // The table the trigger is on, as SQLite reads it (the schema row may say otherwise).
        let table = try output.fetchScalar(String.self, sql: "SELECT tbl_name FROM sqlite_master WHERE type = 'trigger' AND name = ?", arguments: [trigger]) ?? table
        let quoted = Connection.quoteIdentifier(table)
        // A view that reads a missing table has no columns to read (its table_info fails).
        let columns = ((try? output.fetchAll(sql: "PRAGMA table_info(\(quoted))")) ?? []).compactMap { $0["name"] as String? }
            .map(Connection.quoteIdentifier)
        var writes = ["INSERT INTO \(quoted) DEFAULT VALUES", "DELETE FROM \(quoted)"]
        // Every column set, so that a trigger `UPDATE OF` any of them is compiled.
        if !columns.isEmpty { writes.append("UPDATE \(quoted) SET " + columns.map { "\($0) = \($0)" }.joined(separator: ", ")) }
        for sql in writes {
            if let name = tableMissing(preparing: sql, missing: missing) { return (table, name) }
        }
        return nil
    }

    /// The missing table (one of `missing`) that reading view `view` fails on, or `nil`.
    func tableMissing(readingView view: String, missing: Set<String>) -> String? {
        tableMissing(preparing: "SELECT * FROM \(Connection.quoteIdentifier(view))", missing: missing)
    }

    /// The table among `missing` (lowercased) that preparing `sql` fails for lack of, or `nil`:
    /// other errors are not this check's. A function the app registers and the tool lacks
    /// would stop the preparing first: it gets a stand-in meanwhile, so that the check goes on.
    private func tableMissing(preparing sql: String, missing: Set<String>) -> String? {
        var standIns: [String] = []
        defer { for name in standIns { try? output.remove(function: Self.standIn(name)) } }
        while true {
            do {
                _ = try output.makeStatement(sql: sql)
                return nil
            } catch let error as DatabaseError {
                if let function = error.missingFunctionName?.lowercased(), !standIns.contains(function),
                   (try? output.add(function: Self.standIn(function))) != nil {
                    standIns.append(function)
                    continue
                }
                guard let name = error.missingTableName, missing.contains(name.lowercased()) else { return nil }
                return name
            } catch {
                return nil
            }
        }
    }
}
