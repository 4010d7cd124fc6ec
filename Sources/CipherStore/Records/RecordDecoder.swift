import CSQLCipher
import Foundation

/// Decodes `Decodable` records from a ``ColumnSource``: a statement's current row (record
/// cursors, nothing copied) or a fetched ``Row`` (``Connection/decode(_:from:)``). One
/// implementation for both, so both read the same values and throw the same
/// ``RecordDecodingError``s; reading a column costs no boxing and no allocation.
///
/// Columns are matched to coding keys by name once per decoder, not once per row (see
/// ``DecodingPlan``), and the keyed container a record asks for is made once and handed out
/// again for every row of the same record type.
final class RecordDecoder {
    @exclusivity(unchecked) private(set) var source: ColumnSource
    /// The row split by association, for a request with associations; `nil` on the usual,
    /// one-table path.
    @exclusivity(unchecked) private(set) var scoped: ScopedRow?
    /// The scope whose columns this decoder matches keys against, for a row split by
    /// association (its reads go to `source` at the query's column index); `nil`: all of
    /// the source's columns.
    private let scope: ScopePlan?
    /// For rows split by association: what each key names, the decoders of the nested
    /// records, and what the n-th property decoded through them found, kept from row to row
    /// (every row of one request splits the same way) so that, as for columns, each is worked
    /// out once. See `RecordDecoder+Associations.swift`.
    var associationKeys: [String: AssociationKey] = [:]
    var nestedDecoders: [String: RecordDecoder] = [:]
    @exclusivity(unchecked) var associationSteps: [AssociationStep] = []
    @exclusivity(unchecked) var associationPosition = 0
    /// The key of the record-typed property this row's record read from the row's own
    /// columns, named by no column or association (``claimRowRecordKey(_:)``).
    @exclusivity(unchecked) var rowRecordKey: String?
    /// The record being decoded, named in errors.
    private var recordType: Any.Type = Any.self
    /// Whether the "record" being decoded is a `UInt64` or `UInt`, which are no column types:
    /// fetching one as a value falls back to decoding a record, and the error says why.
    var isDecodingWideUnsignedInteger: Bool { recordType == UInt64.self || recordType == UInt.self }
    /// The record's type when it is a ``FetchableRecord``: it says how dates are read.
    private var dateStrategies: (any FetchableRecord.Type)?
    /// The record's `init(row:)` when it is a ``RowDecodableRecord`` (a `RowRecordBuilder` of
    /// `recordType`): it builds the record instead of `init(from:)`.
    private var rowBuilder: AnyObject?
    /// The view a ``RowDecodableRecord``'s `init(row:)` borrows on a statement's current row
    /// (or a scope of it, with no to-many rows): one serves every row (``KeptRowView``).
    @exclusivity(unchecked) private var statementView: KeptRowView?
    @exclusivity(unchecked) private var plan = DecodingPlan()
    /// The keyed container the last record asked for, kept for the next row while its key type
    /// is the same: the standard library boxes every container in a class instance, and making
    /// one per row cost about as much as reading ten integers. The container holds this decoder,
    /// so ``releaseContainers()`` breaks the cycle when the decoder is done.
    @exclusivity(unchecked) private var keptContainer: (keyType: ObjectIdentifier, container: AnyObject)?

    /// How many records this one is nested in, on one row (`var author: Author` read from the
    /// row's own columns): a type that contains itself stops at a bound instead of recursing.
    let nestingDepth: Int

    /// Whether every row this decoder reads is its statement's current row, split by the same
    /// plan, with no to-many rows (a record cursor's rows): the scoped row it was made with
    /// stays true from row to row, so it and its nested records' decoders are given nothing
    /// per row (``associated(_:_:forKey:)``).
    let readsStatementInPlace: Bool

    /// For a record read from its parent's row (`var author: Author` named by no column): the
    /// names, lowercased, that more than one of the row's columns has. Such a record cannot
    /// tell which is its own (`SELECT book.*, author.*` has two `id`s): reading one whose
    /// columns differ in the row is an error rather than the leftmost column's value (equal
    /// ones, a join's key on both sides, read as one). Empty for every other decoder.
    let repeatedNames: Set<String>

