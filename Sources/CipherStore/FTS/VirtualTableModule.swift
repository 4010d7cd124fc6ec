/// A kind of virtual table that ``Connection/create(virtualTable:options:using:_:)`` can
/// create: ``FTS4`` or ``FTS5``.
public protocol VirtualTableModule {
    /// What the table's definition block receives: ``FTS4TableDefinition``, ``FTS5TableDefinition``.
    associatedtype TableDefinition

    /// The module's name in `CREATE VIRTUAL TABLE … USING name(…)`.
    var moduleName: String { get }

    /// A fresh definition for the block of ``Connection/create(virtualTable:options:using:_:)``.
    func makeTableDefinition(configuration: VirtualTableConfiguration) -> TableDefinition

    /// The arguments between the parentheses of `USING name(…)`, in order.
    func moduleArguments(for definition: TableDefinition, in db: Connection) throws -> [String]

    /// Runs right after the table is created, in the same savepoint (triggers, a first index build).
    func database(_ db: Connection, didCreate tableName: String, using definition: TableDefinition) throws
}

/// Options of ``Connection/create(virtualTable:options:using:_:)``.
public struct VirtualTableOptions: OptionSet, Sendable {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// `CREATE VIRTUAL TABLE IF NOT EXISTS`: an existing table of that name is left alone.
    public static let ifNotExists = VirtualTableOptions(rawValue: 1 << 0)
    /// A table in the `temp` schema, gone when the connection closes.
    public static let temporary = VirtualTableOptions(rawValue: 1 << 1)
}

/// How a virtual table is being created, for its module.
public struct VirtualTableConfiguration: Sendable {
    /// `IF NOT EXISTS` was asked for.
    public let ifNotExists: Bool
    /// The table goes to the `temp` schema.
    public let temporary: Bool
}

extension Connection {
    /// Creates a virtual table: a full-text index with ``FTS4`` or ``FTS5``.
    ///
    /// ```swift
    /// // CREATE VIRTUAL TABLE "document" USING fts4("body", tokenize=cjk)
    /// try db.create(virtualTable: "document", using: FTS4()) { t in
    ///     t.column("body")
    ///     t.tokenizer = .cjk
    /// }
    /// ```
    ///
    /// The table, and whatever its module adds (the triggers of
    /// ``FTS4TableDefinition/synchronize(withTable:)``), are created in one savepoint: on an
    /// error nothing is left.
    ///
    /// - Parameters:
    ///   - name: the table's name.
    ///   - options: ``VirtualTableOptions/ifNotExists``, ``VirtualTableOptions/temporary``.
    ///   - module: `FTS4()` or `FTS5()` (``FTS4``, ``FTS5``).
    ///   - body: defines the columns and options.
    /// - Throws: ``DatabaseError``, e.g. "no such module: fts5" on SQLCipher 3.
    public func create<Module: VirtualTableModule>(virtualTable name: String, options: VirtualTableOptions = [], using module: Module,
                                                   _ body: ((Module.TableDefinition) throws -> Void)? = nil) throws {
        let configuration = VirtualTableConfiguration(ifNotExists: options.contains(.ifNotExists), temporary: options.contains(.temporary))
        let definition = module.makeTableDefinition(configuration: configuration)
        try body?(definition)
        let arguments = try module.moduleArguments(for: definition, in: self)
        var sql = "CREATE VIRTUAL TABLE "
        if configuration.ifNotExists { sql += "IF NOT EXISTS " }
        if configuration.temporary { sql += "temp." }
        sql += Self.quoteIdentifier(name) + " USING " + module.moduleName
        if !arguments.isEmpty { sql += "(" + arguments.joined(separator: ", ") + ")" }
        try inSavepoint {
            try execute(sql: sql)
            try module.database(self, didCreate: name, using: definition)
            return .commit
        }
    }
}
