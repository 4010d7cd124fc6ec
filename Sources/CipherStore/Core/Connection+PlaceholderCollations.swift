import CSQLCipher
import Foundation

extension Connection {
    /// Registers `name` as a collation that compares as `BINARY` does, for a schema that names
    /// a collation this process does not have (an app's own, `COLLATE myapp`): its tables and
    /// indexes can then be created as written. An index built under it is in binary order; the
    /// app, which has the real collation, puts it right with `REINDEX name`.
    func addPlaceholderCollation(named name: String) throws {
        try handle.check(sqlite3_create_collation_v2(try handle.pointer, name, SQLITE_UTF8, nil, { _, leftCount, left, rightCount, right in
            let common = Int(min(leftCount, rightCount))
            let order = common == 0 ? 0 : memcmp(left!, right!, common)
            return order != 0 ? order : leftCount < rightCount ? -1 : leftCount > rightCount ? 1 : 0
        }, nil))
    }

    /// The collation a failed statement's error names as missing ("no such collation
    /// sequence: NAME"), or `nil`.
    static func missingCollation(in error: Error) -> String? {
        guard let error = error as? DatabaseError, let message = error.message,
              let range = message.range(of: "no such collation sequence: ") else { return nil }
        let name = message[range.upperBound...].trimmingCharacters(in: .whitespaces)
        return name.isEmpty ? nil : name
    }
}
