import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An encrypted copy of a database's schema and row counts, kept beside it in `DB.schema`, so
/// that a repair still knows the tables when the pages that hold the schema are lost.
///
/// The copy holds every `sqlite_master` row (with its root page, where the table's b-tree
/// starts), the `schema_version` it was taken at, and each table's row count when they were
/// counted. It is sealed with AES-GCM under a key derived from the database's own page key
/// and salt (``SchemaCopyKey``): only the database's key opens it, and it says nothing about the
/// database to anyone else but its size.
///
/// It is written (to a temporary file, synced, renamed):
/// - by ``DatabaseQueue`` and ``DatabasePool`` after a write that changed the schema, and on
///   `close()` after writes (see ``SchemaCopyPolicy``);
/// - at the end of every conversion, backup, restore, repair and key-slot command that writes
///   an encrypted database.
///
/// A database written since by other SQLite clients may have changed: a repair uses the copy
/// only for what the file itself no longer tells (see ``DatabaseRepair``) and reports when it
/// was taken.
struct SchemaCopy: Codable, Sendable, Equatable {
    /// One row of `sqlite_master`.
    struct Object: Codable, Sendable, Equatable {
        let type: String
        let name: String
        let table: String
        let rootPage: Int
        let sql: String?
    }

    let objects: [Object]
    /// Rows per table, when counted.
    let rowCounts: [String: Int]?
    /// The database's `schema_version` when the copy was taken.
    let schemaVersion: Int
    let taken: Date

    /// The copy's file beside a database.
    static func path(forDatabase path: String) -> String { path + ".schema" }

    /// Version 1 holds the sealed box after the magic; version 2 the database's salt first, in
    /// the clear (it is not secret: the database file holds it in its first 16 bytes), so a
    /// repair still knows it when those bytes are lost.
    private static let magicV1 = Array("CSSCHEMA".utf8) + [1]
    private static let magic = Array("CSSCHEMA".utf8) + [2]
    /// Far more than any real schema: a larger file is not read.
    static let maximumFileSize = 16 << 20

    /// The schema and, with `counting`, the row count of every table, of `db`'s main database.
    /// - Parameter rowCounts: counts already known (a conversion's verification), used as they are.
    static func capture(_ db: Connection, counting: Bool, rowCounts known: [String: Int]? = nil) throws -> SchemaCopy {
        let rows = try db.fetchAll(sql: "SELECT type, name, tbl_name, rootpage, sql FROM main.sqlite_master")
        let objects = try rows.map {
            Object(type: try $0.value(String.self, at: 0), name: try $0.value(String.self, at: 1), table: try $0.value(String.self, at: 2),
                   rootPage: try $0.value(Int?.self, at: 3) ?? 0, sql: try $0.value(String?.self, at: 4))
        }
        var rowCounts = known
        if rowCounts == nil && counting {
            var counts: [String: Int] = [:]
            for object in objects where object.type == "table" && object.rootPage > 0 && !object.name.hasPrefix("sqlite_") {
                counts[object.name] = try db.fetchScalar(Int.self, sql: "SELECT count(*) FROM main.\(Connection.quoteIdentifier(object.name))")
            }
            rowCounts = counts
        }
        return SchemaCopy(objects: objects, rowCounts: rowCounts,
                          schemaVersion: try db.fetchScalar(Int.self, sql: "PRAGMA main.schema_version") ?? 0, taken: Date())
    }

