/// SQL for a schema, where nothing can be bound: values written as literals, expressions with
/// their values inline.
enum SQLLiteralRendering {
    /// A value as an SQL literal: `NULL`, `42`, `1.5`, `'it''s'`, `X'00FF'`, `('a' || char(0) || 'b')`.
    static func literal(_ value: DatabaseValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let integer): return String(integer)
        case .real(let real):
            guard real.isFinite else { return real.isNaN ? "NULL" : (real > 0 ? "9e999" : "-9e999") }
            return String(real)
        case .text(let text):
            // A NUL would end the statement's text early: written as char(0), joined.
            guard text.contains("\0") else { return quoted(text) }
            return "(" + text.split(separator: "\0", omittingEmptySubsequences: false).map { quoted(String($0)) }.joined(separator: " || char(0) || ") + ")"
        case .blob(let data): return "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }

    /// ``literal(_:)`` where it stands in place of a placeholder: a negative number in
    /// parentheses, so that a `-` before it never makes `--`, a comment.
    static func literalOperand(_ value: DatabaseValue) -> String {
        let text = literal(value)
        return text.hasPrefix("-") ? "(" + text + ")" : text
    }

    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// An expression's SQL with each bound value written in its place.
    static func render(_ expression: SQLExpression) -> String {
        var values = expression.arguments.makeIterator()
        var sql = ""
        var inString: Character?
        for character in expression.sql {
            if let quote = inString {
                if character == quote { inString = nil }
                sql.append(character)
            } else if character == "'" || character == "\"" || character == "`" {
                inString = character
                sql.append(character)
            } else if character == "?", let value = values.next() {
                sql += literalOperand(value)
            } else {
                sql.append(character)
            }
        }
        return sql
    }

    /// `table(columns) ON DELETE … ON UPDATE … DEFERRABLE INITIALLY DEFERRED`.
    static func foreignKeyClause(_ table: String, _ columns: [String]?, onDelete: Connection.ForeignKeyAction?,
                                 onUpdate: Connection.ForeignKeyAction?, deferred: Bool) -> String {
        var sql = Connection.quoteIdentifier(table)
        if let columns { sql += "(" + TableDefinition.quoted(columns) + ")" }
        if let onDelete { sql += " ON DELETE " + onDelete.rawValue }
        if let onUpdate { sql += " ON UPDATE " + onUpdate.rawValue }
        if deferred { sql += " DEFERRABLE INITIALLY DEFERRED" }
        return sql
    }
}
