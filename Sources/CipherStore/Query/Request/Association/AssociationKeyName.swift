/// The English plural and singular of an association's key, as GRDB forms them for the common
/// cases: `book` ↔ `books`, `box` ↔ `boxes`, `category` ↔ `categories`.
enum AssociationKeyName {
    /// The key of a to-many association to a table: its name in the plural.
    static func plural(_ name: String) -> String {
        let lowercased = name.lowercased()
        if lowercased.hasSuffix("s") { return name }
        if lowercased.hasSuffix("x") || lowercased.hasSuffix("z") || lowercased.hasSuffix("ch") || lowercased.hasSuffix("sh") { return name + "es" }
        if lowercased.hasSuffix("y"), let before = lowercased.dropLast().last, !"aeiou".contains(before) { return name.dropLast() + "ies" }
        return name + "s"
    }

    /// A key in the singular, for the names of aggregates (`bookCount`).
    static func singular(_ key: String) -> String {
        let lowercased = key.lowercased()
        if lowercased.hasSuffix("ies") { return key.dropLast(3) + "y" }
        if ["xes", "zes", "ches", "shes"].contains(where: lowercased.hasSuffix) { return String(key.dropLast(2)) }
        if lowercased.hasSuffix("s") && !lowercased.hasSuffix("ss") { return String(key.dropLast()) }
        return key
    }
}
