/// The query interface with closures and key paths over a record's ``TableRecord/Columns``,
/// in GRDB's spelling:
///
/// ```swift
/// struct Player: Codable, FetchableRecord, TableRecord {
///     static let databaseTableName = "player"
///     var id: Int64; var name: String; var score: Int
///     enum Columns {
///         static let name = Column(CodingKeys.name)
///         static let score = Column(CodingKeys.score)
///     }
/// }
/// let best = try Player.filter { $0.score >= 500 }.order(\.score.desc).fetchAll(db)
/// try Player.filter { $0.name == "Arthur" }.updateAll(db) { $0.score += 10 }
/// ```
///
/// Each closure runs once, when the request is built, and makes the same expression as the
/// ``Column`` values it names: the columns are checked against the table in the same way.
extension QueryInterfaceRequest where RowDecoder: TableRecord {
    /// What the closures receive: the record's `Columns` type by default.
    public typealias DatabaseComponents = RowDecoder.DatabaseComponents

    /// Adds the condition the closure makes; several are combined with AND.
    public func filter(_ predicate: (DatabaseComponents) throws -> any SQLSpecificExpressible) rethrows -> Self {
        filter(try predicate(RowDecoder.databaseComponents))
    }

    /// Replaces the order with the one the closure makes: `order(\.score.desc)`.
    public func order(_ ordering: (DatabaseComponents) throws -> any SQLOrderingTerm) rethrows -> Self {
        order([try ordering(RowDecoder.databaseComponents)])
    }

    /// Replaces the order with the ones the closure makes: `order { [$0.score.desc, $0.name] }`.
    public func order(_ orderings: (DatabaseComponents) throws -> [any SQLOrderingTerm]) rethrows -> Self {
        order(try orderings(RowDecoder.databaseComponents))
    }

    /// Replaces what is selected; rows still decode as `RowDecoder`.
    public func select(_ selection: (DatabaseComponents) throws -> any SQLSelectable) rethrows -> Self {
        select([try selection(RowDecoder.databaseComponents)])
    }

    /// Replaces what is selected; rows still decode as `RowDecoder`.
    public func select(_ selection: (DatabaseComponents) throws -> [any SQLSelectable]) rethrows -> Self {
        select(try selection(RowDecoder.databaseComponents))
    }

    /// Replaces what is selected, and fetches each row as `type`: `select({ $0.name }, as: String.self)`.
    public func select<T>(_ selection: (DatabaseComponents) throws -> any SQLSelectable, as type: T.Type) rethrows -> QueryInterfaceRequest<T> {
        select([try selection(RowDecoder.databaseComponents)]).asRequest(of: T.self)
    }

    /// Selects more after what is already selected.
    public func annotated(with selection: (DatabaseComponents) throws -> any SQLSelectable) rethrows -> Self {
        var request = self
        request.relation.selection.append(try selection(RowDecoder.databaseComponents).sqlSelection)
        return request
    }

    /// `GROUP BY` the expressions the closure makes.
    public func group(_ expressions: (DatabaseComponents) throws -> [any SQLExpressible]) rethrows -> Self {
        var request = self
        request.relation.groups = try expressions(RowDecoder.databaseComponents).map(\.sqlExpression.node)
        return request
    }

    /// Adds the `HAVING` condition the closure makes.
    public func having(_ predicate: (DatabaseComponents) throws -> any SQLSpecificExpressible) rethrows -> Self {
        having(try predicate(RowDecoder.databaseComponents))
    }

    /// Updates the matching rows with the assignment the closure makes:
    /// `updateAll(db) { $0.score += 1 }`.
    /// - Returns: how many rows were updated.
    @discardableResult
    public func updateAll(_ db: Connection, onConflict: ConflictResolution? = nil,
                          assignment: (DatabaseComponents) throws -> ColumnAssignment) throws -> Int {
        try updateAll(db, onConflict: onConflict, [assignment(RowDecoder.databaseComponents)])
    }

