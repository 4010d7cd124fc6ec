/// Arguments that start with one `-` and are longer than a short option: file names such as
/// `-hist.db`, most likely.
///
/// swift-argument-parser reads `-hist.db` as the short options `-h -i -s -t …`, and `-h` prints
/// the help and exits 0: `cipherstore encrypt -hist.db --in-place` would report success having
/// done nothing. cipherstore has no short options that combine (only `-h` and `-o`), so any
/// such argument before `--` is refused with a usage error before the parser sees it.
enum DashedArguments {
    /// The message for the first such argument, or `nil` when there is none.
    static func problem(in arguments: [String]) -> String? {
        for (index, argument) in arguments.enumerated() {
            if argument == "--" { return nil }
            guard argument.hasPrefix("-"), !argument.hasPrefix("--"), argument.utf8.count > 2 else { continue }
            if index > 0, arguments[index - 1].hasPrefix("-") {
                // Perhaps the value of the option before it, which a -- between them would leave without one.
                return "'\(argument)' is not an option of cipherstore. Nothing was done. If it is a file name, write it as ./\(argument)."
            }
            let example = (["cipherstore"] + subcommand(in: arguments[..<index]) + ["--", argument]).joined(separator: " ")
            return "'\(argument)' is not an option of cipherstore. Nothing was done. If it is a file name, write it as ./\(argument), or put -- before it (e.g. `\(example)`, with the other options before the --)."
        }
        return nil
    }

    /// The subcommand words among `arguments` (`rekey`, `keys change`…): the first argument
    /// that is not an option, and the next one after `keys`; none after a `--`.
    static func subcommand(in arguments: ArraySlice<String>) -> [String] {
        var words: [String] = []
        for argument in arguments.prefix(while: { $0 != "--" }) where !argument.hasPrefix("-") {
            guard words.isEmpty || words == ["keys"] else { break }
            words.append(argument)
        }
        return words
    }
}
