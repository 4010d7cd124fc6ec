/// Tables created from the schema's SQL, and the functions their CHECK constraints call that
/// the tool lacks.
extension DatabaseSalvage {
    /// Why a table of the schema was not created though its SQL ran, or was not run.
    struct SchemaRowMismatch: Error, CustomStringConvertible {
        let description: String
    }

    /// Creates a table from its schema row's SQL, with stand-ins for the functions it calls that
    /// the tool does not have (SQLite 3.15 resolves a CHECK constraint's functions when the table
    /// is created; later versions when a row is inserted).
    ///
    /// A damaged schema row may hold other SQL: only a `CREATE TABLE` runs, and only one that
    /// creates a table of the row's name (a trigger made here would fire as the rows go in).
    /// - Throws: ``SchemaRowMismatch`` when the row's SQL is not that, or SQLite's error.
    func createTable(_ sql: String, named name: String) throws {
        guard Self.compactSQL(sql).hasPrefix("CREATETABLE") else {
            throw SchemaRowMismatch(description: "its schema row holds no CREATE TABLE statement")
        }
        let before = try schemaNames(ofType: "table")
        while true {
            do {
                try output.execute(sql: sql)
                break
            } catch let error as DatabaseError {
                guard let function = error.missingFunctionName, functionStandIns.insert(function.lowercased()).inserted else { throw error }
                try output.add(function: Self.standIn(function.lowercased()))
            }
        }
        let created = try schemaNames(ofType: "table").subtracting(before)
        guard created.contains(where: { $0.lowercased() == name.lowercased() }) else {
            for table in created { try output.execute(sql: "DROP TABLE \(Connection.quoteIdentifier(table))") }
            throw SchemaRowMismatch(description: "its schema row's SQL creates \(created.sorted().joined(separator: ", ")), not \(name)")
        }
    }

    /// The names of the result's objects of one type (`table`, `index`) now: what a `CREATE`
    /// made is what they gain.
    func schemaNames(ofType type: String) throws -> Set<String> {
        Set(try String.fetchAll(output, sql: "SELECT name FROM sqlite_master WHERE type = ?", arguments: [type]))
    }

    /// The functions (lowercased) a table's CHECK constraints call that the tool lacks.
    /// Preparing the insert its rows take resolves them, with the stand-ins set aside (another
    /// table may have needed them first); that insert names every column, so no column's
    /// default is read as a CHECK constraint.
    func functionsLacked(inserting target: inout TableTarget) throws -> Set<String> {
        try ignoreChecks(false)
        for function in functionStandIns { try output.remove(function: Self.standIn(function)) }
        var lacked = Set<String>()
        let sql = target.insertSQL(width: target.columnCount)
        while true {
            do {
                _ = try output.makeStatement(sql: sql)
                break
            } catch let error as DatabaseError {
                guard let function = error.missingFunctionName?.lowercased(), lacked.insert(function).inserted else { break }
                try output.add(function: Self.standIn(function))
            }
        }
        functionStandIns.formUnion(lacked)
        for function in functionStandIns.subtracting(lacked) { try output.add(function: Self.standIn(function)) }
        return lacked
    }

    /// Turns the evaluation of CHECK constraints off (`true`) or on, for the rows of a table
    /// that calls a stand-in.
    func ignoreChecks(_ ignore: Bool) throws {
        guard ignore != checksIgnored else { return }
        try output.execute(sql: "PRAGMA ignore_check_constraints = \(ignore ? "ON" : "OFF")")
        checksIgnored = ignore
    }

    /// A function that returns NULL for any arguments: deterministic, as a CHECK constraint
    /// requires of the functions it calls.
    static func standIn(_ name: String) -> DatabaseFunction {
        DatabaseFunction(name, pure: true) { _ in nil }
    }
}
