/// A link from one record type to another, declared once on the origin type and used in
/// requests to join, filter by, or fetch the associated records, in GRDB's spelling:
///
/// ```swift
/// struct Book: Codable, FetchableRecord, TableRecord {
///     static let author = belongsTo(Author.self)
///     var id: Int64; var authorId: Int64; var title: String
/// }
/// struct Author: Codable, FetchableRecord, TableRecord {
///     static let books = hasMany(Book.self)
///     var id: Int64; var name: String
/// }
/// struct BookInfo: Decodable, FetchableRecord { var book: Book; var author: Author }
/// let infos = try Book.including(required: Book.author).asRequest(of: BookInfo.self).fetchAll(db)
/// ```
///
/// The columns that link the tables come from the schema's foreign key (`REFERENCES`), or from
/// the ``ForeignKey`` given. An association refines like a request (`filter`, `order`,
/// `select`, nested `including`), and `forKey` renames the key its records decode under.
public protocol Association: Sendable {
    /// The record type the association starts from.
    associatedtype OriginRowDecoder
    /// The associated record type.
    associatedtype RowDecoder

    /// The association as requests use it. Not for use outside the library.
    var _sqlAssociation: SQLAssociationBox { get }
    /// An association from its request form. Not for use outside the library.
    init(_sqlAssociation: SQLAssociationBox)
}

/// An association to at most one record (`belongsTo`, `hasOne`): it can be included with
/// `including(required:)` or `including(optional:)`.
public protocol AssociationToOne: Association {}

/// An association to any number of records (`hasMany`): it is included with
/// `including(all:)`, fetched by a second query.
public protocol AssociationToMany: Association {}

/// The storage of an ``Association``, opaque outside the library.
public struct SQLAssociationBox: Sendable {
    var association: SQLAssociation
}

extension Association {
    var sqlAssociation: SQLAssociation { _sqlAssociation.association }

    private func with(_ change: (inout SQLAssociation) -> Void) -> Self {
        var association = sqlAssociation
        change(&association)
        return Self(_sqlAssociation: SQLAssociationBox(association: association))
    }

    /// The key the associated records decode under (the property name in the record that
    /// holds them), instead of the table's name.
    public func forKey(_ key: String) -> Self { with { $0.key = key } }

    /// The key the associated records decode under, as a coding key.
    public func forKey(_ key: some CodingKey) -> Self { forKey(key.stringValue) }

    /// Only the associated rows that match (in a join, the condition goes into `ON`).
    public func filter(_ predicate: some SQLSpecificExpressible) -> Self {
        with { $0.relation.filters.append(predicate.sqlExpression.node) }
    }

    /// Only the associated rows that match a condition written in SQL, as the request's
    /// `filter(sql:arguments:)`. Its names are not qualified: in a request that joins tables
    /// with columns of the same name, write the table's name too (`"book"."year" > ?`).
    public func filter(sql: String, arguments: StatementArguments = .none) -> Self {
        withFragment(sql, arguments) { $0.relation.filters.append(SQLExpression(.literal($1)).node) }
    }

    /// Orders the associated rows with SQL written out, as the request's `order(sql:arguments:)`.
    public func order(sql: String, arguments: StatementArguments = .none) -> Self {
        withFragment(sql, arguments) {
            $0.relation.orderings = [SQLExpression(.literal($1)).sqlOrdering]
            $0.relation.reversesOrderWrittenInSQL = false
        }
    }

    /// The association changed by `apply` with the fragment, or refused when its request runs
    /// if the arguments do not fit the fragment's placeholders.
    private func withFragment(_ sql: String, _ arguments: StatementArguments, _ apply: (inout SQLAssociation, SQL) -> Void) -> Self {
        switch SQLFragment.literal(sql, arguments) {
        case .success(let literal): return with { apply(&$0, literal) }
        case .failure(let problem): return with { $0.relation.conflicts.append(problem.message) }
        }
    }

    /// Orders the associated rows (after the origin request's own order).
    public func order(_ orderings: any SQLOrderingTerm...) -> Self {
        with {
            $0.relation.orderings = orderings.map(\.sqlOrdering)
            $0.relation.reversesOrderWrittenInSQL = false
        }
    }

    /// The associated rows in the opposite order: each ordering term reversed (the pivots'
    /// of an association through others too), as the request's `reversed()`. An order written
    /// in SQL cannot be reversed: the request throws before anything runs.
    public func reversed() -> Self {
        with { $0 = $0.reversedOrder() }
    }

    /// Selects only these of the associated table's columns.
    public func select(_ selection: any SQLSelectable...) -> Self {
        with { $0.relation.selection = selection.map(\.sqlSelection) }
    }

