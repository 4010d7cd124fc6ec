#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a whole-file operation — encrypt, decrypt, key change, upgrade, verification, backup,
/// restore, repair — did not happen. In every case the source is left exactly as it was and
/// no partial output remains. (Named `ConversionError` before backups and repairs shared it.)
public enum DatabaseFileError: Error, Sendable, CustomStringConvertible, Equatable {
    /// Nothing at the source path.
    case sourceMissing(path: String)
    /// The source is a directory.
    case sourceIsDirectory(path: String)
    /// The source or the output is neither a regular file nor a directory (a FIFO, a device, a
    /// socket); `fileType` says which, e.g. "a FIFO (named pipe)".
    case notARegularFile(path: String, fileType: String)
    /// The source is an empty file: there is nothing to convert.
    case sourceEmpty(path: String)
    /// Encrypting a database that is already encrypted.
    case alreadyEncrypted(path: String)
    /// Decrypting a database that is not encrypted.
    case alreadyPlaintext(path: String)
    /// The source's schema cannot be read by the linked SQLite (too new, or corrupt).
    case unreadableSchema(path: String, detail: String)
    /// In place: the source has other names (hard links), which would keep the old contents.
    case sourceHasOtherNames(path: String, nameCount: Int, namesFound: [String])
    /// The file is damaged: its size is not a whole number of pages, or a check of its pages failed.
    case damaged(path: String, detail: String)
    /// A virtual table uses a module (such as FTS5) that the linked SQLite does not have.
    case missingModule(path: String, table: String, module: String)
    /// The schema calls an SQL function (in an index on an expression, a `CHECK` constraint, a
    /// trigger or a view) that an app registers and this connection does not have.
    case missingFunction(path: String, function: String)
    /// The schema names a collation that an app registers and this connection does not have:
    /// a rewrite, which creates every table and index anew, needs it.
    case missingCollation(path: String, collation: String)
    /// Rows the source keeps apart have the same key in the copy: a collation of this process
    /// compares text otherwise than the one the file was built with, or the file is damaged.
    case keysNotUnique(path: String, detail: String)
    /// A backup's or a restore's integrity check finds indexes not holding what their tables do,
    /// and each is under a collation the app gave to the operation
    /// (``DatabaseFileOptions/prepareDatabase(_:)``, or the app's own connection for
    /// `backup(to:)`): either the app's collation orders otherwise than the one the file was
    /// built with, or the file is damaged.
    case indexesNotInAppOrder(path: String, indexes: [String], detail: String)
    /// The output exists and overwriting was not asked for.
    case outputExists(path: String)
    /// The output is the source itself (maybe through a link).
    case outputIsSource(path: String)
    /// The output is a directory.
    case outputIsDirectory(path: String)
    /// The output's directory is missing or not writable.
    case outputDirectoryUnusable(path: String)
    /// In place, the source's folder is not writable: the result is written beside the source
    /// and renamed over it, so this user must be able to create files there.
    case sourceDirectoryNotWritable(path: String)
    /// The backup path already exists.
    case backupExists(path: String)
    /// Another connection or process is using the database.
    case databaseInUse(path: String, detail: String)
    /// Another conversion replaced the file in place while this one waited for its lock: the
    /// file now holds that conversion's result (with the key it was given).
    case replacedByAnotherConversion(path: String)
    /// An in-place conversion could not give its result the original's owner and group (this
    /// process is neither the owner, in the group, nor root).
    case ownerCannotBeKept(path: String, owner: UInt32, group: UInt32)
    /// The written result did not match the source; it was discarded.
    case verificationFailed(detail: String)
    /// The operation was cancelled; nothing was changed.
    case cancelled
    /// A file system call failed.
    case io(operation: String, path: String, reason: String)

    public var description: String { message { $0.swiftSpelling } }