    /// Seals the copy and gives it its name beside `database` (mode 0600): written to a
    /// temporary file, synced, renamed over the previous copy, its directory synced.
    func write(forDatabase database: String, key: SchemaCopyKey) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        let sealed = try AES.GCM.seal(try encoder.encode(self), using: key.key, authenticating: Self.magic + key.salt)
        guard let combined = sealed.combined else { throw CipherStoreError.invalidConfiguration(reason: "AES-GCM gave no combined box") }
        let path = Self.path(forDatabase: database)
        _ = TemporaryFiles.removeLeftovers(for: path)
        do {
            try DurableFile.replace(path, with: Self.magic + key.salt + Array(combined))
        } catch is DurableReplacement.Unsynced {
            // In place; only its durability is in doubt, and a later write replaces it.
        }
    }

    /// The database's salt as its schema copy keeps it (version 2 copies), read without a
    /// key; `nil` without one. Nothing vouches for it until the database's pages decrypt with it.
    static func storedSalt(forDatabase database: String) -> [UInt8]? {
        let path = Self.path(forDatabase: database)
        guard FileSystem.size(path) <= maximumFileSize, let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: magic.count + 16), head.count == magic.count + 16,
              Array(head.prefix(magic.count)) == magic else { return nil }
        return Array(head.dropFirst(magic.count))
    }

    /// What was found beside a database.
    enum Found {
        /// No copy there.
        case none
        case opened(SchemaCopy)
        /// A copy is there but cannot be used, and why.
        case unusable(String)

        var copy: SchemaCopy? {
            if case .opened(let copy) = self { return copy }
            return nil
        }
    }

    /// The copy beside `database` that `key` opens.
    static func read(forDatabase database: String, key: SchemaCopyKey) -> Found {
        let path = Self.path(forDatabase: database)
        guard FileSystem.exists(path) || FileSystem.isSymbolicLink(path) else { return .none }
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size <= maximumFileSize else {
            return .unusable("'\(path)' is not a regular file of at most \(maximumFileSize >> 20) MiB")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            return .unusable("'\(path)' could not be read (\(String(cString: strerror(errno)))): check its permissions")
        }
        let header: [UInt8]
        switch Array(data.prefix(magic.count)) {
        case magic where data.count > magic.count + 16: header = magic
        case magicV1: header = magicV1
        default: return .unusable("'\(path)' is not a schema copy (damaged, or another kind of file)")
        }
        let boxStart = header == magic ? magic.count + 16 : magicV1.count
        guard data.count > boxStart, let box = try? AES.GCM.SealedBox(combined: data.dropFirst(boxStart)) else {
            return .unusable("'\(path)' is not a schema copy (damaged, or another kind of file)")
        }
        guard let plain = try? AES.GCM.open(box, using: key.key, authenticating: header + key.salt) else {
            return .unusable("'\(path)' does not open with this key and salt (it belongs to another key or file, or it is damaged)")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        guard let copy = try? decoder.decode(SchemaCopy.self, from: plain) else {
            return .unusable("'\(path)' opens but does not read as a schema copy")
        }
        return .opened(copy)
    }

    /// A copy taken from a file that is not yet in place (a conversion's or backup's verified
    /// result), with the key that opened it, to be written once the file has its name.
    struct Pending: Sendable {
        let copy: SchemaCopy
        /// A passphrase's derived key when there is one: sealing the copy then costs no stretching.
        let key: DatabaseKey
        let cipher: CipherSettings

        /// Writes the copy beside `database`. The file is in place already: a copy that
        /// cannot be written is left out, not an error (see ``SchemaCopy/publish(_:forDatabase:)``).
        /// - Returns: the copy's path when it was written.
        fileprivate func write(forDatabase database: String) -> String? {
            guard let sealingKey = try? SchemaCopyKey.forDatabase(at: database, key: key, cipher: cipher),
                  (try? copy.write(forDatabase: database, key: sealingKey)) != nil else { return nil }
            return SchemaCopy.path(forDatabase: database)
        }
    }

    /// Writes `pending` beside `database`, a new file now in place; without one (a plaintext
    /// file), removes the copy there, which belonged to the file replaced.
    /// - Returns: the copy's path when it was written.
    static func publish(_ pending: Pending?, forDatabase database: String) -> String? {
        if let written = pending?.write(forDatabase: database) { return written }
        remove(forDatabase: database)
        return nil
    }

    /// Removes a copy beside `database`.
    static func remove(forDatabase database: String) {
        FileSystem.removeIfPresent(path(forDatabase: database))
    }
}