    /// Selects more of the associated table after what the association already selects:
    /// columns, expressions, or aggregates of the associated record's own associations
    /// (`Book.author.annotated(with: Author.books.count)`).
    public func annotated(with selection: any SQLSelectable...) -> Self {
        with { $0.relation.selection += selection.map(\.sqlSelection) }
    }

    /// Includes an association of the associated record, to one record, required to match.
    public func including<A: AssociationToOne>(required association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        with { $0.relation.add(SQLJoin(kind: .required, isSelected: true, association: association.sqlAssociation)) }
    }

    /// Includes an association of the associated record, to one record, or `nil`.
    public func including<A: AssociationToOne>(optional association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        with { $0.relation.add(SQLJoin(kind: .optional, isSelected: true, association: association.sqlAssociation)) }
    }

    /// Joins an association of the associated record without selecting it, required to match.
    public func joining<A: Association>(required association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        with { $0.relation.add(SQLJoin(kind: .required, isSelected: false, association: association.sqlAssociation)) }
    }

    /// Joins an association of the associated record without selecting it.
    public func joining<A: Association>(optional association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        with { $0.relation.add(SQLJoin(kind: .optional, isSelected: false, association: association.sqlAssociation)) }
    }
}

extension Association {
    /// Includes an association of each associated record, to many records, fetched by a
    /// second query: under a to-many association (`Author.books.including(all: Book.chapters)`)
    /// or under a to-one one that is included (`Book.author.including(all: Author.books)`,
    /// decoded as `var author: AuthorInfo` where `AuthorInfo` has `var books: [Book]`).
    public func including<A: AssociationToMany>(all association: A) -> Self where A.OriginRowDecoder == RowDecoder {
        with { $0.relation.add(SQLJoin(kind: .prefetch, isSelected: true, association: association.sqlAssociation)) }
    }
}

/// The association from a record to the one record its foreign key refers to
/// (a book to its author): `static let author = belongsTo(Author.self)`.
public struct BelongsToAssociation<Origin, Destination>: AssociationToOne {
    public typealias OriginRowDecoder = Origin
    public typealias RowDecoder = Destination
    public let _sqlAssociation: SQLAssociationBox
    public init(_sqlAssociation: SQLAssociationBox) { self._sqlAssociation = _sqlAssociation }
}

/// The association from a record to the records whose foreign key refers to it (an author to
/// their books): `static let books = hasMany(Book.self)`.
public struct HasManyAssociation<Origin, Destination>: AssociationToMany {
    public typealias OriginRowDecoder = Origin
    public typealias RowDecoder = Destination
    public let _sqlAssociation: SQLAssociationBox
    public init(_sqlAssociation: SQLAssociationBox) { self._sqlAssociation = _sqlAssociation }
}

/// The association from a record to the one record whose foreign key refers to it (a
/// country to its profile): `static let profile = hasOne(CountryProfile.self)`.
public struct HasOneAssociation<Origin, Destination>: AssociationToOne {
    public typealias OriginRowDecoder = Origin
    public typealias RowDecoder = Destination
    public let _sqlAssociation: SQLAssociationBox
    public init(_sqlAssociation: SQLAssociationBox) { self._sqlAssociation = _sqlAssociation }
}

/// The association from a record to records reached through another association (a library
/// to the books of its authors):
/// `static let books = hasMany(Book.self, through: authors, using: Author.books)`.
///
/// It is used as any association to many records: `including(all:)` fetches each record's
/// destination records by a second query that joins the pivot tables; `joining` joins the
/// pivots and the destination; `request(for:)` and aggregates read the destination through
/// the pivots (an aggregate counts each destination row once). Its key, filters and
/// orderings are the destination's. Joined in a request that also joins its first pivot's
/// association at the same level, the two share one JOIN, as in GRDB.
public struct HasManyThroughAssociation<Origin, Destination>: AssociationToMany {
    public typealias OriginRowDecoder = Origin
    public typealias RowDecoder = Destination
    public let _sqlAssociation: SQLAssociationBox
    public init(_sqlAssociation: SQLAssociationBox) { self._sqlAssociation = _sqlAssociation }
}

/// The association from a record to the one record reached through two associations to one
/// record (a book to its author's country):
/// `static let country = hasOne(Country.self, through: author, using: Author.country)`.
public struct HasOneThroughAssociation<Origin, Destination>: AssociationToOne {
    public typealias OriginRowDecoder = Origin
    public typealias RowDecoder = Destination
    public let _sqlAssociation: SQLAssociationBox
    public init(_sqlAssociation: SQLAssociationBox) { self._sqlAssociation = _sqlAssociation }
}
