import CSQLCipher
import Foundation

/// A SQL function written in Swift: a scalar function, or an aggregate (see
/// ``DatabaseAggregate``).
///
/// ```swift
/// let slug = DatabaseFunction("slug", argumentCount: 1, pure: true) { values in
///     guard case .text(let text)? = values.first else { return nil }
///     return text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).joined(separator: "-")
/// }
/// try db.add(function: slug)
/// let slugs = try String.fetchAll(db, sql: "SELECT slug(title) FROM note")
/// ```
///
/// A function belongs to the connection it is added to. For every connection of a
/// ``DatabaseQueue`` or ``DatabasePool`` (the pool's readers too), add it in
/// ``Configuration/prepareDatabase(_:)``.
///
/// An error the function throws fails the statement with a ``DatabaseError`` whose message
/// names the function and gives the error (a ``DatabaseError`` thrown keeps its result code).
///
/// A function marked `pure` (`SQLITE_DETERMINISTIC`) always returns the same result for the
/// same arguments and has no side effect: SQLite then accepts it in an index on an expression,
/// a partial index's `WHERE` and a `CHECK` constraint, and may call it fewer times.
///
/// See <https://www.sqlite.org/c3ref/create_function.html>.
public final class DatabaseFunction: Identifiable, Sendable {
    /// What tells two functions apart for SQLite: the name (ASCII case-insensitive) and the
    /// number of arguments (-1: any number).
    public struct ID: Hashable, Sendable {
        let foldedName: String
        let argumentCount: Int32
    }

    /// The function's name in SQL.
    public let name: String
    /// The name (case-insensitive) and number of arguments.
    public var id: ID { ID(foldedName: Connection.foldedName(name), argumentCount: argumentCount) }
    /// The number of arguments; -1 for any number.
    let argumentCount: Int32
    /// Whether the function is registered as `SQLITE_DETERMINISTIC`.
    let isPure: Bool
    let kind: Kind

    enum Kind: Sendable {
        case scalar(@Sendable ([DatabaseValue]) throws -> (any DatabaseValueConvertible)?)
        case aggregate(@Sendable () -> any DatabaseAggregate)
    }

    /// Creates a scalar function.
    ///
    /// - Parameters:
    ///   - name: the function's name in SQL (at most 255 UTF-8 bytes).
    ///   - argumentCount: how many arguments it takes (0 to 127); `nil` for any number.
    ///   - pure: whether the result depends on the arguments alone, with no side effect.
    ///     Required for a function used in an index, a partial index or a `CHECK` constraint.
    ///   - function: receives the arguments and returns the result; `nil` is NULL.
    public init(_ name: String, argumentCount: Int? = nil, pure: Bool = false,
                function: @escaping @Sendable ([DatabaseValue]) throws -> (any DatabaseValueConvertible)?) {
        self.name = name
        self.argumentCount = Self.sqliteArgumentCount(argumentCount)
        self.isPure = pure
        self.kind = .scalar(function)
    }

    /// Creates an aggregate function: each group of rows gets a new `Aggregate`, which is
    /// given every row's arguments, then asked for the result.
    ///
    /// ```swift
    /// struct Longest: DatabaseAggregate {
    ///     var longest: String?
    ///     mutating func step(_ values: [DatabaseValue]) {
    ///         if case .text(let text)? = values.first, text.count > (longest?.count ?? -1) { longest = text }
    ///     }
    ///     func finalize() -> (any DatabaseValueConvertible)? { longest }
    /// }
    /// try db.add(function: DatabaseFunction("longest", argumentCount: 1, aggregate: Longest.self))
    /// let name = try db.fetchScalar(String.self, sql: "SELECT longest(name) FROM user")
    /// ```
    ///
    /// - Parameters:
    ///   - name: the function's name in SQL (at most 255 UTF-8 bytes).
    ///   - argumentCount: how many arguments it takes (0 to 127); `nil` for any number.
    ///   - pure: whether the result depends on the rows alone.
    ///   - aggregate: the type that computes it.
    public init<Aggregate: DatabaseAggregate>(_ name: String, argumentCount: Int? = nil, pure: Bool = false,
                                              aggregate: Aggregate.Type) {
        self.name = name
        self.argumentCount = Self.sqliteArgumentCount(argumentCount)
        self.isPure = pure
        self.kind = .aggregate { Aggregate() }
    }

