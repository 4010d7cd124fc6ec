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
/// values must name exactly the statement's parameters, each once: a mismatch throws
/// ``CipherStoreError/invalidArguments(reason:sql:)`` instead of binding NULL.
public struct StatementArguments: Sendable, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    enum Values: Sendable {
        case positional([DatabaseValue])
        /// Names (with or without their prefix) and values, in the order given: a literal's
        /// names are matched to parameters as written, with no dictionary to hash them into.
        case named([(name: String, value: DatabaseValue)])
    }

    let values: Values

    private init(_ values: Values) {
        self.values = values
    }

    /// Positional arguments: one value per parameter, in order.
    public static func positional(_ values: [DatabaseValue]) -> StatementArguments {
        StatementArguments(.positional(values))
    }

    /// Named arguments; names are given with or without their `:`, `@` or `$` prefix.
    public static func named(_ values: [String: DatabaseValue]) -> StatementArguments {
        // Sorted, so that a refusal names the same parameter from run to run.
        StatementArguments(.named(values.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }))
    }

    /// No arguments.
    public static let none = StatementArguments.positional([])

    public init(arrayLiteral elements: (any DatabaseValueConvertible)?...) {
        self.init(.positional(Self.databaseValues(elements)))
    }

    /// A name given twice is refused when the arguments are bound.
    public init(dictionaryLiteral elements: (String, (any DatabaseValueConvertible)?)...) {
        var values: [(name: String, value: DatabaseValue)] = []
        values.reserveCapacity(elements.count)
        for (name, value) in elements { values.append((name, value?.databaseValue ?? .null)) }
        self.init(.named(values))
    }

    /// Positional arguments from an array of values.
    public init(_ values: [(any DatabaseValueConvertible)?]) {
        self.init(.positional(Self.databaseValues(values)))
    }

    /// Named arguments from a dictionary; names are given with or without their `:`, `@` or `$` prefix.
    public init(_ values: [String: (any DatabaseValueConvertible)?]) {
        self.init(.named(values.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value?.databaseValue ?? .null) }))
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
        switch values {
        case .positional(let values): return values.isEmpty
        case .named(let values): return values.isEmpty
        }
    }
}
