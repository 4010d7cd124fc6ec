import CSQLCipher

/// The FTS5 full-text engine: SQLCipher 4 has it, SQLCipher 3.4.1 (SQLite 3.15.2) does not —
/// creating an FTS5 table there throws "no such module: fts5"; use ``FTS4`` on both.
///
/// ```swift
/// // CREATE VIRTUAL TABLE "document" USING fts5("body", tokenize='cjk')
/// try db.create(virtualTable: "document", using: FTS5()) { t in
///     t.column("body")
///     t.tokenizer = .cjk
/// }
/// let best = try Document.matching(FTS5Pattern(matchingAllTokensIn: "温泉"))
///     .order(Column.rank).fetchAll(db)
/// ```
///
/// See <doc:FullTextSearch> and <https://www.sqlite.org/fts5.html>.
public struct FTS5: Sendable {
    /// The FTS5 module, for ``Connection/create(virtualTable:options:using:_:)``.
    public init() {}

    /// Whether the linked SQLCipher has FTS5 (SQLCipher 4 does, 3.4.1 does not).
    public static var isAvailable: Bool {
        sqlite3_compileoption_used("SQLITE_ENABLE_FTS5") != 0
    }
}

extension FTS5: VirtualTableModule {
    public var moduleName: String { "fts5" }

    public func makeTableDefinition(configuration: VirtualTableConfiguration) -> FTS5TableDefinition {
        FTS5TableDefinition(configuration: configuration)
    }

    public func moduleArguments(for definition: FTS5TableDefinition, in db: Connection) throws -> [String] {
        guard !definition.columns.isEmpty else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "an FTS5 table needs at least one column: add one with t.column(_:); nothing was created")
        }
        var arguments = definition.columns.map { Connection.quoteIdentifier($0.name) + ($0.isIndexed ? "" : " UNINDEXED") }
        if let tokenizer = definition.tokenizer { arguments.append("tokenize=" + tokenizer.sql) }
        if let content = definition.content { arguments.append("content=" + Self.literal(content)) }
        if let contentRowID = definition.contentRowID { arguments.append("content_rowid=" + Self.literal(contentRowID)) }
        if let prefixes = definition.prefixes, !prefixes.isEmpty {
            arguments.append("prefix=" + Self.literal(prefixes.sorted().map(String.init).joined(separator: " ")))
        }
        return arguments
    }

    public func database(_ db: Connection, didCreate tableName: String, using definition: FTS5TableDefinition) throws {
        guard let contentTable = definition.synchronizedTable else { return }
        guard !definition.configuration.temporary else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "a temporary FTS5 table cannot be synchronized with a table: drop .temporary, or fill the table yourself; nothing was created")
        }
        let fts = Connection.quoteIdentifier(tableName)
        let content = Connection.quoteIdentifier(contentTable)
        let columns = definition.columns.map { Connection.quoteIdentifier($0.name) }
        let ftsColumns = (["rowid"] + columns).joined(separator: ", ")
        let newValues = (["new.rowid"] + columns.map { "new." + $0 }).joined(separator: ", ")
        let oldValues = (["old.rowid"] + columns.map { "old." + $0 }).joined(separator: ", ")
        let create = "CREATE TRIGGER " + (definition.configuration.ifNotExists ? "IF NOT EXISTS " : "")
        let name = { (suffix: String) in Connection.quoteIdentifier("__\(tableName)_\(suffix)") }
        // An external-content FTS5 table removes a row given the text it was indexed with:
        // the 'delete' command with the old values.
        try db.execute(sql: "\(create)\(name("ai")) AFTER INSERT ON \(content) BEGIN INSERT INTO \(fts)(\(ftsColumns)) VALUES (\(newValues)); END")
        try db.execute(sql: "\(create)\(name("ad")) AFTER DELETE ON \(content) BEGIN INSERT INTO \(fts)(\(fts), \(ftsColumns)) VALUES ('delete', \(oldValues)); END")
        try db.execute(sql: """
            \(create)\(name("au")) AFTER UPDATE ON \(content) BEGIN \
            INSERT INTO \(fts)(\(fts), \(ftsColumns)) VALUES ('delete', \(oldValues)); \
            INSERT INTO \(fts)(\(ftsColumns)) VALUES (\(newValues)); END
            """)
        try db.execute(sql: "INSERT INTO \(fts)(\(fts)) VALUES('rebuild')")
    }

    /// An option value as an SQL string literal.
    static func literal(_ value: String) -> String {
        "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
    }
}

/// The columns and options of an ``FTS5`` table, given to the block of
/// ``Connection/create(virtualTable:options:using:_:)``.
public final class FTS5TableDefinition {
    let configuration: VirtualTableConfiguration
    var columns: [FTS5ColumnDefinition] = []
    var synchronizedTable: String?
    private var contentTable: String?

    init(configuration: VirtualTableConfiguration) {
        self.configuration = configuration
    }

    /// The tokenizer (`tokenize=`): ``FTS5TokenizerDescriptor/cjk`` for Chinese and Japanese
    /// text; FTS5's `unicode61` when `nil`.
    public var tokenizer: FTS5TokenizerDescriptor?

    /// `content=`: the table the indexed text is read from, or `""` for a contentless table.
    /// Prefer ``synchronize(withTable:)``; setting this property undoes it.
    public var content: String? {
        get { synchronizedTable ?? contentTable }
        set {
            contentTable = newValue
            synchronizedTable = nil
        }
    }

    /// `content_rowid=`: the content table's integer key, when it is not the rowid.
    public var contentRowID: String?

    /// `prefix=`: also index the prefixes of these lengths, for fast prefix queries.
    public var prefixes: Set<Int>?

    /// Adds a column.
    @discardableResult
    public func column(_ name: String) -> FTS5ColumnDefinition {
        let column = FTS5ColumnDefinition(name: name)
        columns.append(column)
        return column
    }

    /// Makes the full-text table an index of another table's columns (external content),
    /// built from the rows already there and kept up to date by triggers named
    /// `__<name>_ai`, `__<name>_ad` and `__<name>_au` on the content table. Each full-text
    /// row's rowid is the content row's. When dropping the full-text table, drop them too, with
    /// ``Connection/dropFTS5SynchronizationTriggers(forTable:)``.
    public func synchronize(withTable tableName: String) {
        synchronizedTable = tableName
        contentTable = nil
    }
}

/// Mutable, like the definition it belongs to.
@available(*, unavailable)
extension FTS5TableDefinition: Sendable {}

/// One column of an ``FTS5`` table.
public final class FTS5ColumnDefinition {
    let name: String
    var isIndexed = true

    init(name: String) {
        self.name = name
    }

    /// `UNINDEXED`: the column is stored but not searched.
    @discardableResult
    public func notIndexed() -> Self {
        isIndexed = false
        return self
    }
}

/// Mutable, like the definition it belongs to.
@available(*, unavailable)
extension FTS5ColumnDefinition: Sendable {}

extension Connection {
    /// Drops the triggers ``FTS5TableDefinition/synchronize(withTable:)`` created for the
    /// full-text table `tableName`; do it when dropping that table, or every write to the
    /// content table fails.
    public func dropFTS5SynchronizationTriggers(forTable tableName: String) throws {
        for suffix in ["ai", "ad", "au"] {
            try execute(sql: "DROP TRIGGER IF EXISTS " + Self.quoteIdentifier("__\(tableName)_\(suffix)"))
        }
    }
}
