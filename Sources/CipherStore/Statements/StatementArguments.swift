/// The values bound to a statement's parameters: positional (`?`, `?NNN`) or named
/// (`:name`, `@name`, `$name`).
///
/// ```swift
/// try db.execute(sql: "INSERT INTO user(name, city) VALUES (?, ?)", arguments: ["Lily", "北京"])
/// try db.execute(sql: "UPDATE user SET city = :city WHERE name = :name",
///                arguments: ["city": "深圳", "name": "Lily"])
/// ```
///
/// The number of positional values must equal the statement's parameter count, and named
/// values must name exactly the statement's parameters: a mismatch throws
/// ``CipherStoreError/invalidArguments(reason:sql:)`` instead of binding NULL.
public enum StatementArguments: Sendable, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    case positional([DatabaseValue])
    case named([String: DatabaseValue])

    /// No arguments.
    public static let none = StatementArguments.positional([])

    public init(arrayLiteral elements: (any DatabaseValueConvertible)?...) {
        self = .positional(Self.databaseValues(elements))
    }

    public init(dictionaryLiteral elements: (String, (any DatabaseValueConvertible)?)...) {
        var values = [String: DatabaseValue](minimumCapacity: elements.count)
        for index in elements.indices { values[elements[index].0] = elements[index].1?.databaseValue ?? .null }
        self = .named(values)
    }

    /// Positional arguments from an array of values.
    public init(_ values: [(any DatabaseValueConvertible)?]) {
        self = .positional(Self.databaseValues(values))
    }

    /// Named arguments from a dictionary; names are given without their `:`, `@` or `$` prefix.
    public init(_ values: [String: (any DatabaseValueConvertible)?]) {
        self = .named(values.mapValues { $0?.databaseValue ?? .null })
    }

    /// Reads each value through its index: `map` would copy every existential twice, which
    /// costs more than binding the value.
    private static func databaseValues(_ elements: [(any DatabaseValueConvertible)?]) -> [DatabaseValue] {
        var values: [DatabaseValue] = []
        values.reserveCapacity(elements.count)
        for index in elements.indices { values.append(elements[index]?.databaseValue ?? .null) }
        return values
    }

    var isEmpty: Bool {
        switch self {
        case .positional(let values): return values.isEmpty
        case .named(let values): return values.isEmpty
        }
    }
}
