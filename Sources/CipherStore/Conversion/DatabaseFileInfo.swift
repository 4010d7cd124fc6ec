#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a file looks like from its bytes, without any key.
///
/// ```swift
/// let info = DatabaseFileInfo.inspect(path: "app.db")
/// if info.kind == .plaintext { print("not encrypted yet") }
/// ```
///
/// An encrypted SQLCipher file has no plaintext header: its first 16 bytes are a random salt
/// and the rest is ciphertext. "Looks encrypted" therefore means: not SQLite, not mostly text,
/// and at least 512 bytes (the smallest SQLCipher page). Random bytes look encrypted too; only
/// the right key can tell for sure. A file whose size is not a whole number of pages is
/// reported as damaged by every command once its key has been checked.
public struct DatabaseFileInfo: Sendable, Hashable {
    /// The kinds of file.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Nothing at the path.
        case missing
        /// A directory, not a file.
        case directory
        /// Neither a regular file nor a directory: a FIFO (named pipe), a device such as
        /// `/dev/zero`, or a socket. ``DatabaseFileInfo/kindDescription`` says which. Never opened.
        case notARegularFile
        /// A file of zero bytes (SQLite treats it as a new, empty database).
        case empty
        /// A plaintext SQLite database: starts with `SQLite format 3\0`.
        case plaintext
        /// Looks like a SQLCipher-encrypted database.
        case encrypted
        /// Neither: text, too short, or of the wrong size.
        case notADatabase
        /// The file could not be read.
        case unreadable
    }

    /// The path inspected.
    public let path: String
    /// What the file looks like.
    public let kind: Kind
    /// The file's size in bytes (0 when missing).
    public let size: Int64
    /// For a plaintext database, the page size from its header.
    public let plaintextPageSize: Int?
    /// For ``Kind/notARegularFile``, what the file is: "a FIFO (named pipe)", "a character device"…
    let specialFileType: String?

    /// An encrypted file whose first bytes are left in plaintext (SQLCipher 4's
    /// ``CipherSettings/plaintextHeaderSize``): it starts like a plaintext SQLite database, but
    /// its header reserves bytes at the end of each page for SQLCipher's IV and HMAC. Such a
    /// file opens only with its salt (``CipherSettings/salt``).
    public let hasPlaintextHeader: Bool

    init(path: String, kind: Kind, size: Int64, plaintextPageSize: Int?, hasPlaintextHeader: Bool = false,
         specialFileType: String? = nil) {
        self.path = path
        self.kind = kind
        self.size = size
        self.plaintextPageSize = plaintextPageSize
        self.specialFileType = specialFileType
        self.hasPlaintextHeader = hasPlaintextHeader
    }

    /// The 16-byte header of every plaintext SQLite 3 database.
    static let sqliteHeader = Array("SQLite format 3\0".utf8)

    /// The salt of an encrypted database: its first 16 bytes. `nil` for a file that is not a
    /// regular file, is shorter, or starts with SQLite's plaintext header. The one place that
    /// reads a file's salt (slot files, repair, shared key derivation, the schema copy).
    static func salt(of path: String) -> [UInt8]? {
        var status = stat()
        // Not a FIFO or device: opening one could wait forever.
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        // Through SQLite's VFS: a plain close would drop the locks of this process's connections.
        guard let salt = LockKeepingRead.prefix(of: path, count: 16), salt.count == 16, salt != sqliteHeader else { return nil }
        return salt
    }

    /// Inspects a file by reading its first bytes. Never writes.
    public static func inspect(path: String) -> DatabaseFileInfo {
        var status = stat()
        guard stat(path, &status) == 0 else {
            return DatabaseFileInfo(path: path, kind: errno == ENOENT ? .missing : .unreadable, size: 0, plaintextPageSize: nil)
        }
        if (status.st_mode & S_IFMT) == S_IFDIR {
            return DatabaseFileInfo(path: path, kind: .directory, size: 0, plaintextPageSize: nil)
        }
        // Before any open: opening a FIFO waits for a writer, and a device has no size to check.
        if let fileType = FileSystem.specialFileType(mode: status.st_mode) {
            return DatabaseFileInfo(path: path, kind: .notARegularFile, size: 0, plaintextPageSize: nil, specialFileType: fileType)
        }
        let size = Int64(status.st_size)
        if size == 0 {
            return DatabaseFileInfo(path: path, kind: .empty, size: 0, plaintextPageSize: nil)
        }
        // Through SQLite's VFS: a plain close would drop the locks of this process's connections.
        guard let header = LockKeepingRead.prefix(of: path, count: 1024) else {
            return DatabaseFileInfo(path: path, kind: .unreadable, size: size, plaintextPageSize: nil)
        }
        // Byte 20 of SQLite's header: bytes reserved at the end of each page. SQLite leaves none;
        // SQLCipher keeps its IV and HMAC there (48 or 80 bytes), so a non-zero count under a
        // plaintext magic string is SQLCipher's plaintext header.
        if header.starts(with: sqliteHeader), header.count >= 21, header[20] > 0, size >= 512 {
            return DatabaseFileInfo(path: path, kind: .encrypted, size: size, plaintextPageSize: nil, hasPlaintextHeader: true)
        }
        if header.starts(with: sqliteHeader), header.count >= 18 {
            let raw = Int(header[16]) << 8 | Int(header[17])
            return DatabaseFileInfo(path: path, kind: .plaintext, size: size, plaintextPageSize: raw == 1 ? 65536 : raw)
        }
        let printable = header.filter { (0x20...0x7E).contains($0) || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }.count
        let mostlyText = printable * 10 >= header.count * 9
        // Not required to be a whole number of pages: a damaged file (bytes appended, cut
        // short) is still told from a wrong key once it is opened (see checkWholePages).
        let looksEncrypted = size >= 512 && !mostlyText
        return DatabaseFileInfo(path: path, kind: looksEncrypted ? .encrypted : .notADatabase, size: size, plaintextPageSize: nil)
    }

    /// A short phrase for messages, e.g. "a plaintext SQLite database".
    public var kindDescription: String {
        switch kind {
        case .missing: return "missing"
        case .directory: return "a directory"
        case .notARegularFile: return (specialFileType ?? "a special file") + ", not a regular file"
        case .empty: return "an empty file"
        case .plaintext: return "a plaintext SQLite database"
        case .encrypted: return hasPlaintextHeader ? "an encrypted database (SQLCipher) with a plaintext header" : "an encrypted database (SQLCipher)"
        case .notADatabase: return "not a database"
        case .unreadable: return "unreadable"
        }
    }
}
