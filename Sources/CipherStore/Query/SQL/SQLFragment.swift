/// SQL written out inside a request (`filter(sql:arguments:)`, `order(sql:arguments:)`…), with
/// its arguments made positional: the fragment becomes one part of a larger statement whose
/// other parts bind their values by position, so a named parameter (`:name`, `@name`,
/// `$name`) is rewritten as `?` and given its value in the order the names appear.
///
/// The fragment is scanned as SQLite tokenizes: quoted strings and names (`'…'`, `"…"`,
/// `` `…` ``, `[…]`) and comments are skipped. What cannot be bound right is refused before
/// the request runs, since a value bound to the wrong placeholder, or none (SQLite binds NULL),
/// would match the wrong rows: a count of `?` that differs from the values, a name without a
/// value or a value without a name, a numbered `?1` (it would number the whole statement's
/// parameters), names mixed with `?`.
enum SQLFragment {
    /// The fragment with `?` placeholders and its values in order, or why it cannot be bound.
    static func literal(_ sql: String, _ arguments: StatementArguments) -> Result<SQL, Problem> {
        let scanned: Scan
        switch scan(sql) {
        case .success(let found): scanned = found
        case .failure(let problem): return .failure(problem)
        }
        // A `--` comment at the end would comment out what the request writes after it.
        return bind(sql, scanned.parameters, arguments).map { literal in
            scanned.endsInLineComment ? SQL(sql: literal.sql + "\n", arguments: literal.arguments) : literal
        }
    }

    private static func bind(_ sql: String, _ parameters: [Parameter], _ arguments: StatementArguments) -> Result<SQL, Problem> {
        let names = parameters.compactMap(\.name)
        switch arguments.values {
        case .positional(let values):
            guard names.isEmpty else {
                return .failure(Problem(sql: sql, reason: "it names parameters (\(names.map(\.text).joined(separator: ", "))) but its arguments are positional: pass them by name"))
            }
            guard parameters.count == values.count else {
                return .failure(Problem(sql: sql, reason: "it has \(parameters.count) placeholder(s) and \(values.count) argument(s): pass one value per ?"))
            }
            return .success(SQL(sql: sql, arguments: values))
        case .named(let given):
            guard names.count == parameters.count else {
                return .failure(Problem(sql: sql, reason: "its arguments are named, and it also has ? placeholders: use names only"))
            }
            return bindNamed(sql, parameters, given)
        }
    }

    /// The SQL with each argument written in place of its `?`, as a literal: for a schema
    /// statement (`CREATE VIEW`), which cannot bind values. Quoted text and comments are
    /// skipped as SQLite skips them.
    static func inlined(_ literal: SQL) -> Result<String, Problem> {
        let sql = literal.sql
        let parameters: [Parameter]
        switch scan(sql) {
        case .success(let scanned): parameters = scanned.parameters
        case .failure(let problem): return .failure(problem)
        }
        guard parameters.allSatisfy({ $0.name == nil }), parameters.count == literal.arguments.count else {
            return .failure(Problem(sql: sql, reason: "it has \(parameters.count) placeholder(s) and \(literal.arguments.count) argument(s): pass one value per ?, and no named parameter"))
        }
        var text = ""
        var start = sql.startIndex
        for (parameter, value) in zip(parameters, literal.arguments) {
            text += sql[start..<parameter.range.lowerBound] + SQLLiteralRendering.literalOperand(value)
            start = parameter.range.upperBound
        }
        return .success(text + sql[start...])
    }

    /// Why a fragment cannot be bound.
    struct Problem: Error {
        let sql: String
        let reason: String

        /// The message of the error the request throws.
        /// The request's check adds "nothing was run".
        var message: String { "the SQL fragment \"\(sql)\" cannot be bound: \(reason)" }
    }

    /// A placeholder of the fragment: where it is, and its name (`nil` for `?`).
    private struct Parameter {
        let range: Range<String.Index>
        let name: (text: String, bare: String)?
    }

