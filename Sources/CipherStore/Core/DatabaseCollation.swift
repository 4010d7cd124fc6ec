import CSQLCipher
import Foundation

/// A text collation written in Swift: how `ORDER BY`, comparisons, `DISTINCT`, `GROUP BY` and
/// indexes order text in a column or expression declared `COLLATE name`.
///
/// ```swift
/// let byLength = DatabaseCollation("bylength") { lhs, rhs in
///     lhs.count == rhs.count ? lhs.compare(rhs) : lhs.count < rhs.count ? .orderedAscending : .orderedDescending
/// }
/// try db.add(collation: byLength)
/// try db.execute(sql: "CREATE TABLE word(text TEXT COLLATE bylength)")
/// let words = try String.fetchAll(db, sql: "SELECT text FROM word ORDER BY text")
/// ```
///
/// A collation belongs to the connection it is added to. For every connection of a
/// ``DatabaseQueue`` or ``DatabasePool``, add it in ``Configuration/prepareDatabase(_:)``.
///
/// The comparison must be a total order that never changes: an index built under it is kept
/// in its order, and a database whose schema names it needs the same collation every time it
/// is opened. A process that does not have it cannot prepare statements that use it
/// ("no such collation sequence"); the tools that read such a file anyway compare with a
/// placeholder in binary order and say so (see ``Connection/placeholderCollations``).
///
/// See <https://www.sqlite.org/c3ref/create_collation.html>.
public final class DatabaseCollation: Identifiable, Sendable {
    /// The name, ASCII case-insensitive, as SQLite matches collation names.
    public struct ID: Hashable, Sendable {
        let foldedName: String
    }

    /// The collation's name in SQL.
    public let name: String
    /// The name, case-insensitive.
    public var id: ID { ID(foldedName: Connection.foldedName(name)) }
    let compare: @Sendable (String, String) -> ComparisonResult
    /// Whether text that is not valid UTF-8 reaches ``compare`` with each stray byte kept as a
    /// scalar of its own (``CanonicalStringOrder/decoding(_:)``) rather than as U+FFFD, which
    /// would make every such value equal to any other with its invalid bytes in the same places.
    let keepsInvalidBytesApart: Bool

    /// Creates a collation.
    ///
    /// Text that is not valid UTF-8 reaches `function` with each invalid sequence replaced by
    /// U+FFFD, as `String(decoding:as:)` does.
    ///
    /// - Parameters:
    ///   - name: the name used after `COLLATE` (at most 255 UTF-8 bytes).
    ///   - function: orders two strings.
    public init(_ name: String, function: @escaping @Sendable (String, String) -> ComparisonResult) {
        self.name = name
        self.compare = function
        self.keepsInvalidBytesApart = false
    }

    init(_ name: String, keepsInvalidBytesApart: Bool, function: @escaping @Sendable (String, String) -> ComparisonResult) {
        self.name = name
        self.compare = function
        self.keepsInvalidBytesApart = keepsInvalidBytesApart
    }

    /// Refuses a name SQLite would reject with a bare `SQLITE_MISUSE`.
    func validate() throws {
        guard !name.isEmpty, name.utf8.count <= 255, !name.utf8.contains(0) else {
            throw CipherStoreError.invalidConfiguration(reason: "the collation name '\(name)' is empty, longer than 255 bytes or holds a NUL character. Give a name of 1 to 255 bytes.")
        }
    }

    /// Compares two UTF-8 strings as SQLite hands them over (not NUL-terminated).
    func compare(_ leftCount: Int32, _ left: UnsafeRawPointer?, _ rightCount: Int32, _ right: UnsafeRawPointer?) -> Int32 {
        let leftBytes = UnsafeRawBufferPointer(start: left, count: Int(leftCount))
        let rightBytes = UnsafeRawBufferPointer(start: right, count: Int(rightCount))
        let lhs = keepsInvalidBytesApart ? CanonicalStringOrder.decoding(leftBytes) : String(decoding: leftBytes, as: UTF8.self)
        let rhs = keepsInvalidBytesApart ? CanonicalStringOrder.decoding(rightBytes) : String(decoding: rightBytes, as: UTF8.self)
        return Int32(compare(lhs, rhs).rawValue)
    }
}

