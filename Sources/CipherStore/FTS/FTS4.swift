/// The FTS4 full-text engine, present on every SQLCipher CipherStore supports.
///
/// ```swift
/// // CREATE VIRTUAL TABLE "document" USING fts4("title", "body", tokenize=cjk)
/// try db.create(virtualTable: "document", using: FTS4()) { t in
///     t.column("title")
///     t.column("body")
///     t.tokenizer = .cjk
/// }
/// let found = try Document.matching(FTS3Pattern(matchingAllTokensIn: "温泉 iPhone")).fetchAll(db)
/// ```
///
/// See <doc:FullTextSearch> and <https://www.sqlite.org/fts3.html>.
public struct FTS4: Sendable {
    /// The FTS4 module, for ``Connection/create(virtualTable:options:using:_:)``.
    public init() {}
}

extension FTS4: VirtualTableModule {
    public var moduleName: String { "fts4" }

    public func makeTableDefinition(configuration: VirtualTableConfiguration) -> FTS4TableDefinition {
        FTS4TableDefinition(configuration: configuration)
    }

    public func moduleArguments(for definition: FTS4TableDefinition, in db: Connection) throws -> [String] {
        var arguments: [String] = []
        for column in definition.columns {
            arguments.append(Connection.quoteIdentifier(column.name))
            if !column.isIndexed { arguments.append("notindexed=" + Connection.quoteIdentifier(column.name)) }
        }
        if let tokenizer = definition.tokenizer { arguments.append("tokenize=" + tokenizer.sql) }
        if let content = definition.content { arguments.append("content=" + Connection.quoteIdentifier(content)) }
        if let prefixes = definition.prefixes, !prefixes.isEmpty {
            arguments.append("prefix=\"" + prefixes.sorted().map(String.init).joined(separator: ",") + "\"")
        }
        return arguments
    }

    public func database(_ db: Connection, didCreate tableName: String, using definition: FTS4TableDefinition) throws {
        guard let contentTable = definition.synchronizedTable else { return }
        guard !definition.configuration.temporary else {
            // SQLite cannot rebuild the index of a temporary external-content table.
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "a temporary FTS4 table cannot be synchronized with a table: drop .temporary, or fill the table yourself; nothing was created")
        }
        try db.createFTS4SynchronizationTriggers(forTable: tableName, contentTable: contentTable,
                                                 columns: definition.columns.map(\.name),
                                                 ifNotExists: definition.configuration.ifNotExists)
        // https://www.sqlite.org/fts3.html#*fts4rebuidcmd: index the rows already there.
        let table = Connection.quoteIdentifier(tableName)
        try db.execute(sql: "INSERT INTO \(table)(\(table)) VALUES('rebuild')")
    }
}

/// The columns and options of an ``FTS4`` table, given to the block of
/// ``Connection/create(virtualTable:options:using:_:)``.
public final class FTS4TableDefinition {
    let configuration: VirtualTableConfiguration
    var columns: [FTS4ColumnDefinition] = []
    /// Set by ``synchronize(withTable:)``.
    var synchronizedTable: String?

    init(configuration: VirtualTableConfiguration) {
        self.configuration = configuration
    }

    /// The tokenizer (`tokenize=`): ``FTS3TokenizerDescriptor/cjk`` for Chinese and Japanese
    /// text; SQLite's `simple` when `nil`.
    public var tokenizer: FTS3TokenizerDescriptor?

    /// `content=`: the table the indexed text is read from (an external-content table). Prefer
    /// ``synchronize(withTable:)``, which also keeps the index up to date; setting this
    /// property undoes it.
    public var content: String? {
        get { synchronizedTable ?? contentTable }
        set {
            contentTable = newValue
            synchronizedTable = nil
        }
    }
    private var contentTable: String?

    /// `prefix=`: also index the prefixes of these lengths (in characters), so that prefix
    /// queries (`iph*`) read one entry instead of a range.
    public var prefixes: Set<Int>?

