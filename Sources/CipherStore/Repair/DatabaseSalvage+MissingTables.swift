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
        for sql in writes(to: table) {
            if let name = tableMissing(preparing: sql, missing: missing) { return (table, name) }
        }
        return nil
    }

    /// The statements that write to `table` in every way a trigger can fire on.
    private func writes(to table: String) -> [String] {
        let quoted = Connection.quoteIdentifier(table)
        // A view that reads a missing table has no columns to read (its table_info fails).
        let columns = ((try? output.fetchAll(sql: "PRAGMA table_info(\(quoted))")) ?? []).compactMap { $0["name"] as String? }
            .map(Connection.quoteIdentifier)
        var writes = ["INSERT INTO \(quoted) DEFAULT VALUES", "DELETE FROM \(quoted)"]
        // Every column set, so that a trigger `UPDATE OF` any of them is compiled.
        if !columns.isEmpty { writes.append("UPDATE \(quoted) SET " + columns.map { "\($0) = \($0)" }.joined(separator: ", ")) }
        return writes
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

    /// Takes back the triggers that write to a view whose INSTEAD OF trigger was taken back
    /// (`views`, lowercased): with them, every write to their own table fails ("cannot modify
    /// V because it is a view"). A trigger taken back from a view can break another's in turn:
    /// this goes on until none is.
    /// - Returns: what the report says of each.
    func takeBackTriggersWriting(toViews views: Set<String>) throws -> [String] {
        var views = views
        var problems: [String] = []
        var changed = true
        while changed {
            changed = false
            let triggers = try output.fetchAll(sql: "SELECT name, tbl_name FROM sqlite_master WHERE type = 'trigger'").compactMap { row -> (String, String)? in
                guard let name = row["name"] as String?, let table = row["tbl_name"] as String? else { return nil }
                return (name, table)
            }
            for (name, table) in triggers {
                guard let view = viewWritten(to: table, views: views) else { continue }
                // Its table's writes fail with it, and compile without it: it is the one. In a
                // savepoint, so that the others keep their place in the schema.
                var isTheOne = false
                try output.inSavepoint {
                    try output.execute(sql: "DROP TRIGGER \(Connection.quoteIdentifier(name))")
                    isTheOne = viewWritten(to: table, views: views) == nil
                    return isTheOne ? .commit : .rollback
                }
                guard isTheOne else { continue }
                problems.append("trigger \(name) was not created: with it, every write to \(table) fails (it writes to view \(view), whose INSTEAD OF trigger was not created)")
                views.insert(table.lowercased())
                changed = true
            }
        }
        return problems
    }

    /// The view among `views` that a write to `table` fails on, because it is a view with no
    /// trigger to take the write; `nil` when every write compiles or fails otherwise.
    private func viewWritten(to table: String, views: Set<String>) -> String? {
        for sql in writes(to: table) {
            do {
                _ = try output.makeStatement(sql: sql)
            } catch let error as DatabaseError {
                // "cannot modify V because it is a view"
                guard let message = error.message, message.hasPrefix("cannot modify "),
                      let end = message.range(of: " because it is a view") else { continue }
                let view = String(message[message.index(message.startIndex, offsetBy: 14)..<end.lowerBound])
                if views.contains(view.lowercased()) { return view }
            } catch {
                continue
            }
        }
        return nil
    }
}
