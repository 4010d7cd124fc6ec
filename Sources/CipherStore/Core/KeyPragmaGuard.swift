import CSQLCipher

/// Refuses SQLCipher's key pragmas in SQL text on every connection.
///
/// `PRAGMA key`, `rekey`, their `hex…`/`text…` forms and `cipher_migrate` would put a key into
/// SQL text (where logs, traces and shell history keep it) or change a file in place, which
/// SQLCipher 3.4.1 can leave opening with neither key. SQLCipher runs these pragmas while the
/// statement is prepared, so no read-only mode stops them; the authorizer
/// (the one in ``ConnectionHooks``) runs first and denies them. Keys go through ``DatabaseKey`` (`sqlite3_key_v2`) and key changes through
/// ``DatabaseFile/changeKey(path:oldKey:oldCipher:newKey:newCipher:to:options:)``.
enum KeyPragmaGuard {
    /// The pragmas refused, lowercased.
    static let refusedPragmas: Set<String> = ["key", "rekey", "hexkey", "hexrekey", "textkey", "textrekey", "cipher_migrate"]

    /// The message of the `SQLITE_AUTH` error a refused pragma gets (the authorizer of
    /// ``ConnectionHooks`` denies nothing else).
    static let refusal = refusal(spelling: \.swiftSpelling)

    /// The refusal with its way out (``Remedy/keyAPI``) spelled by `spelling`.
    static func refusal(spelling: (Remedy) -> String?) -> String {
        "PRAGMA key, rekey and cipher_migrate are refused in SQL text, where a key could be logged or traced and a file changed in place without verification."
            + (spelling(.keyAPI).map { " " + $0 } ?? "")
    }

    /// Whether the pragma named by the C string is refused (names are case-insensitive).
    static func refuses(pragma name: UnsafePointer<CChar>) -> Bool {
        return refusedPragmas.contains(String(cString: name).lowercased())
    }
}