    /// The description, with each way out it offers (a ``Remedy``) spelled by `spelling`:
    /// how a tool or an app names its own options in the library's messages. A remedy spelled
    /// `nil` is not offered, and the message leaves it out.
    public func message(spelling: (Remedy) -> String?) -> String {
        let unchanged = "Nothing was changed."
        switch self {
        case .sourceMissing(let path):
            return "'\(path)' does not exist. \(unchanged) Check the path."
        case .sourceIsDirectory(let path):
            return "'\(path)' is a directory, not a database file. \(unchanged) Give the path of the database file."
        case .notARegularFile(let path, let fileType):
            return "'\(path)' is \(fileType), not a regular file: databases are read from and written to regular files only. \(unchanged) Give the path of a database file."
        case .sourceEmpty(let path):
            return "'\(path)' is empty: it holds no database. \(unchanged) Open it with a key to start a new encrypted database instead."
        case .alreadyEncrypted(let path):
            return "'\(path)' is already encrypted. \(unchanged) To change its key use `cipherstore rekey`; to check it use `cipherstore verify`."
        case .alreadyPlaintext(let path):
            return "'\(path)' is already plaintext: there is nothing to decrypt. \(unchanged) To encrypt it use `cipherstore encrypt`."
        case .unreadableSchema(let path, let detail):
            return "Cannot read the schema of '\(path)' (\(detail)). It may use SQLite features newer than the linked SQLite \(SQLCipherLibrary.sqliteVersion) (STRICT tables, generated columns…) or be damaged. \(unchanged) Convert those tables with the SQLite that made them first."
        case .sourceHasOtherNames(let path, let count, let names):
            let others = names.isEmpty ? "" : " (" + names.joined(separator: ", ") + ")"
            return "'\(path)' has \(count) names (hard links)\(others). Replacing it in place would leave the old contents — plaintext, or readable with the old key — under the other names. \(unchanged) \(spelling(.replaceThisNameOnly).map { "Remove the other names first, \($0) to replace this name only." } ?? "Remove the other names first.")"
        case .damaged(let path, let detail):
            return "'\(path)' is damaged: \(detail). \(unchanged) Restore it from a backup (`cipherstore verify` tells whether a copy is sound)" + (spelling(.repair).map { ", or \($0)." } ?? ".")
        case .missingModule(let path, let table, let module):
            return "'\(path)' has the table '\(table)' made with the module \(module), which the linked SQLCipher (SQLite \(SQLCipherLibrary.sqliteVersion)) does not have. \(unchanged) Copy that table into a regular one with the SQLite that made it, or use a SQLCipher build that has \(module)."
        case .missingFunction(let path, let function):
            return "'\(path)' has a schema that calls the SQL function \(function)() (in an index on an expression, a CHECK constraint, a trigger or a view), which the app that made it registers and this program does not have. \(unchanged) Run this from the app, with the function added (DatabaseFileOptions.prepareDatabase), or drop what calls it first."
        case .missingCollation(let path, let collation):
            return "'\(path)' has a schema that names the collation \(collation), which the app that made it registers and this program does not have. A rewrite creates every table and index anew, which takes each collation the schema names, so that the keys and indexes under it are in the app's order. \(unchanged) Run this from the app, with the collation added (DatabaseFileOptions.prepareDatabase)."
        case .keysNotUnique(let path, let detail):
            return "The rows of '\(path)' are not unique under the keys of the copy (\(detail)): values the file keeps apart compare equal here. Either a collation of this program (an app's own given to it, or GRDB's from another version) compares text otherwise than the one the file was built with, or the file is damaged. \(unchanged) Give the rewrite the collation the file was built with (DatabaseFileOptions.prepareDatabase), and check the file with `cipherstore verify`."
        case .indexesNotInAppOrder(let path, let indexes, let detail):
            let named = indexes.count == 1 ? "the index \(indexes[0]) does" : "the indexes \(indexes.joined(separator: ", ")) do"
            return "The integrity check of '\(path)' finds that \(named) not hold what \(indexes.count == 1 ? "its table does" : "their tables do") (\(detail)), and \(indexes.count == 1 ? "it is" : "each is") under a collation that the app gave to this operation. Either the app's collation orders otherwise than the one the file was built with (the index is then right for that one), or the file is damaged. \(unchanged) Rebuild \(indexes.count == 1 ? "that index" : "those indexes") in the app with REINDEX and retry; to tell damage apart, check the file with `cipherstore verify`, which sets indexes under such collations aside."
        case .outputExists(let path):
            return "'\(path)' already exists. \(unchanged) \(spelling(.overwrite).map { "Choose another output, or \($0) to replace it." } ?? "Choose another output.")"
        case .outputIsSource(let path):
            return "The output '\(path)' is the source file itself. \(unchanged) Choose another output" + (spelling(.inPlace).map { "; a conversion replaces its source when you \($0)." } ?? ".")
        case .outputIsDirectory(let path):
            return "The output '\(path)' is a directory. \(unchanged) Give the path of the file to write, e.g. '\(path.hasSuffix("/") ? path : path + "/")app.db'."
        case .outputDirectoryUnusable(let path):
            return "Cannot create files in '\(path)': it is missing or not writable. \(unchanged) Create it or choose another output directory."
        case .sourceDirectoryNotWritable(let path):
            return "Cannot replace the file in place: its folder '\(path)' is not writable by this user, and in place the result is written beside the source, then renamed over it. \(unchanged) Give this user write permission on '\(path)' (see `ls -ld`), or write the result to a new file in a folder this user can write."
        case .backupExists(let path):
            return "The backup '\(path)' already exists. \(unchanged) Move it away first."
        case .replacedByAnotherConversion(let path):
            return "'\(path)' was replaced by another conversion while this one waited for it: it now holds that conversion's result, under the key that one was given. This conversion changed nothing. Check which key opens the file now (`cipherstore verify`) before converting it again."
        case .databaseInUse(let path, let detail):
            return "'\(path)' is in use (\(detail)). \(unchanged) Close the apps and connections using it, then retry."
        case .ownerCannotBeKept(let path, let owner, let group):
            return "'\(path)' belongs to user \(owner), group \(group); a file this process writes in its place could not, which would lock its owner out. \(unchanged) Run as its owner (or root), or convert into a new file."
        case .verificationFailed(let detail):
            return "The converted database did not match the source (\(detail)); it was discarded. The source was not changed. Run `cipherstore verify` on the source and report the problem."
        case .cancelled:
            return "Cancelled. The source was not changed and the partial output was removed."
        case .io(let operation, let path, let reason):
            return "\(operation) failed for '\(path)': \(reason). The source was not changed. \(Self.ioAdvice(reason: reason, path: path))"
        }
    }
}

