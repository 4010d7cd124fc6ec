/// The English plural and singular of an association's key, as GRDB forms them: `book` ↔
/// `books`, `box` ↔ `boxes`, `category` ↔ `categories`, `status` ↔ `statuses`, `person` ↔
/// `people`, `knife` ↔ `knives`, `analysis` ↔ `analyses`; words without a plural (`sheep`,
/// `information`) stay as they are. A key that already ends in `s` is taken as a plural.
enum AssociationKeyName {
    /// Singular and plural of the words that follow no rule.
    private static let irregular: [(singular: String, plural: String)] = [
        ("person", "people"), ("man", "men"), ("woman", "women"), ("child", "children"), ("ox", "oxen"),
        ("mouse", "mice"), ("louse", "lice"), ("goose", "geese"), ("tooth", "teeth"), ("foot", "feet"),
    ]
    /// Words whose plural is themselves.
    private static let uncountable: Set<String> = ["equipment", "information", "rice", "money", "species", "series", "fish", "sheep", "deer", "jeans", "police", "news", "data"]
    /// Singular words that end in `s` (their plural adds `es`).
    private static let singularEndingInS = ["status", "alias", "bus", "campus"]
    /// Words whose plural ends in `ves` (`knife` → `knives`), and those ending in `ix`/`ex`
    /// whose plural ends in `ices`.
    private static let fToVes = [("knife", "knives"), ("wife", "wives"), ("life", "lives"), ("wolf", "wolves"), ("shelf", "shelves"),
                                 ("half", "halves"), ("self", "selves"), ("calf", "calves"), ("elf", "elves"), ("leaf", "leaves"), ("thief", "thieves")]
    private static let toIces = [("matrix", "matrices"), ("appendix", "appendices"), ("index", "indices"), ("vertex", "vertices")]

    /// The key of a to-many association to a table: its name in the plural.
    static func plural(_ name: String) -> String {
        let lowercased = name.lowercased()
        if uncountable.contains(lowercased) { return name }
        if let word = irregular.first(where: { lowercased.hasSuffix($0.singular) && (lowercased.count == $0.singular.count || $0.singular == "person") }) {
            return name.dropLast(word.singular.count) + matchingCase(word.plural, name.suffix(word.singular.count))
        }
        if singularEndingInS.contains(where: lowercased.hasSuffix) || lowercased.hasSuffix("ss") { return name + "es" }
        if lowercased.hasSuffix("sis") { return name.dropLast(2) + "es" }
        if lowercased.hasSuffix("s") { return name }
        if lowercased.hasSuffix("quiz") { return name + "zes" }
        // Whole words for `ves` (`olive` is not `olife`), endings for `ices`.
        for (singular, plural) in fToVes where lowercased == singular { return matchingCase(plural, name[...]) }
        for (singular, plural) in toIces where lowercased.hasSuffix(singular) { return name.dropLast(singular.count) + plural }
        if lowercased.hasSuffix("x") || lowercased.hasSuffix("z") || lowercased.hasSuffix("ch") || lowercased.hasSuffix("sh") { return name + "es" }
        if lowercased.hasSuffix("y"), let before = lowercased.dropLast().last, !"aeiou".contains(before) { return name.dropLast() + "ies" }
        return name + "s"
    }

    /// A key in the singular, for the names of aggregates (`bookCount`, `personCount`).
    static func singular(_ key: String) -> String {
        let lowercased = key.lowercased()
        if uncountable.contains(lowercased) { return key }
        if let word = irregular.first(where: { lowercased.hasSuffix($0.plural) && (lowercased.count == $0.plural.count || $0.singular == "person") }) {
            return key.dropLast(word.plural.count) + matchingCase(word.singular, key.suffix(word.plural.count))
        }
        if singularEndingInS.contains(where: { lowercased.hasSuffix($0 + "es") }) || lowercased.hasSuffix("sses") { return String(key.dropLast(2)) }
        if ["analyses", "theses", "crises", "diagnoses"].contains(where: lowercased.hasSuffix) { return key.dropLast(2) + "is" }
        if lowercased.hasSuffix("quizzes") { return String(key.dropLast(3)) }
        for (singular, plural) in fToVes where lowercased == plural { return matchingCase(singular, key[...]) }
        for (singular, plural) in toIces where lowercased.hasSuffix(plural) { return key.dropLast(plural.count) + singular }
        if lowercased.hasSuffix("ies") { return key.dropLast(3) + "y" }
        if ["xes", "zes", "ches", "shes"].contains(where: lowercased.hasSuffix) { return String(key.dropLast(2)) }
        if lowercased.hasSuffix("s") && !lowercased.hasSuffix("ss") { return String(key.dropLast()) }
        return key
    }

    /// `word` with its first letter upper-cased when `original`'s is (`Person` → `People`).
    private static func matchingCase(_ word: String, _ original: Substring) -> String {
        guard let first = original.first, first.isUppercase else { return word }
        return word.prefix(1).uppercased() + word.dropFirst()
    }
}