    /// A call of the function in the query interface.
    ///
    /// ```swift
    /// let notes = try Note.filter(slug(Column("title")) == "hello-world").fetchAll(db)
    /// ```
    public func callAsFunction(_ arguments: any SQLExpressible...) -> SQLExpression {
        SQLExpression(.function(name, arguments.map(\.sqlExpression.node), distinct: false))
    }

    /// `nil` (any number) is -1; a count SQLite does not accept is kept as given and refused
    /// by ``Connection/add(function:)``.
    private static func sqliteArgumentCount(_ count: Int?) -> Int32 {
        guard let count else { return -1 }
        return Int32(clamping: count < 0 ? Int.min : count)
    }

    /// The most arguments SQLite accepts (`SQLITE_MAX_FUNCTION_ARG`, 127 in both libraries).
    static let maximumArgumentCount: Int32 = 127

    /// Refuses a name or argument count SQLite would reject with a bare `SQLITE_MISUSE`.
    func validate() throws {
        guard !name.isEmpty, name.utf8.count <= 255, !name.utf8.contains(0) else {
            throw CipherStoreError.invalidConfiguration(reason: "the SQL function name '\(name)' is empty, longer than 255 bytes or holds a NUL character. Give a name of 1 to 255 bytes.")
        }
        guard argumentCount == -1 || (0...Self.maximumArgumentCount).contains(argumentCount) else {
            throw CipherStoreError.invalidConfiguration(reason: "the SQL function \(name) is declared with an invalid argument count. Give 0 to \(Self.maximumArgumentCount) arguments, or nil for any number.")
        }
    }

    /// The flags of `sqlite3_create_function_v2`: UTF-8, and deterministic when pure.
    var textRepresentation: Int32 {
        SQLITE_UTF8 | (isPure ? SQLITE_DETERMINISTIC : 0)
    }
}

/// The string functions GRDB names, with GRDB's SQL names: as GRDB's, each reads a blob as
/// UTF-8 text (as SQLite does) and returns NULL for a number, NULL, or a blob that is not UTF-8.
/// As in GRDB, every connection has them from the moment it opens (a function added later
/// under the same name and argument count replaces one), and the query interface calls them
/// as properties: `Column("name").capitalized` is `DatabaseFunction.capitalize(Column("name"))`.
extension DatabaseFunction {
    /// `String.capitalized`: `swiftCapitalizedString`.
    public static let capitalize = textFunction("swiftCapitalizedString") { $0.capitalized }
    /// `String.lowercased()`: `swiftLowercaseString`.
    public static let lowercase = textFunction("swiftLowercaseString") { $0.lowercased() }
    /// `String.uppercased()`: `swiftUppercaseString`.
    public static let uppercase = textFunction("swiftUppercaseString") { $0.uppercased() }
    /// `String.localizedCapitalized`: `swiftLocalizedCapitalizedString`.
    public static let localizedCapitalize = textFunction("swiftLocalizedCapitalizedString") { $0.localizedCapitalized }
    /// `String.localizedLowercase`: `swiftLocalizedLowercaseString`.
    public static let localizedLowercase = textFunction("swiftLocalizedLowercaseString") { $0.localizedLowercase }
    /// `String.localizedUppercase`: `swiftLocalizedUppercaseString`.
    public static let localizedUppercase = textFunction("swiftLocalizedUppercaseString") { $0.localizedUppercase }

    /// The functions every connection has as it opens.
    static let standard: [DatabaseFunction] = [capitalize, lowercase, uppercase, localizedCapitalize, localizedLowercase, localizedUppercase]

    /// A pure function of one text argument (a blob read as UTF-8); NULL for any other value.
    private static func textFunction(_ name: String, _ transform: @escaping @Sendable (String) -> String) -> DatabaseFunction {
        DatabaseFunction(name, argumentCount: 1, pure: true) { values in
            switch values[0] {
            case .text(let text): return transform(text)
            case .blob(let bytes): return String(data: bytes, encoding: .utf8).map(transform)
            default: return nil
            }
        }
    }
}