extension DatabaseFileError {
    /// What to do about an I/O failure, from the system's reason: a permission problem is not
    /// a full disk nor a lack of file descriptors.
    static func ioAdvice(reason: String, path: String) -> String {
        let folder = FileSystem.directory(of: path)
        switch reason {
        case Errno.text(EACCES), Errno.text(EPERM):
            return "This user may not do that: check the permissions of '\(path)' and of its folder '\(folder)' (`ls -ld`), or run as a user who may, then retry."
        case Errno.text(EROFS):
            return "The file system of '\(folder)' is mounted read-only: write somewhere else, or remount it read-write, then retry."
        case Errno.text(ENOSPC), Errno.text(EDQUOT):
            return "The disk (or the user's quota) is full: free space in '\(folder)', then retry."
        case Errno.text(EMFILE), Errno.text(ENFILE):
            return "The process has no file descriptors left: raise the open-file limit (`ulimit -n`), then retry."
        default:
            return "Check free space, the disk and the permissions of '\(folder)', then retry."
        }
    }

    /// What a `SQLITE_CORRUPT` while a database at `path` opens means: a schema whose SQL the
    /// linked SQLite cannot read (made by a newer SQLite) is ``unreadableSchema(path:detail:)``;
    /// any other is damage, ``damaged(path:detail:)``.
    static func openingFailed(path: String, _ error: DatabaseError) -> DatabaseFileError {
        if let message = error.message, message.hasPrefix("malformed database schema") {
            return .unreadableSchema(path: path, detail: message)
        }
        return .damaged(path: path, detail: "SQLite stopped reading it: \(error.message ?? "database disk image is malformed")")
    }
}

/// The system's text for an `errno` value, as `strerror` gives it.
enum Errno {
    static func text(_ code: Int32) -> String { String(cString: strerror(code)) }
}