    init(source: ColumnSource, nestingDepth: Int = 0) {
        self.source = source
        self.scoped = nil
        self.scope = nil
        self.nestingDepth = nestingDepth
        self.readsStatementInPlace = false
        self.repeatedNames = nestingDepth > 0 ? Self.repeatedNames(source.columnNames) : []
    }

    private static func repeatedNames(_ names: [String]) -> Set<String> {
        var seen: Set<String> = []
        var repeated: Set<String> = []
        for name in names where !seen.insert(name.lowercased()).inserted { repeated.insert(name.lowercased()) }
        return repeated
    }

    /// A decoder of the rows of a request with associations; give it each row with
    /// ``decode(_:scoped:)``, or, when `scoped` is a statement's row with no to-many rows,
    /// step the statement and call ``decode(_:)``.
    init(scoped: ScopedRow) {
        self.source = scoped.source
        self.scoped = scoped
        self.scope = scoped.plan
        self.nestingDepth = 0
        self.repeatedNames = []
        if case .statement = scoped.source, scoped.prefetchedRows == nil {
            readsStatementInPlace = true
        } else {
            readsStatementInPlace = false
        }
    }

    /// Whether this decoder reads rows split by association (``scoped`` is set), asked without
    /// copying the scoped row.
    var isScoped: Bool { scope != nil }

    /// Whether this decoder's scope is an optional association's that matched no row in the
    /// source's current row.
    var isMissingScope: Bool { scope?.isMissing(in: source) ?? false }

    /// Decodes one row of a request with associations. The rows a decoder is given must come
    /// from one request, seen through the same scope.
    func decode<Record: Decodable>(_ type: Record.Type, scoped row: ScopedRow) throws -> Record {
        if let kept = statementView, !kept.view.isView(of: row.source, scope: row.plan, prefetchedRows: row.prefetchedRows) {
            statementView = nil
        }
        source = row.source
        scoped = row
        return try decode(Record.self)
    }

    /// Decodes the current row of another source of the same columns (a record nested in a
    /// one-table row: the row's source, which a fetched ``Row`` changes from row to row).
    func decode<Record: Decodable>(_ type: Record.Type, from source: ColumnSource) throws -> Record {
        if let kept = statementView, !kept.view.isView(of: source, scope: scoped?.plan, prefetchedRows: scoped?.prefetchedRows) {
            statementView = nil
        }
        self.source = source
        return try decode(Record.self)
    }

    /// Decodes the source's current row.
    /// - Throws: ``RecordDecodingError``, or an error of the record's own `init(from:)`.
    func decode<Record: Decodable>(_ type: Record.Type) throws -> Record {
        plan.startRow()
        associationPosition = 0
        rowRecordKey = nil
        if recordType != Record.self {
            recordType = Record.self
            dateStrategies = Record.self as? any FetchableRecord.Type
            rowBuilder = RowRecordBuilder.make(Record.self)
        }
        if let rowBuilder {
            let builder = unsafeDowncast(rowBuilder, to: RowRecordBuilder<Record>.self)
            // A statement's row without to-many rows reads the same way on every row: one kept
            // view, dropped when the decoder is given another row to read.
            if let kept = statementView { return try builder.build(kept.view) }
            if case .statement(let statement) = source, scoped?.prefetchedRows == nil {
                let kept = KeptRowView(statement: statement, scope: scoped?.plan)
                statementView = kept
                return try builder.build(kept.view)
            }
            // The plan and the to-many rows, not the whole scoped row: a view holds the source once.
            if let plan = scoped?.plan { return try builder.build(RowView(source: source, plan: plan, prefetchedRows: scoped?.prefetchedRows)) }
            return try builder.build(RowView(source: source))
        }
        return try Record(from: TopLevel(decoder: self))
    }

    // MARK: Columns

    /// The column of the next key asked for; throws when the query has no such column.
    @inline(__always)
    func column(for key: some CodingKey) throws -> Int {
        guard let column = plannedColumn(for: key) else {
            throw error(.missingColumn(availableColumns: columnNames), key: key)
        }
        if !repeatedNames.isEmpty { try confirmUnambiguous(key, at: column) }
        return column
    }

    /// The column of the next key asked for by an optional property, or `nil` when the query
    /// has none of that name.
    /// - Throws: when the name is one of ``repeatedNames`` and its columns differ in this row.
    @inline(__always)
    func optionalColumn(for key: some CodingKey) throws -> Int? {
        guard let column = plannedColumn(for: key) else { return nil }
        if !repeatedNames.isEmpty { try confirmUnambiguous(key, at: column) }
        return column
    }

