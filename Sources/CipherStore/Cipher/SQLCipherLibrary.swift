import CSQLCipher

/// Facts about the linked SQLite and SQLCipher libraries.
///
/// ```swift
/// print(SQLCipherLibrary.sqlcipherVersion ?? "not SQLCipher", SQLCipherLibrary.sqliteVersion)
/// ```
public enum SQLCipherLibrary {
    /// The SQLite version the linked library reports (`sqlite3_libversion`), e.g. "3.15.2".
    public static var sqliteVersion: String { String(cString: sqlite3_libversion()) }

    /// The SQLCipher version (`PRAGMA cipher_version`), e.g. "3.4.1", or `nil` when the linked
    /// library is plain SQLite.
    public static let sqlcipherVersion: String? = {
        var db: OpaquePointer?
        defer { sqlite3_close(db) }
        guard sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else { return nil }
        return cipherVersion(of: db)
    }()

    /// The crypto provider (`PRAGMA cipher_provider`, e.g. "openssl"), needing a keyed connection in 3.x.
    public static let cryptoProvider: String? = {
        var db: OpaquePointer?
        defer { sqlite3_close(db) }
        guard sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else { return nil }
        let key = Array("provider-probe".utf8)
        guard sqlite3_key_v2(db, "main", key, Int32(key.count)) == SQLITE_OK else { return nil }
        return firstText(db, "PRAGMA cipher_provider")
    }()

    /// The page size of a new encrypted database with default settings (`cipher_page_size`):
    /// 1024 bytes in SQLCipher 3, 4096 in SQLCipher 4; 0 when the library is not SQLCipher.
    public static let defaultPageSize: Int = {
        var db: OpaquePointer?
        defer { sqlite3_close(db) }
        guard sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else { return 0 }
        let key = Array("page-size-probe".utf8)
        guard sqlite3_key_v2(db, "main", key, Int32(key.count)) == SQLITE_OK else { return 0 }
        return firstText(db, "PRAGMA cipher_page_size").flatMap { Int($0) } ?? 0
    }()

    /// SQLCipher 4 writes its own log lines ("hmac check failed for pgno=1") to standard error
    /// by default; CipherStore reports the same failures as errors, and a command-line tool's
    /// output must stay its own. So the first connection turns that log off for the process
    /// (`PRAGMA cipher_log_level = NONE`; the level is global). Set `cipher_log_level` again on
    /// a connection to have the log back. SQLCipher 3 has no such log.
    static let logSilenced: Bool = {
        guard sqlcipherMajorVersion >= 4 else { return false }
        var db: OpaquePointer?
        defer { sqlite3_close(db) }
        guard sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else { return false }
        // The first key of the process sets the level to WARN unless a level was set after a
        // key (SQLCipher 4.6's sqlcipher_activate): key this probe first, then turn the log off.
        let key = Array("log-probe".utf8)
        guard sqlite3_key_v2(db, "main", key, Int32(key.count)) == SQLITE_OK else { return false }
        return firstText(db, "PRAGMA cipher_log_level = NONE") == "NONE"
    }()

    /// The major version number of the linked SQLCipher (3 or 4), 0 when there is none.
    ///
    /// Defaults differ between the two (see ``CipherSettings/sqlcipher3`` and
    /// ``CipherSettings/sqlcipher4``), and SQLCipher 3 cannot open SQLCipher 4's files.
    public static var sqlcipherMajorVersion: Int {
        Int(sqlcipherVersion?.split(separator: ".").first ?? "") ?? 0
    }

    /// `PRAGMA cipher_version` on an open handle: empty or missing on plain SQLite.
    static func cipherVersion(of db: OpaquePointer) -> String? {
        guard let version = firstText(db, "PRAGMA cipher_version"), !version.isEmpty else { return nil }
        return version
    }

    /// The first column of the first row of a fixed statement, as text.
    static func firstText(_ db: OpaquePointer, _ sql: String) -> String? {
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK,
              sqlite3_step(statement) == SQLITE_ROW,
              let text = sqlite3_column_text(statement, 0)
        else { return nil }
        return String(cString: text)
    }
}
