import Foundation

/// Errors that CipherStore raises itself, each with a description that says what to do next.
///
/// Descriptions never include key material.
public enum CipherStoreError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The key does not decrypt the file (or the cipher settings differ from the ones it was made with).
    ///
    /// Linked with SQLCipher 4, the description also says that the file may be a SQLCipher 3
    /// file and how to open it: with default settings, that is how such a file fails.
    case wrongKey(path: String)
    /// A key was given, but the file is a plaintext SQLite database.
    case notEncrypted(path: String)
    /// No key was given, but the file looks like an encrypted database.
    case encryptedWithoutKey(path: String)
    /// The file is neither SQLite nor SQLCipher.
    case notADatabase(path: String, detail: String)
    /// A cipher setting the linked SQLCipher does not support (it would silently ignore it).
    case unsupportedCipherSetting(setting: String, sqlcipherVersion: String)
    /// An operation that needs SQLCipher 4 (such as upgrading a file to SQLCipher 4's format),
    /// while the linked SQLCipher is older.
    case sqlcipher4Required(operation: String, sqlcipherVersion: String)
    /// A key that SQLCipher would misuse (an empty passphrase, a raw key of the wrong length…).
    case invalidKey(reason: String)
    /// A passphrase of the form `x'…'`, which SQLCipher would read as a raw key.
    case passphraseShapedLikeRawKey
    /// The linked library is plain SQLite: opening would write plaintext.
    case sqlcipherUnavailable(sqliteVersion: String)
    /// A queue or pool was called again from inside one of its own blocks.
    case reentrantQueueAccess
    /// A `read` block tried to change the database; reads are read-only.
    case writeInsideRead(sql: String)
    /// Statement arguments that do not fit the statement's parameters.
    case invalidArguments(reason: String, sql: String)
    /// A row value could not be read as the requested type.
    case valueConversion(column: String, reason: String)
    /// A transaction's rollback failed after its body had failed.
    case rollbackFailed(bodyError: String, rollbackError: String)
    /// The configuration is inconsistent.
    case invalidConfiguration(reason: String)
    /// The connection (or its queue) was used after ``Connection/close()``.
    case connectionClosed
    /// The connection could not close: a ``Statement`` or cursor made on it is still alive,
    /// kept beyond the block that made it. The connection stays open and usable.
    case statementsStillAlive

    public var description: String { message { $0.swiftSpelling } }

    /// What is wrong with a key (``invalidKey(reason:)``, ``passphraseShapedLikeRawKey``), as a
    /// clause without the "Invalid key: " of the description, its ``Remedy`` spelled by
    /// `spelling`; `nil` for the other cases.
    public func keyProblem(spelling: (Remedy) -> String?) -> String? {
        switch self {
        case .invalidKey(let reason):
            return reason
        case .passphraseShapedLikeRawKey:
            let choice = spelling(.rawKey).map { "If it is a raw key, \($0) and give its hex digits alone, without x'…'; otherwise choose another passphrase." }
            return "the passphrase has the form x'…' that SQLCipher reserves for raw keys, so it could be taken for one. " + (choice ?? "Choose another passphrase.")
        default:
            return nil
        }
    }

    /// The description, with each way out it offers (a ``Remedy``) spelled by `spelling`; a
    /// remedy spelled `nil` is not offered, and the message leaves it out.
    public func message(spelling: (Remedy) -> String?) -> String {
        if let problem = keyProblem(spelling: spelling) { return "Invalid key: \(problem)" }
        switch self {
        case .wrongKey(let path):
            return Self.wrongKeyMessage(path: path, spelling: spelling)
        case .notEncrypted(let path):
            return "'\(path)' is a plaintext SQLite database, not encrypted, but a key was given. The file was not changed. Encrypt it first with `cipherstore encrypt`, or open it without a key."
        case .encryptedWithoutKey(let path):
            return "'\(path)' looks like an encrypted database, but no key was given. The file was not changed. Open it with its key."
        case .notADatabase(let path, let detail):
            return "'\(path)' is not a database (\(detail)). The file was not changed. Check the path."
        case .unsupportedCipherSetting(let setting, let version):
            return "The linked SQLCipher \(version) does not support the cipher setting \(setting); it would silently ignore it. Remove the setting, or link a SQLCipher version that supports it."
        case .sqlcipher4Required(let operation, let version):
            return "\(operation) needs SQLCipher 4, but the linked SQLCipher is \(version), which can neither write nor read SQLCipher 4's format. Nothing was changed. Run it with CipherStore linked against SQLCipher 4 (Debian 13, Ubuntu 24.04, Fedora, Homebrew; from a CipherStore checkout: `make install SQLCIPHER=4 PREFIX=…`)."
        case .invalidKey, .passphraseShapedLikeRawKey:
            return "Invalid key: \(keyProblem(spelling: spelling) ?? "")"
        case .sqlcipherUnavailable(let sqliteVersion):
            return "The linked library is plain SQLite \(sqliteVersion), not SQLCipher: refusing to open, since data would be written unencrypted. Install SQLCipher (`apt-get install libsqlcipher-dev`) and make sure no other SQLite library is linked into the process."
        case .reentrantQueueAccess:
            return "A DatabaseQueue or DatabasePool was called from inside one of its own blocks, which would deadlock. Use the Connection the block receives instead."
        case .writeInsideRead(let sql):
            return "A read block tried to change the database (`\(sql)`); reads are read-only and nothing was changed. Make changes in write { … }, or run the block with inDatabase { … } on a DatabaseQueue."
        case .invalidArguments(let reason, let sql):
            return "Invalid statement: \(reason) — for `\(sql)`."
        case .valueConversion(let column, let reason):
            return "Cannot read column \(column): \(reason)."
        case .rollbackFailed(let bodyError, let rollbackError):
            return "A transaction failed (\(bodyError)) and its rollback failed too (\(rollbackError)). Close the connection and reopen the database; SQLite restores the last committed state on open."
        case .invalidConfiguration(let reason):
            return "Invalid configuration: \(reason)"
        case .connectionClosed:
            return "The connection is closed and cannot be used any more. Open a new Connection, DatabaseQueue or DatabasePool on the database."
        case .statementsStillAlive:
            return "The connection cannot close: a statement or cursor made on it is still alive (kept beyond the block that made it). Nothing was closed and nothing changed. Release it (let it go out of scope, or set it to nil), then retry."
        }
    }

    /// The wrong-key message: only the causes that apply to this file, read from the disk when
    /// the message is made (at most three sentences after the first).
    ///
    /// A slot database (its slot file beside it, bound to it) whose slots all refuse the
    /// passphrase is said to be so. SQLCipher 4 opens a SQLCipher 3 file only with SQLCipher 3's
    /// settings and fails like a wrong key otherwise: nothing in the encrypted file tells the
    /// two apart without trying another KDF, which CipherStore never does on its own, so that
    /// cause is named whenever SQLCipher 4 is linked. A slot file that a crash left aside
    /// (`…keys.previous-…`) is named only when there is one.
    static func wrongKeyMessage(path: String, spelling: (Remedy) -> String?) -> String {
        let slotFile = KeySlots.slotFilePath(forDatabase: path)
        let isSlotDatabase = (try? KeySlots.list(path: path))?.contains(where: \.opensCurrentDatabase) == true
        var lines: [String] = []
        if isSlotDatabase {
            lines.append("Cannot decrypt '\(path)': no slot of its slot file '\(slotFile)' opens with this passphrase (the key is wrong). The file was not changed. Check the passphrase, or give its recovery key.")
        } else {
            lines.append("Cannot decrypt '\(path)': the key is wrong, or the file was made with other cipher settings (page size, KDF iterations, HMAC), or its first page is damaged. The file was not changed."
                         + (spelling(.findSettings).map { " To find the settings that open it with this key, \($0)." } ?? ""))
            if SQLCipherLibrary.sqlcipherMajorVersion >= 4 {
                lines.append("The linked SQLCipher is \(SQLCipherLibrary.sqlcipherVersion ?? "4"): it may be a SQLCipher 3 file, which opens only with SQLCipher 3's settings"
                             + (spelling(.sqlcipher3Settings).map { ": \($0)" } ?? "")
                             + (spelling(.upgrade).map { ", and moves to SQLCipher 4's format with \($0)" } ?? "") + ".")
            }
        }
        let directory = FileSystem.directory(of: slotFile)
        let prefix = String(slotFile.split(separator: "/").last ?? Substring(slotFile)) + ".previous-"
        if let leftover = (try? FileManager.default.contentsOfDirectory(atPath: directory))?.first(where: { $0.hasPrefix(prefix) }) {
            let leftoverPath = slotFile.contains("/") ? (directory == "/" ? "/" : directory + "/") + leftover : leftover
            lines.append("A backup or repair cut off by a crash left its slot file as '\(leftoverPath)': move it back to '\(slotFile)', then retry.")
        }
        return lines.joined(separator: "\n")
    }
}