    /// Adds a column; its name must be one of the content table's when the table is
    /// synchronized with one.
    @discardableResult
    public func column(_ name: String) -> FTS4ColumnDefinition {
        let column = FTS4ColumnDefinition(name: name)
        columns.append(column)
        return column
    }

    /// Makes the full-text table an index of another table's columns (an external-content
    /// FTS4 table): the text stays in `tableName`, the index is built from the rows already
    /// there, and triggers keep it up to date when rows are inserted, updated and deleted.
    ///
    /// ```swift
    /// try db.create(virtualTable: "status_ft", using: FTS4()) { t in
    ///     t.synchronize(withTable: "status")
    ///     t.column("text")
    ///     t.tokenizer = .cjk
    /// }
    /// ```
    ///
    /// Each full-text row's `docid` is the content row's `rowid`. The triggers are named
    /// `__<name>_bu`, `__<name>_bd`, `__<name>_au` and `__<name>_ai`; they belong to the
    /// content table and go when it is dropped. Dropping the full-text table leaves them,
    /// and every write to the content table then fails: drop them too, with
    /// ``Connection/dropFTS4SynchronizationTriggers(forTable:)``.
    public func synchronize(withTable tableName: String) {
        synchronizedTable = tableName
        contentTable = nil
    }
}

/// Mutable, like the definition it belongs to.
@available(*, unavailable)
extension FTS4TableDefinition: Sendable {}

/// One column of an ``FTS4`` table.
public final class FTS4ColumnDefinition {
    let name: String
    var isIndexed = true

    init(name: String) {
        self.name = name
    }

    /// `notindexed=`: the column is stored but not searched.
    @discardableResult
    public func notIndexed() -> Self {
        isIndexed = false
        return self
    }
}

/// Mutable, like the definition it belongs to.
@available(*, unavailable)
extension FTS4ColumnDefinition: Sendable {}

extension Connection {
    /// The four triggers of ``FTS4TableDefinition/synchronize(withTable:)``: the old row
    /// leaves the index before the content row changes (FTS4 reads the old text from it),
    /// the new row enters after.
    func createFTS4SynchronizationTriggers(forTable tableName: String, contentTable: String, columns: [String], ifNotExists: Bool) throws {
        let fts = Self.quoteIdentifier(tableName)
        let content = Self.quoteIdentifier(contentTable)
        let ftsColumns = (["docid"] + columns.map(Self.quoteIdentifier)).joined(separator: ", ")
        let newValues = (["new.rowid"] + columns.map { "new." + Self.quoteIdentifier($0) }).joined(separator: ", ")
        let create = "CREATE TRIGGER " + (ifNotExists ? "IF NOT EXISTS " : "")
        let name = { (suffix: String) in Self.quoteIdentifier("__\(tableName)_\(suffix)") }
        try execute(sql: "\(create)\(name("bu")) BEFORE UPDATE ON \(content) BEGIN DELETE FROM \(fts) WHERE docid = old.rowid; END")
        try execute(sql: "\(create)\(name("bd")) BEFORE DELETE ON \(content) BEGIN DELETE FROM \(fts) WHERE docid = old.rowid; END")
        try execute(sql: "\(create)\(name("au")) AFTER UPDATE ON \(content) BEGIN INSERT INTO \(fts)(\(ftsColumns)) VALUES (\(newValues)); END")
        try execute(sql: "\(create)\(name("ai")) AFTER INSERT ON \(content) BEGIN INSERT INTO \(fts)(\(ftsColumns)) VALUES (\(newValues)); END")
    }

    /// Drops the triggers ``FTS4TableDefinition/synchronize(withTable:)`` created for the
    /// full-text table `tableName`; do it when dropping that table.
    ///
    /// ```swift
    /// try db.execute(sql: "DROP TABLE status_ft")
    /// try db.dropFTS4SynchronizationTriggers(forTable: "status_ft")
    /// ```
    public func dropFTS4SynchronizationTriggers(forTable tableName: String) throws {
        for suffix in ["bu", "bd", "au", "ai"] {
            try execute(sql: "DROP TRIGGER IF EXISTS " + Self.quoteIdentifier("__\(tableName)_\(suffix)"))
        }
    }
}
