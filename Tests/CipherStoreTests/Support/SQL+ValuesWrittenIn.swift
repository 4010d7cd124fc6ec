import CipherStore

extension SQL {
    /// The SQL with each `?` replaced by its argument written as a literal (integers as
    /// digits, text in single quotes), to compare with hand-written SQL; `nil` when there are
    /// more arguments than placeholders.
    var withValuesWrittenIn: String? {
        var text = sql
        for argument in arguments {
            guard let range = text.range(of: "?") else { return nil }
            let literal: String
            switch argument {
            case .integer(let value): literal = String(value)
            case .text(let value): literal = "'" + value + "'"
            default: literal = "\(argument)"
            }
            text.replaceSubrange(range, with: literal)
        }
        return text
    }
}