    /// Updates the matching rows with the assignments the closure makes.
    /// - Returns: how many rows were updated.
    @discardableResult
    public func updateAll(_ db: Connection, onConflict: ConflictResolution? = nil,
                          assignments: (DatabaseComponents) throws -> [ColumnAssignment]) throws -> Int {
        try updateAll(db, onConflict: onConflict, assignments(RowDecoder.databaseComponents))
    }
}

extension TableRecord {
    /// The records matching the condition the closure makes: `Player.filter { $0.score > 100 }`.
    public static func filter(_ predicate: (DatabaseComponents) throws -> any SQLSpecificExpressible) rethrows -> QueryInterfaceRequest<Self> {
        try all().filter(predicate)
    }

    /// Every record in the order the closure makes: `Player.order(\.score.desc)`.
    public static func order(_ ordering: (DatabaseComponents) throws -> any SQLOrderingTerm) rethrows -> QueryInterfaceRequest<Self> {
        try all().order(ordering)
    }

    /// Every record in the orders the closure makes.
    public static func order(_ orderings: (DatabaseComponents) throws -> [any SQLOrderingTerm]) rethrows -> QueryInterfaceRequest<Self> {
        try all().order(orderings)
    }

    /// A request selecting what the closure makes.
    public static func select(_ selection: (DatabaseComponents) throws -> [any SQLSelectable]) rethrows -> QueryInterfaceRequest<Self> {
        try all().select(selection)
    }

    /// A request selecting the one column or expression the closure makes: `Player.select(\.name)`;
    /// rows still decode as the record.
    public static func select(_ selection: (DatabaseComponents) throws -> any SQLSelectable) rethrows -> QueryInterfaceRequest<Self> {
        try all().select(selection)
    }

    /// Every record, with more selected after its columns: `Player.annotated { $0.score * 2 }`.
    public static func annotated(with selection: (DatabaseComponents) throws -> any SQLSelectable) rethrows -> QueryInterfaceRequest<Self> {
        try all().annotated(with: selection)
    }

    /// A request selecting what the closure makes, fetched as `type`:
    /// `Player.select({ max($0.score) }, as: Int.self)`.
    public static func select<T>(_ selection: (DatabaseComponents) throws -> any SQLSelectable, as type: T.Type) rethrows -> QueryInterfaceRequest<T> {
        try all().select(selection, as: T.self)
    }

    /// Every record, grouped by the expressions the closure makes: `Player.group { [$0.team] }`.
    public static func group(_ expressions: (DatabaseComponents) throws -> [any SQLExpressible]) rethrows -> QueryInterfaceRequest<Self> {
        try all().group(expressions)
    }

    /// Every record, with the `HAVING` condition the closure makes (an association aggregate's
    /// condition goes into `WHERE`, as in the request's `having(_:)`).
    public static func having(_ predicate: (DatabaseComponents) throws -> any SQLSpecificExpressible) rethrows -> QueryInterfaceRequest<Self> {
        try all().having(predicate)
    }

    /// Updates every row with the assignment the closure makes.
    /// - Returns: how many rows were updated.
    @discardableResult
    public static func updateAll(_ db: Connection, onConflict: ConflictResolution? = nil,
                                 assignment: (DatabaseComponents) throws -> ColumnAssignment) throws -> Int {
        try all().updateAll(db, onConflict: onConflict, assignment: assignment)
    }
}

extension Association where RowDecoder: TableRecord {
    /// Only the associated rows that match the condition the closure makes.
    public func filter(_ predicate: (RowDecoder.DatabaseComponents) throws -> any SQLSpecificExpressible) rethrows -> Self {
        filter(try predicate(RowDecoder.databaseComponents))
    }

    /// Orders the associated rows as the closure says.
    public func order(_ ordering: (RowDecoder.DatabaseComponents) throws -> any SQLOrderingTerm) rethrows -> Self {
        order(try ordering(RowDecoder.databaseComponents))
    }

    /// Selects only the associated table's columns the closure makes.
    public func select(_ selection: (RowDecoder.DatabaseComponents) throws -> [any SQLSelectable]) rethrows -> Self {
        var association = sqlAssociation
        association.relation.selection = try selection(RowDecoder.databaseComponents).map(\.sqlSelection)
        return Self(_sqlAssociation: SQLAssociationBox(association: association))
    }
}