    /// Throws when a record read from its parent's row reads a name the row has more than once
    /// (see ``repeatedNames``) and those columns hold different values in this row.
    func confirmUnambiguous(_ key: some CodingKey, at column: Int) throws {
        let names = source.columnNames
        let name = names[column].lowercased()
        guard repeatedNames.contains(name) else { return }
        let sameName = names.indices.filter { names[$0].lowercased() == name }
        let value = source.databaseValue(at: column)
        if sameName.contains(where: { source.databaseValue(at: $0) != value }) {
            throw error(.ambiguousColumn(count: sameName.count), key: key)
        }
    }

    /// The column of the next key asked for, or `nil` when the query has none of that name
    /// (an optional property then decodes as `nil`).
    @inline(__always)
    func plannedColumn(for key: some CodingKey) -> Int? {
        plan.column(for: key) { columnIndex(named: $0) }
    }

    /// The keyed container of a record's `init(from:)`: the one kept from the previous row when
    /// the key type is the same.
    func keyedContainer<Key: CodingKey>(_ type: Key.Type) -> KeyedDecodingContainer<Key> {
        if let kept = keptContainer, kept.keyType == ObjectIdentifier(Key.self) {
            return unsafeDowncast(kept.container, to: KeptContainer<Key>.self).container
        }
        let container = KeyedDecodingContainer(KeyedContainer<Key>(decoder: self))
        keptContainer = (ObjectIdentifier(Key.self), KeptContainer(container))
        return container
    }

    /// Lets go of the kept containers, this decoder's and its nested records' decoders': each
    /// holds its decoder. Called by the owner of a decoder when it is done with it.
    func releaseContainers() {
        keptContainer = nil
        for decoder in nestedDecoders.values { decoder.releaseContainers() }
    }

    private final class KeptContainer<Key: CodingKey> {
        let container: KeyedDecodingContainer<Key>
        init(_ container: KeyedDecodingContainer<Key>) { self.container = container }
    }

    /// The column of a key, outside the plan (`contains`, `decodeNil`).
    func lookUp(_ key: some CodingKey) -> Int? {
        columnIndex(named: key.stringValue)
    }

    /// The index in `source` of the column named `name` in this decoder's scope.
    func columnIndex(named name: String) -> Int? {
        guard let scope else { return source.columnIndex(named: name) }
        return scope.layout.index(of: name).map { $0 + scope.range.lowerBound }
    }

    /// The names of the columns in this decoder's scope.
    var columnNames: [String] { scope?.layout.columnNames ?? source.columnNames }

    // MARK: Typed reads, shared by the keyed and the single-value containers

    @inline(__always)
    func integer<I: FixedWidthInteger>(_ type: I.Type, at column: Int, key: some CodingKey) throws -> I {
        let value: Int64
        let read = source.integer(at: column)
        switch read.type {
        case SQLITE_INTEGER:
            value = read.value
        case SQLITE_FLOAT:
            let real = source.double(at: column)
            guard let exact = Int64(exactly: real) else {
                // A whole number too large for any integer is out of range; 2.5 is a mismatch.
                throw real.rounded() == real
                    ? error(.overflow(value: String(real), propertyType: "\(I.self)"), key: key)
                    : mismatch(at: column, key: key, type: I.self)
            }
            value = exact
        default:
            throw mismatch(at: column, key: key, type: I.self)
        }
        guard let result = I(exactly: value) else {
            throw error(.overflow(value: String(value), propertyType: "\(I.self)"), key: key)
        }
        return result
    }

    @inline(__always)
    func bool(at column: Int, key: some CodingKey) throws -> Bool {
        switch source.columnType(at: column) {
        case SQLITE_INTEGER: return source.int64(at: column) != 0
        case SQLITE_FLOAT:
            guard let exact = Int64(exactly: source.double(at: column)) else { throw mismatch(at: column, key: key, type: Bool.self) }
            return exact != 0
        default: throw mismatch(at: column, key: key, type: Bool.self)
        }
    }

    @inline(__always)
    func double(at column: Int, key: some CodingKey) throws -> Double {
        switch source.columnType(at: column) {
        case SQLITE_FLOAT, SQLITE_INTEGER: return source.double(at: column)
        default: throw mismatch(at: column, key: key, type: Double.self)
        }
    }