/// The collations GRDB names, with GRDB's SQL names, so a GRDB database whose schema uses them
/// opens with the same orders. As in GRDB, every connection has them from the moment it opens
/// (a collation added later under the same name replaces one).
///
/// The tools that read a file whatever its collations (verify, backups, repair,
/// ``DatabaseFile/openForReading(path:key:cipher:)``) compare them in binary order instead, as
/// any app collation (see ``Connection/placeholderCollations``): the order an index was built
/// in is that of the Foundation and locale of the app that wrote it, which may not be this
/// process's. An online backup, made beside the app, uses the app connection's own.
///
/// ``unicodeCompare`` and ``caseInsensitiveCompare`` are total orders on every string. The
/// three localized collations are Foundation's comparisons with the current locale, which on
/// Linux are not a consistent order for some unusual strings: a NUL character inside the text,
/// a combining mark alone, mixes such as "İı" and "Iς". An index under one of them over such
/// values fails SQLite's integrity check (an online backup or `decrypt` of the file then
/// refuses it), and a lookup through it may miss rows. For an indexed column that may hold
/// such text, prefer ``unicodeCompare`` or ``caseInsensitiveCompare``, or sort with
/// `ORDER BY … COLLATE` and no index.
extension DatabaseCollation {
    /// Unicode canonical order, what Swift's `<` on strings means: `swiftCompare`.
    /// Canonically equivalent strings are the same ("é" precomposed, or "e" and a combining
    /// accent) as far as Foundation's normalization on the platform knows: on Linux it does
    /// not compose a Hangul syllable with a separate final consonant, nor reorder the newest
    /// combining marks, so those spellings stay apart (still in a consistent order).
    ///
    /// Computed from each string's Normalization Form C, not with `<`: on Linux, `<` is not
    /// transitive when a letter and its combining accent are apart ("α" < "α\u{301}" == "ά" <
    /// "α"), and an index built under it fails SQLite's integrity check.
    ///
    /// Text that is not valid UTF-8 compares as if each stray byte were the private-use
    /// character U+10FF00 + its value (the end of the last plane), not U+FFFD: values that
    /// differ in such bytes stay different, where a UNIQUE index would take them for one.
    public static let unicodeCompare = DatabaseCollation("swiftCompare", keepsInvalidBytesApart: true) { CanonicalStringOrder.compare($0, $1) }

    /// Case-insensitive order: `swiftCaseInsensitiveCompare`. Strings compare as their
    /// lowercase forms do under ``unicodeCompare``, so "Äpfel" and "äpfel" are the same.
    ///
    /// Not Foundation's `caseInsensitiveCompare`: on Linux that is not an order ("aÖ" and
    /// "äÖ" each come after the other), and an index built under it fails SQLite's
    /// integrity check. An index built under an earlier CipherStore's, or on another
    /// platform's Foundation, is rebuilt by `REINDEX swiftCaseInsensitiveCompare`.
    ///
    /// Text that is not valid UTF-8 keeps its stray bytes apart, as under ``unicodeCompare``:
    /// "A" and "a" followed by the same stray byte are the same; by different ones, not.
    public static let caseInsensitiveCompare = DatabaseCollation("swiftCaseInsensitiveCompare", keepsInvalidBytesApart: true) {
        CanonicalStringOrder.compareCaseInsensitive($0, $1)
    }

    /// `localizedCaseInsensitiveCompare`: `swiftLocalizedCaseInsensitiveCompare`.
    public static let localizedCaseInsensitiveCompare = DatabaseCollation("swiftLocalizedCaseInsensitiveCompare") {
        $0.localizedCaseInsensitiveCompare($1)
    }

    /// `localizedCompare`: `swiftLocalizedCompare`.
    public static let localizedCompare = DatabaseCollation("swiftLocalizedCompare") { $0.localizedCompare($1) }

    /// `localizedStandardCompare` (the Finder's order, numbers by value): `swiftLocalizedStandardCompare`.
    public static let localizedStandardCompare = DatabaseCollation("swiftLocalizedStandardCompare") { $0.localizedStandardCompare($1) }

    /// GRDB's five collations, which every connection has as it opens: ``unicodeCompare``,
    /// ``caseInsensitiveCompare``, ``localizedCaseInsensitiveCompare``, ``localizedCompare`` and
    /// ``localizedStandardCompare``. A tool can tell by their names which collations of a schema
    /// are GRDB's, whose indexes are in the order of the app that built them.
    public static let grdbCollations: [DatabaseCollation] = [unicodeCompare, caseInsensitiveCompare, localizedCaseInsensitiveCompare, localizedCompare, localizedStandardCompare]
}
