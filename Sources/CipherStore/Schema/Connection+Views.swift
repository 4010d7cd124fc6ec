/// Views made and dropped without writing the statement, in GRDB's spelling:
///
/// ```swift
/// try db.create(view: "recentNote", as: Note.filter(Column("year") >= 2020).order(Column("title")))
/// try db.create(view: "noteTitle", columns: ["title"], asLiteral: "SELECT title FROM note WHERE year > \(1999)")
/// let recent = try Row.fetchAll(db, sql: "SELECT * FROM recentNote")
/// ```
///
/// A view's statement is stored in the schema, where nothing can be bound: each argument is
/// written into it as a literal (`'it''s'`, `X'00FF'`, a NUL as `char(0)`), so a view reads
/// the same values whoever opens the file.
extension Connection {
    /// `CREATE VIEW … AS` the SELECT of a request.
    /// - Parameters:
    ///   - name: the view's name.
    ///   - options: `.temporary` (the view lasts as long as the connection), `.ifNotExists`.
    ///   - columns: the view's column names; the request's by default.
    ///   - request: the rows of the view: one SELECT, so a request with `including(all:)` (a
    ///     second query) is refused.
    /// - Throws: ``DatabaseError`` for an unknown column or table, a refused request, or a
    ///   view that exists; nothing is created then.
    public func create<RowDecoder>(view name: String, options: ViewOptions = [], columns: [String]? = nil,
                                   as request: QueryInterfaceRequest<RowDecoder>) throws {
        var generator = SQLQueryGenerator(db: self)
        let query = try generator.select(request.relation)
        guard query.prefetches.isEmpty && query.hiddenColumnCount == 0 else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "view \(name): a view is one SELECT, and including(all:) fetches its records by a second query; create the view without it, and include the association when you fetch from the view; nothing was created")
        }
        try create(view: name, options: options, columns: columns, asLiteral: SQL(sql: query.sql, arguments: query.arguments))
    }

    /// `CREATE VIEW … AS` a SELECT written in SQL: interpolated values are written into the
    /// view's statement as literals.
    /// - Parameters:
    ///   - name: the view's name.
    ///   - options: `.temporary`, `.ifNotExists`.
    ///   - columns: the view's column names; the SELECT's by default.
    ///   - sql: the SELECT.
    /// - Throws: ``DatabaseError`` when the SELECT fails to compile or to read (a missing
    ///   table or column, a column list of another length), or its placeholders and values
    ///   differ; nothing is created then.
    public func create(view name: String, options: ViewOptions = [], columns: [String]? = nil, asLiteral sql: SQL) throws {
        let select: String
        switch SQLFragment.inlined(sql) {
        case .success(let text): select = text
        case .failure(let problem):
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "view \(name): " + problem.message + "; nothing was created")
        }
        var statement = "CREATE " + (options.contains(.temporary) ? "TEMPORARY " : "") + "VIEW "
        if options.contains(.ifNotExists) { statement += "IF NOT EXISTS " }
        statement += Connection.quoteIdentifier(name) + " "
        if let columns { statement += "(" + TableDefinition.quoted(columns) + ") " }
        // A comment at the end of the SELECT would swallow nothing, but keep it off the AS line.
        let create = statement + "AS " + select + "\n"
        try inSavepoint {
            try execute(sql: create)
            // SQLite checks a view's SELECT only when the view is read: read it now, so that a
            // missing table or column, or a column list of another length, leaves no view.
            do {
                // Named with its schema: a temporary object of the same name would answer instead.
                let schema = options.contains(.temporary) ? "temp" : "main"
                _ = try makeStatement(sql: "SELECT * FROM " + schema + "." + Connection.quoteIdentifier(name))
            } catch let error as DatabaseError {
                throw DatabaseError(resultCode: error.resultCode, message: "view \(name) cannot be read: \(error.message ?? "\(error)"); nothing was created")
            }
            return .commit
        }
    }

    /// `DROP VIEW`.
    public func drop(view name: String) throws {
        try execute(sql: "DROP VIEW " + Connection.quoteIdentifier(name))
    }
}

/// How ``Connection/create(view:options:columns:as:)`` creates a view.
public struct ViewOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `IF NOT EXISTS`: an existing view of that name is left as it is.
    public static let ifNotExists = ViewOptions(rawValue: 1 << 0)
    /// `TEMPORARY`: the view lasts as long as the connection, and is not stored in the file.
    public static let temporary = ViewOptions(rawValue: 1 << 1)
}