    func float(at column: Int, key: some CodingKey) throws -> Float {
        let double: Double
        switch source.columnType(at: column) {
        case SQLITE_FLOAT, SQLITE_INTEGER: double = source.double(at: column)
        default: throw mismatch(at: column, key: key, type: Float.self)
        }
        let float = Float(double)
        guard float.isFinite || !double.isFinite else {
            throw error(.overflow(value: String(double), propertyType: "Float"), key: key)
        }
        return float
    }

    @inline(__always)
    func string(at column: Int, key: some CodingKey) throws -> String {
        guard source.columnType(at: column) == SQLITE_TEXT, let text = source.string(at: column) else {
            throw mismatch(at: column, key: key, type: String.self)
        }
        return text
    }

    /// Any other property type: a ``DatabaseValueConvertible`` (`Date`, `Data`, `UUID`…)
    /// converts the column's value; another `Decodable` decodes it as a single value (an enum
    /// with a raw value), or, when it asks for a container (a nested struct, an array), from
    /// the column's JSON text.
    func value<T: Decodable>(_ type: T.Type, at column: Int, key: some CodingKey) throws -> T {
        if T.self == Date.self, let dateStrategies {
            let strategy = dateStrategies.databaseDateDecodingStrategy(for: key.stringValue)
            guard let date = strategy.date(source.databaseValue(at: column)) as? T else { throw mismatch(at: column, key: key, type: T.self) }
            return date
        }
        if let convertible = T.self as? any DatabaseValueConvertible.Type {
            guard let result = convertible.fromDatabaseValue(source.databaseValue(at: column)) as? T else {
                throw mismatch(at: column, key: key, type: T.self)
            }
            return result
        }
        do {
            return try T(from: ValueDecoder(decoder: self, column: column, key: key))
        } catch is ValueDecoder.NeedsJSON {
            return try json(T.self, at: column, key: key)
        } catch let inner as RecordDecodingError {
            // Name the property's type (`Mood`), not the primitive it reads (`String`).
            switch inner.problem {
            case .null: throw error(.null(propertyType: "\(T.self)"), key: key)
            case .typeMismatch(let storageClass, _): throw error(.typeMismatch(storageClass: storageClass, propertyType: "\(T.self)"), key: key)
            default: throw inner
            }
        } catch let decodingError as DecodingError {
            // The type's own init(from:) refused the value, e.g. an unknown raw value.
            throw error(.invalidValue(Self.reason(decodingError)), key: key)
        }
    }

    /// A nested value or array stored as JSON text (or a blob of UTF-8 JSON).
    private func json<T: Decodable>(_ type: T.Type, at column: Int, key: some CodingKey) throws -> T {
        let data: Data
        switch source.databaseValue(at: column) {
        case .text(let text): data = Data(text.utf8)
        case .blob(let blob): data = blob
        default: throw mismatch(at: column, key: key, type: T.self)
        }
        do {
            return try JSONColumn.value(T.self, from: data)
        } catch let decodingError as DecodingError {
            throw error(.invalidValue("\(T.self) is stored as JSON text, and the column's text does not decode as one: \(Self.reason(decodingError))"), key: key)
        }
    }

    // MARK: Errors

    func error(_ problem: RecordDecodingError.Problem, key: (any CodingKey)?) -> RecordDecodingError {
        RecordDecodingError(recordType: String(describing: recordType), column: key?.stringValue, problem: problem)
    }

    /// NULL for a type that is not optional, or a storage class that does not convert.
    func mismatch(at column: Int, key: some CodingKey, type: Any.Type) -> RecordDecodingError {
        let storage = source.columnType(at: column)
        if storage == SQLITE_NULL {
            return error(.null(propertyType: "\(type)"), key: key)
        }
        return error(.typeMismatch(storageClass: Self.storageClassName(storage), propertyType: "\(type)"), key: key)
    }

    private static func storageClassName(_ code: Int32) -> String {
        switch code {
        case SQLITE_INTEGER: return "integer"
        case SQLITE_FLOAT: return "real"
        case SQLITE_TEXT: return "text"
        case SQLITE_BLOB: return "blob"
        default: return "null"
        }
    }

    private static func reason(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context):
            return context.debugDescription
        @unknown default:
            return String(describing: error)
        }
    }
}
