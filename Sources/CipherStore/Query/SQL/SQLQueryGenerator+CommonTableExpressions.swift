/// The `WITH` clause of a query, and the columns of its expressions for the checks.
extension SQLQueryGenerator {
    /// The columns of a table, or of a common table expression of the query by that name.
    func knownColumns(of table: String) throws -> KnownColumns {
        if let expression = expressionColumns[KnownColumns.folded(table)] { return expression }
        return try db.columnNamesOfTable(table)
    }

    /// `WITH [RECURSIVE] name(columns) AS (…), … ` and its arguments; empty without
    /// expressions. Each expression's columns are learnt in order (given, or from preparing
    /// the clause so far), so that a later one, and the query, are checked against them.
    mutating func renderCommonTableExpressions(_ expressions: [SQLCommonTableExpression]) throws -> SQL {
        guard !expressions.isEmpty else { return SQL(sql: "") }
        let keyword = expressions.contains(where: \.isRecursive) ? "WITH RECURSIVE " : "WITH "
        var definitions: [String] = []
        var arguments: [DatabaseValue] = []
        var deferred: [String] = []
        for expression in expressions {
            var head = Connection.quoteIdentifier(expression.name)
            if let columns = expression.columns {
                head += "(" + columns.map(Connection.quoteIdentifier).joined(separator: ", ") + ")"
                // A recursive expression reads itself: its columns are known before its body.
                expressionColumns[KnownColumns.folded(expression.name)] = Self.known(columns)
            }
            let body = try self.body(of: expression)
            // A `--` comment at the end of the body would swallow the closing parenthesis.
            definitions.append(head + " AS (" + body.sql + "\n)")
            arguments += body.arguments
            if expression.columns == nil {
                // Probed with the clause so far; an expression that reads a later one (SQLite
                // allows it) is probed again once the whole clause is there.
                let probe = keyword + definitions.joined(separator: ", ") + " SELECT * FROM " + Connection.quoteIdentifier(expression.name)
                // Prepared afresh, not from the cache: a statement cached before another
                // connection changed a table keeps that table's old columns, and the request's
                // rows would be split by them.
                if let columns = try? db.makeStatement(sql: probe).columnNames {
                    expressionColumns[KnownColumns.folded(expression.name)] = Self.known(columns)
                } else {
                    deferred.append(expression.name)
                }
            }
        }
        for name in deferred {
            let probe = keyword + definitions.joined(separator: ", ") + " SELECT * FROM " + Connection.quoteIdentifier(name)
            do {
                expressionColumns[KnownColumns.folded(name)] = Self.known(try db.makeStatement(sql: probe).columnNames)
            } catch let error as DatabaseError {
                throw DatabaseError(resultCode: error.resultCode, message: "common table expression \(name) cannot be read: \(error.message ?? "\(error)"); nothing was run")
            }
        }
        return SQL(sql: keyword + definitions.joined(separator: ", ") + " ", arguments: arguments)
    }

    private func body(of expression: SQLCommonTableExpression) throws -> SQL {
        switch expression.body {
        case .sql(.success(let literal)):
            return literal
        case .sql(.failure(let problem)):
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "common table expression \(expression.name): " + problem.message + "; nothing was run")
        case .relation(let relation):
            // The request sees the expressions before it, and itself when its columns are given.
            var generator = SQLQueryGenerator(db: db)
            generator.expressionColumns = expressionColumns
            let query = try generator.select(relation)
            guard query.prefetches.isEmpty && query.hiddenColumnCount == 0 else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "common table expression \(expression.name): its request includes an association with including(all:), which is a second query; nothing was run")
            }
            return SQL(sql: query.sql, arguments: query.arguments)
        }
    }

    private static func known(_ names: [String]) -> KnownColumns {
        KnownColumns(names: names, lowercased: Set(names.map(KnownColumns.folded)), schemaVersion: 0)
    }
}
