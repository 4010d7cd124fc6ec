/// A row that does not fit a `Decodable` record: which record, which column, what is wrong.
///
/// Both ways of decoding records throw it, with equal values for the same mismatch: fetching
/// records straight from SQL (`Connection/fetchAll(_:sql:arguments:)`, ``RecordCursor``) and
/// decoding a fetched row (``Connection/decode(_:from:)``).
///
/// ```swift
/// do {
///     let notes = try db.fetchAll(Note.self, sql: "SELECT id FROM note")
/// } catch let error as RecordDecodingError {
///     print(error)   // Cannot decode Note from column 'body': the query has no such column …
/// }
/// ```
public struct RecordDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What does not fit.
    public enum Problem: Sendable, Equatable {
        /// The query has no column for a property that is not optional.
        case missingColumn(availableColumns: [String])
        /// The column is NULL, and the property's type is not optional.
        case null(propertyType: String)
        /// The value's storage class (`"integer"`, `"real"`, `"text"` or `"blob"`) does not
        /// convert to the property's type.
        case typeMismatch(storageClass: String, propertyType: String)
        /// A number outside the range of the property's numeric type (300 for an `Int8`).
        case overflow(value: String, propertyType: String)
        /// The record or property asks for a shape a row does not have (a nested container, an
        /// array, a record that is a single value); the text says which.
        case unsupportedShape(String)
        /// A property's own `init(from:)` (an enum with a raw value, say) refused the column's
        /// value; the text is its reason.
        case invalidValue(String)
        /// A record read from its parent's row (a record-typed property named by no column)
        /// asked for a name that this many of the row's columns have, with different values
        /// in this row: it cannot tell which is its own.
        case ambiguousColumn(count: Int)
        /// A record-typed property named by no column or association, when another one of the
        /// record (`first`) already read the row's own columns: one may, as in GRDB, and a
        /// second is more likely a misnamed association than a second copy of the row.
        /// `associations` are the keys the request's associations have.
        case secondRecordFromRow(first: String, associations: [String])
        /// An array or set property named by no column or to-many association of the request
        /// (`var bookz: [Book]` with `including(all: Author.books)`). `associations` are the
        /// keys the request's associations have.
        case noToManyAssociation(associations: [String])
    }

    /// The record type being decoded, as `String(describing:)` writes it.
    public let recordType: String
    /// The column, as the record's coding key names it; `nil` when the problem is the record's
    /// own shape.
    public let column: String?
    /// What does not fit.
    public let problem: Problem

    /// Creates an error; mainly for the library itself.
    public init(recordType: String, column: String?, problem: Problem) {
        self.recordType = recordType
        self.column = column
        self.problem = problem
    }

    public var description: String {
        let subject = "Cannot decode \(recordType)" + (column.map { " from column '\($0)'" } ?? "")
        switch problem {
        case .missingColumn(let available):
            return "\(subject): the query has no such column (it has \(available.joined(separator: ", "))). Select a column with this name (rename one with AS), or make the property optional."
        case .null(let type):
            return "\(subject): the value is NULL, but the property's type \(type) is not optional. Declare the property as \(type)?, or select a value that is never NULL (coalesce)."
        case .typeMismatch(let storageClass, let type):
            return "\(subject): a \(storageClass) value does not convert to \(type). Change the property's type, or CAST the column in the query."
        case .overflow(let value, let type):
            return "\(subject): \(value) is out of range for \(type). Use a wider numeric type for the property, or fix the stored value."
        case .unsupportedShape(let detail):
            return "\(subject): \(detail). A row holds one value per column: give the record one property per column; decode anything else yourself in init(from:)."
        case .invalidValue(let reason):
            return "\(subject): \(reason). Fix the stored value, or the property type's init(from:)."
        case .secondRecordFromRow(let first, let associations):
            guard !associations.isEmpty else {
                return "\(subject): no column is named \(column ?? "so"), and a record-typed property named by no column is read from the row's own columns, which \(first) already is; only one property may be, as in GRDB. Decode the row as each record in turn (db.decode(_:from:) on a fetched Row), or select the columns under names of their own."
            }
            return "\(subject): no column or association is named \(column ?? "so") (the request's associations are \(associations.joined(separator: ", "))), and a record-typed property named by neither is read from the row's own columns, which \(first) already is; only one property may be. Name the property as its association is keyed (or key the association like the property: forKey:), or select the columns it needs."
        case .noToManyAssociation(let associations):
            let known = associations.isEmpty ? "the request has no associations" : "the request's associations are " + associations.joined(separator: ", ")
            return "\(subject): a collection property reads the to-many association of its name (including(all:)), and none is named \(column ?? "so") (\(known)). Name the property as its association is keyed, or key the association like the property (forKey:)."
        case .ambiguousColumn(let count):
            return "\(subject): the row has \(count) columns of that name, with different values in this row, and \(recordType) is read from its parent's row, so it cannot tell which is its own. Select each column once under a name of its own (AS) and map the property to it (CodingKeys), or, for a request with associations, decode the request as the parent record (asRequest(of:)), whose nested records read their association's columns."
        }
    }
}