    private static func bindNamed(_ sql: String, _ parameters: [Parameter], _ given: [(name: String, value: DatabaseValue)]) -> Result<SQL, Problem> {
        var values: [String: DatabaseValue] = [:]
        for (name, value) in given {
            let bare = Statement.unprefixed(name) ?? name
            guard values.updateValue(value, forKey: bare) == nil else {
                return .failure(Problem(sql: sql, reason: "the parameter '\(bare)' was given more than one value; give each parameter once"))
            }
        }
        var text = ""
        var bound: [DatabaseValue] = []
        var used: Set<String> = []
        var start = sql.startIndex
        for parameter in parameters {
            guard let name = parameter.name, let value = values[name.bare] else {
                return .failure(Problem(sql: sql, reason: "no value for parameter \(parameter.name?.text ?? "?"); pass one value per name"))
            }
            text += sql[start..<parameter.range.lowerBound] + "?"
            start = parameter.range.upperBound
            bound.append(value)
            used.insert(name.bare)
        }
        text += sql[start...]
        if let unused = values.keys.sorted().first(where: { !used.contains($0) }) {
            return .failure(Problem(sql: sql, reason: "the argument '\(unused)' names no parameter of it"))
        }
        return .success(SQL(sql: text, arguments: bound))
    }

    /// The placeholders of a fragment, in order, and whether its text ends inside a `--` comment.
    private struct Scan {
        var parameters: [Parameter] = []
        var endsInLineComment = false
    }

    /// Scans Unicode scalars, as SQLite scans bytes: a quote followed by a combining mark is
    /// still a quote, and `\r\n` ends a `--` comment.
    private static func scan(_ sql: String) -> Result<Scan, Problem> {
        var scanned = Scan()
        let scalars = sql.unicodeScalars
        var index = scalars.startIndex
        func skip(past end: Unicode.Scalar) {
            index = scalars[index...].firstIndex(of: end).map { scalars.index(after: $0) } ?? scalars.endIndex
        }
        func isNext(_ next: String.Index, _ scalar: Unicode.Scalar) -> Bool {
            next < scalars.endIndex && scalars[next] == scalar
        }
        while index < scalars.endIndex {
            let scalar = scalars[index]
            let next = scalars.index(after: index)
            switch scalar {
            case "'", "\"", "`":
                index = next
                skip(past: scalar)
            case "[":
                index = next
                skip(past: "]")
            case "-" where isNext(next, "-"):
                index = next
                skip(past: "\n")
                scanned.endsInLineComment = index == scalars.endIndex && scalars.last != "\n"
            case "/" where isNext(next, "*"):
                guard let end = sql[next...].range(of: "*/")?.upperBound else {
                    return .failure(Problem(sql: sql, reason: "its /* comment is not closed, and would comment out what the request writes after it: close it with */"))
                }
                index = end
            case "?":
                let end = scalars[next...].firstIndex { !("0"..."9").contains($0) } ?? scalars.endIndex
                guard end == next else {
                    return .failure(Problem(sql: sql, reason: "numbered placeholders (\(sql[index..<end])) would number the whole request's parameters: write ? or a name"))
                }
                scanned.parameters.append(Parameter(range: index..<next, name: nil))
                index = next
            case _ where isNameStart(scalar):
                // A bare name: `$` inside it (`amount$usd`) is part of the name, not a parameter.
                index = scalars[next...].firstIndex { !isNameScalar($0) } ?? scalars.endIndex
            case ":", "@", "$", "#":
                let end = scalars[next...].firstIndex { !isNameScalar($0) } ?? scalars.endIndex
                if end > next {
                    scanned.parameters.append(Parameter(range: index..<end, name: (String(sql[index..<end]), String(sql[next..<end]))))
                }
                index = end > next ? end : next
            default:
                index = next
            }
        }
        return .success(scanned)
    }

    /// What SQLite reads as the start of a bare name (or a keyword): letters, `_` and any
    /// character outside ASCII.
    private static func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
        !scalar.isASCII || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "_"
    }

    /// What SQLite reads as part of a parameter's name: letters, digits, `_`, `$` and any
    /// character outside ASCII.
    private static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        !scalar.isASCII || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "$"
    }
}
