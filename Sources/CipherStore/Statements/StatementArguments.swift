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
        self = .positional(elements.map { $0?.databaseValue ?? .null })
    }

    public init(dictionaryLiteral elements: (String, (any DatabaseValueConvertible)?)...) {
        var values: [String: DatabaseValue] = [:]
        for (name, value) in elements { values[name] = value?.databaseValue ?? .null }
        self = .named(values)
    }

    /// Positional arguments from an array of values.
    public init(_ values: [(any DatabaseValueConvertible)?]) {
        self = .positional(values.map { $0?.databaseValue ?? .null })
    }

    /// Named arguments from a dictionary; names are given without their `:`, `@` or `$` prefix.
    public init(_ values: [String: (any DatabaseValueConvertible)?]) {
        self = .named(values.mapValues { $0?.databaseValue ?? .null })
    }

    var isEmpty: Bool {
        switch self {
        case .positional(let values): return values.isEmpty
        case .named(let values): return values.isEmpty
        }
    }
}
